"""Typed errors of the deck protocol. Each names the seat it blames."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tractor.net.errors import NetError


class DeckError(NetError, ValueError):
    """A protocol violation, blamed on ``seat``.

    ``outgoing`` holds frames this peer produced while processing other, valid messages
    before the violation was found: broadcast them as usual. ``also`` holds further
    violations found in the same run. ``frames`` holds the signed frames that show it (the
    refused message; both versions of an equivocation): any peer can check them, so a peer
    that halts on them relays them and the whole table halts naming the same seat."""

    def __init__(self, seat: int, message: str) -> None:
        self.seat = seat
        self.reason = message
        self.outgoing: list[bytes] = []
        self.also: list[DeckError] = []
        self.frames: tuple[bytes, ...] = ()
        super().__init__(f"seat {seat}: {message}")


class BadMessage(DeckError):
    """A well-signed message with content the protocol refuses (wrong phase, bad point ...)."""


class CheatDetected(DeckError):
    """A proof that fails, a wrong key, a card not held: a cheat, blamed on its author."""


class Replay(DeckError):
    """A message the sender already sent (same sequence number, same content)."""


class Equivocation(DeckError):
    """Two different signed messages from one seat for the same place in its chain (proven
    by the two signed frames)."""


class ViewMismatch(DeckError):
    """A seat reports a view of another seat's messages that differs from this peer's.
    Either the other seat (``about``) equivocated or the reporter (``seat``) lies: ask the
    reporter for the frame (`Deck.evidence`) and check it (`Deck.check_evidence`)."""

    def __init__(self, seat: int, about: int, count: int) -> None:
        self.about = about
        self.count = count
        super().__init__(seat, f"reports other messages from seat {about} (its first {count}) "
                               "than this peer received")


class KeyTimeout(DeckError):
    """A seat did not release keys it owes within the allowed time."""

    def __init__(self, seat: int, positions: list[int], moves: int | None = None) -> None:
        self.positions = positions
        #: Named on every other seat's votes: its moves in the hand before the keys it owed.
        self.moves = moves
        which = f"positions {positions}" if len(positions) <= 12 else f"{len(positions)} positions"
        if not positions:  # named by every other seat (this peer got them too late)
            which = "the positions the other seats waited for"
        super().__init__(seat, f"did not release its keys for {which} in time")


class TranscriptSplit(DeckError):
    """A seat's message was made on other inputs than this peer has (another input deck):
    some seat sent different messages to different peers. ``seat`` is the
    seat whose message shows the split, not necessarily the one to blame: compare the
    signed frames (`Deck.evidence`, `Deck.check_evidence`) to find the equivocator."""


@contextmanager
def carrying(out: list[bytes]) -> Iterator[None]:
    """Frames this peer made already (signed, chained: ``out``, a list the block extends)
    go first in the ``outgoing`` of a `DeckError`, or of a table's error, raised in the
    block: whoever handles the error sends them as usual."""
    try:
        yield
    except NetError as exc:  # a refusal carries frames; a bug goes up as it came
        _carry(out, exc)
        raise


def _carry(out: list[bytes], exc: NetError) -> None:
    if out and isinstance(getattr(exc, "outgoing", None), list):
        exc.outgoing = out + exc.outgoing  # type: ignore[attr-defined]


def followed_by(out: list[bytes], more: Callable[[], list[bytes]]) -> list[bytes]:
    """``out + more()``, the frames of ``out`` `carrying` into an error ``more`` raises.

    >>> def refused() -> list[bytes]:
    ...     raise BadMessage(2, "no")
    >>> try:
    ...     followed_by([b"mine"], refused)
    ... except DeckError as exc:
    ...     exc.outgoing
    [b'mine']
    """
    # As `carrying` does, written out: this runs for every frame a table takes.
    try:
        return out + more()
    except NetError as exc:
        _carry(out, exc)
        raise
