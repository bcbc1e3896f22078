"""This peer's own frames that left, per other seat, from the hand before the one being
played on: a seat whose link comes back gets them all again (its engine refuses the
copies), and a seat that complains it lacks one of them gets it (`net.referee.judging`).

Plain state: no Twisted, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable

from tractor.net.deck.envelope import peek_hand


class Outbox:
    """One list of frames per other seat (``boxes``: seat -> frames, oldest first)."""

    def __init__(self, seats: Iterable[int]) -> None:
        self.boxes: dict[int, list[bytes]] = {s: [] for s in seats}
        self.hand = 0  #: the hand being played

    def to(self, seat: int) -> list[bytes]:
        """What left for ``seat`` and is still kept (nothing for a seat without a box)."""
        return self.boxes.get(seat, [])

    def new_hand(self, hand: int) -> bool:
        """Whether ``hand`` is another than the one being played; if so it is now, and only
        its frames and those of the hand before stay (a slower peer may still need them
        after a reconnect; older ones are settled)."""
        if hand == self.hand:
            return False
        for box in self.boxes.values():
            box[:] = [f for f in box if peek_hand(f) >= hand - 1]
        self.hand = hand
        return True
