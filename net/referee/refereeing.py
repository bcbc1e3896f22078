"""The referee (`net.referee.machine`) fed from a game session: what the table waits on, the
verdicts as the errors the screen and `cli.seat.goes_on` know. No Twisted, no clock reads:
the node (`wire.PeerNode`) gives the time and carries out the effects.

>>> from tractor.net.referee.machine import Blame, Timing
>>> str(verdict(Blame(3, 2, "stall", "play"), Timing(move=300, complaint_wait=10)))
'seat 2: sent no play for 310 s while connected (and after a complaint), so the table cannot go on'
>>> str(verdict(Blame(3, 1, "gone", "gone"), Timing(grace=120)))
'seat 1 left the table: no connection for 120 s, so this hand ends without a result'
"""

from __future__ import annotations

from collections.abc import Sequence

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tractor.net.deck.errors import Equivocation, KeyTimeout
from tractor.net.errors import NetError
from tractor.net.referee.ballots import pack_ballot
from tractor.net.referee.machine import (
    GONE,
    KEYS,
    Ballot,
    Blame,
    Effect,
    Referee,
    TableNow,
    Timing,
    replace,
)
from tractor.net.referee.stall import (
    AUTO_DEADLINE,
    COMPLAINT_WAIT,
    DECISIONS,
    MOVE_DEADLINE,
    Stalled,
)
from tractor.net.table.session import GameSession


class SeatGone(NetError):
    """A seat stayed unreachable past the grace period (every other seat voted so): the
    hand ends without it."""

    def __init__(self, seat: int, seconds: float, frames: tuple[bytes, ...] = (),
                 moves: int | None = None) -> None:
        self.seat, self.seconds = seat, seconds
        self.frames = frames  #: the signed votes of every other seat
        self.moves = moves  #: its moves in the hand before the one missing (None: unknown)
        super().__init__(f"seat {seat} left the table: no connection for {seconds:.0f} s, "
                         "so this hand ends without a result")


def timing(grace: float, settle: float) -> Timing:
    """The deadlines every peer of a table keeps (`net.referee.stall`'s and the node's)."""
    return Timing(auto=AUTO_DEADLINE, move=MOVE_DEADLINE, complaint_wait=COMPLAINT_WAIT,
                  link_settle=settle, grace=grace, decisions=DECISIONS)


def table_now(session: GameSession) -> TableNow:
    """What the referee watches of ``session``'s table now: the seats it waits on (keys a
    seat owes the deck count as a wait for ``keys``), every seat's moves in the hand."""
    table = session.current
    deck = table.deck
    waiting = dict(table.waiting_on())
    for seat in deck.owed():
        if seat != table.me:
            waiting.setdefault(seat, KEYS)
    marker = (session.hand_no, table.progress(), deck.phase, deck.step, len(deck.audited),
              len(deck.verdicts))
    return TableNow(deck.config.hand, marker, tuple(sorted(waiting.items())),
                    tuple(table.moves_of(s) for s in range(table.n)))


def verdict(blame: Blame, t: Timing) -> Exception:
    """A verdict as the error the node halts on (its ``seat`` is the one blamed, its
    ``frames`` the signed evidence every seat gets)."""
    exc: Exception
    if blame.kind == "deck" and blame.cause is not None:
        return blame.cause
    if blame.kind == GONE:
        exc = SeatGone(blame.seat, t.grace, blame.frames, blame.moves)
    elif blame.kind == KEYS:
        exc = KeyTimeout(blame.seat, [], blame.moves)
        exc.frames = blame.frames
    elif blame.kind == "equivocation":
        exc = Equivocation(blame.seat, f"cast {blame.what}")
        exc.frames = blame.frames
    else:
        exc = Stalled(blame.seat, blame.what, t.deadline(blame.what) + t.complaint_wait,
                      blame.frames, blame.moves)
    # The hand it is on, an extra attribute (as `TableHand` adds to the deck's errors).
    exc.hand = blame.hand  # type: ignore[union-attr]
    return exc


class Refereeing:
    """One peer's referee over its session: each method feeds an event and returns the
    effects for the node to carry out (`referee.Complain`, `Cast`, `Decide`)."""

    def __init__(self, session: GameSession, key: Ed25519PrivateKey, t: Timing,
                 now: float) -> None:
        self.session = session
        table = session.table

        def sign(ballot: Ballot) -> bytes:
            return pack_ballot(key, table, ballot)
        self.referee = Referee.start(len(session.public_keys), session.seat, t, now, sign)

    @property
    def timing(self) -> Timing:
        return self.referee.timing

    @timing.setter
    def timing(self, t: Timing) -> None:
        self.referee = replace(self.referee, timing=t)

    def _take(self, step: tuple[Referee, tuple[Effect, ...]]) -> Sequence[Effect]:
        self.referee, effects = step
        return effects

    def moved(self, now: float) -> Sequence[Effect]:
        return self._take(self.referee.moved(table_now(self.session), now))

    def tick(self, now: float) -> Sequence[Effect]:
        """A second passed: the table as it stands, then the deadlines."""
        effects = list(self.moved(now))
        late = frozenset(self.session.current.deck.overdue(now))
        return effects + list(self._take(self.referee.tick(now, late)))

    def link_up(self, seat: int, now: float) -> None:
        self._take(self.referee.link_up(seat, now))

    def link_down(self, seat: int, now: float) -> None:
        self._take(self.referee.link_down(seat, now))

    def heard(self, ballot: Ballot, now: float, own: bool = False) -> Sequence[Effect]:
        return self._take(self.referee.heard(ballot, now, own))

    def found(self, blame: Blame) -> Sequence[Effect]:
        return self._take(self.referee.found(blame))

    def forget_before(self, hand: int) -> None:
        self.referee = self.referee.forget_before(hand)

    def open_votes(self) -> list[tuple[int, str]]:
        """(seat, step) of the items this peer voted on that are not settled yet: the table
        waits for the other seats' ballots on them (the screen says so)."""
        r = self.referee
        out = []
        for item, cast in sorted(r.ballots.items()):
            mine = cast.get(r.me, ())
            if item not in r.settled and any(not b.came for b in mine):
                out.append((item.seat, next(b.what for b in mine if not b.came)))
        return out
