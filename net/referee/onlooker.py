"""The referee as a watcher sees it (`Onlooker`): the signed ballots a table that halts on a
verdict gives its watchers (`mesh.watchers.Watchers.evidence`: every other seat's vote on
the move a seat held back, or one seat's two contrary ballots), settled by the seats' own
referee (`machine.Referee`, in no seat), so a watcher names the seat the table blamed, and
why, from the seats' signatures alone: the seat it watches through cannot make one up.

A watcher casts nothing and waits on nobody: it only counts the ballots it is given. Each
is read and its signature checked (`ballots.read_ballot`); the referee's own bounds keep
what a hostile seat can make it hold small (`Referee.keeps`), and only ballots on the hand
being played and the ones beside it count, and are held (older ones are forgotten as the
replay moves on, as the seats forget theirs).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from tractor.net.referee.ballots import read_ballot
from tractor.net.referee.machine import Decide, Referee
from tractor.net.referee.refereeing import timing, verdict


class Onlooker:
    """A watcher's referee of ``table``: `take` each ballot; ``verdict`` is the error the
    seats halted on, once the ballots show it (a `SeatGone` says ``seconds`` nan: a
    watcher is not told the table's grace)."""

    def __init__(self, table: bytes, public_keys: Sequence[Ed25519PublicKey]) -> None:
        self.table = table
        self.keys = list(public_keys)
        seats = len(self.keys)
        # The deadlines only word the verdict (they are the same at every table); no seat's
        # grace is known here.
        self.referee = Referee.start(seats, seats, timing(math.nan, 0.0))
        self.verdict: Exception | None = None
        self.hand = 0  #: the replay's hand at the last ballot (older hands are forgotten)

    def take(self, frame: bytes, hand: int) -> bool:
        """One ballot frame, the watcher's replay being at ``hand``: whether it was kept
        (False: a copy, a flood past the bounds, a ballot on another hand). Raises
        `ballots.BallotError` for one that is not a ballot of this table's seats."""
        ballot = read_ballot(frame, self.table, self.keys, "the seat you watch through")
        if hand > self.hand:
            # As the seats do (`judging.forget_before`): the ballots of hands before the one
            # beside the replay's count no more; held, a seat watched through could make its
            # watcher keep its own ballots of every hand of the game (and settle each new one
            # over them all).
            self.hand = hand
            self.referee = self.referee.forget_before(hand - 1)
        if not hand - 1 <= ballot.item.hand <= hand + 1:
            return False
        before = self.referee
        self.referee, effects = self.referee.heard(ballot, 0.0)
        if self.referee is before:
            return False
        for effect in effects:
            if isinstance(effect, Decide) and self.verdict is None:
                self.verdict = verdict(effect.blame, self.referee.timing)
        return True
