"""Take-backs (`Rules.takebacks`): a seat takes back its last play until the next seat has
played. seeds/README.md, "Take-backs", lists the Choices; here they are in code:

- a lead or a follow may be taken back, also the play that completes a trick (until the
  trick's winner leads the next one; the winner may be the same seat);
- never a throw (the other seats answered it with their claims, and a failed throw's
  penalty stands), nor the play that ends the hand (it is scored at once, and between
  peers every key is released for the audit);
- the play a seat makes again after a take-back is final: one take-back per turn;
- at most `TAKEBACKS_PER_HAND` take-backs per seat in a hand.

Taking back restores the hand exactly as it stood before the play (the cards in the hand,
the trick, the points, the sides of find-a-friend), from a copy of the state saved as the
play was made: `tractor.playing.PlayRules` saves it and restores it.

>>> from tractor.rules import Rules
>>> marks = TakeBacks(4)
>>> marks.refusal(Rules(), 0)
'the rules of this table allow no take-backs (takebacks=false)'
>>> marks.refusal(Rules(takebacks=True), 0)
'there is no play of yours to take back: only the last play can be, before the next seat plays'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .rules import Rules, Seat

#: How many plays one seat may take back in one hand (a bound against a seat that would
#: hold the table up by taking back again and again).
TAKEBACKS_PER_HAND = 3

_ALL_USED = f"you took back {TAKEBACKS_PER_HAND} plays in this hand, the most the table allows"


@dataclass(frozen=True, slots=True)
class LastPlay:
    """The hand's last play: whose, and either the state before it (``saved``, to restore)
    or why it cannot be taken back (``final``)."""

    seat: Seat
    turn: tuple[int, int]  #: (tricks finished before it, its place in its trick)
    saved: dict[str, Any] | None
    final: str | None = None


class TakeBacks:
    """One hand's take-backs: the last play, the take-backs each seat made, and the turn
    whose play is final because it was taken back once."""

    __slots__ = ("last", "used", "final_turn")

    def __init__(self, players: int) -> None:
        self.last: LastPlay | None = None
        self.used = [0] * players
        self.final_turn: tuple[int, int] | None = None

    def copy(self) -> TakeBacks:
        other = TakeBacks(len(self.used))
        other.last, other.used, other.final_turn = self.last, list(self.used), self.final_turn
        return other

    def why_final(self, seat: Seat, turn: tuple[int, int], throw: bool,
                  ends_hand: bool) -> str | None:
        """Why a play ``seat`` makes at ``turn`` could never be taken back (None: it can,
        if the next seat has not played)."""
        if throw:
            return "a throw cannot be taken back: the other seats answered it"
        if ends_hand:
            return "the last card of the hand cannot be taken back: the hand is scored"
        if turn == self.final_turn:
            return "a play made again after a take-back is final"
        if self.used[seat] >= TAKEBACKS_PER_HAND:
            return _ALL_USED
        return None

    def refusal(self, rules: Rules, seat: Seat) -> str | None:
        """Why ``seat`` may not take back now, in the rules' words (None: it may)."""
        if not rules.takebacks:
            return "the rules of this table allow no take-backs (takebacks=false)"
        last = self.last
        if last is None or last.seat != seat:
            if self.used[seat] >= TAKEBACKS_PER_HAND:
                # Its plays are final now, so the next seat plays at once (an AI does not
                # wait for a take-back that cannot come): the limit is the reason to give.
                return _ALL_USED
            return ("there is no play of yours to take back: only the last play can be, "
                    "before the next seat plays")
        return last.final

    def taken(self, seat: Seat) -> dict[str, Any]:
        """``seat`` takes its last play back (`refusal` said it may): the state to restore."""
        last = self.last
        assert last is not None and last.saved is not None
        self.used[seat] += 1
        self.final_turn = last.turn
        self.last = None
        return last.saved
