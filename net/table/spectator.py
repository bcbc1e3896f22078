"""A watcher's replica of a game (`Spectator`): the seats' own state machines, in no seat.

A watcher is not a seat: it holds no key of the seating, signs nothing, is asked nothing
and owes nothing, so no deadline waits on it and no referee judges it. It is fed the
game's signed frames (the public transcript: what every seat broadcast, from a seat's
journal and then live) and replays them with the same `GameSession` a seat runs, with a
seat number no seat has (`Deck.watching`): every signature, every shuffle and lock proof,
every released key, every move and every seat's audit verdict is checked as a seat checks
them. It opens a card only when the table does (a card's owner keeps its own lock key
until it plays, shows or audits it), so it never sees a hand or the burial before the
rules open them.

Frames may come in any order and more than once (the chains put each seat's messages in
order); a frame whose signature, shape or content a seat would refuse is refused here and
named (`WatchRefused`), and the replay stops: whoever fed it is not to be trusted.

A table that halts on the referee's verdict (a seat held it up) gives its watchers the
seats' signed ballots that show it: the spectator settles them as the seats do
(`referee.onlooker`), and ``halted`` is then the verdict the seats halted on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tractor.net.deck.envelope import FrameError, NoRoom, peek_hand
from tractor.net.deck.errors import DeckError, Replay, TranscriptSplit, ViewMismatch
from tractor.net.errors import NetError
from tractor.net.referee.ballots import BallotError, is_ballot
from tractor.net.referee.onlooker import Onlooker
from tractor.net.table.errors import TableError
from tractor.net.table.hand import TableHand
from tractor.net.table.player import Undecided
from tractor.net.table.session import GameSession
from tractor.rules import Rules

#: The watcher's secrets are never used (it makes no move); any fixed value does.
_NO_SEED = bytes(32)


class WatchRefused(NetError, ValueError):
    """A frame a seat would refuse: forged, malformed, or a move the rules refuse.
    ``seat`` is the seat it names (its signer, or the seat it claims to be from), None
    when it names none."""

    def __init__(self, seat: int | None, reason: str, frame: bytes = b"") -> None:
        self.seat = seat
        self.reason = reason
        self.frame = frame
        who = "a frame" if seat is None else f"a frame of seat {seat}"
        super().__init__(f"{who} was refused: {reason}")


class Nobody(Undecided):
    """The player of a seat nobody holds: it is never asked (`decisions.NoDecisions`)."""


class Spectator:
    """One watcher's game: fed signed frames (`take`), it holds the public state."""

    def __init__(self, rules: Rules, table: bytes, public_keys: Sequence[Ed25519PublicKey],
                 carry: Sequence[Any] | None = None) -> None:
        # The session's key signs nothing (`Deck.watching`): a fresh one fills the place.
        self.session = GameSession(rules, table, rules.players, Ed25519PrivateKey.generate(),
                                   public_keys, _NO_SEED, Nobody(), carry=carry)
        self.refused: WatchRefused | None = None  #: why the replay stopped, if it did
        self.referee = Onlooker(table, public_keys)  #: the ballots of a halt, settled
        self.taken = 0  #: frames applied (copies and frames of finished hands not counted)
        self._made(self.session.start())

    @property
    def current(self) -> TableHand:
        """The hand being played (or the last one, once the game is over)."""
        return self.session.current

    @property
    def halted(self) -> Exception | None:
        """The referee's verdict the table halted on, once its signed ballots came."""
        return self.referee.verdict

    def take(self, frame: bytes) -> bool:
        """Check and apply one frame; False if it changed nothing (a copy, a frame of a hand
        already settled). Raises `WatchRefused` (and takes nothing more after it)."""
        if self.refused is not None:
            raise self.refused
        session = self.session
        if is_ballot(frame):
            try:
                return self.referee.take(frame, session.current.deck.config.hand)
            except BallotError as exc:
                return self._refuse(None, f"the seat you watch through sent a ballot that is "
                                          f"not one of the table's seats': {exc.reason}", frame)
        try:
            hand = peek_hand(frame)
            if hand < session.current.deck.config.hand:
                return False  # settled: its hand's transcript was complete here
            self._made(session.receive(frame))
        except Replay:
            return False
        except NoRoom as exc:
            # Far ahead of what it holds: an honest peer sends a seat's transcript in order,
            # so the peer that sent this is not to be trusted (its signer did no wrong).
            return self._refuse(None, f"seat {exc.seat}'s frames came far out of their "
                                      f"order ({exc.reason}): the seat you watch through "
                                      "sent them so", frame)
        except FrameError as exc:
            # Not signed as the table's: evidence of nothing against the seat it claims to
            # be from (anybody can write a seat's number); the seat that sent it did send it.
            claims = "" if exc.seat is None else f" (it says it is seat {exc.seat}'s)"
            return self._refuse(None, f"the seat you watch through sent a frame that is not "
                                      f"one of the table's{claims}: {exc.reason}", frame)
        except (ViewMismatch, TranscriptSplit) as exc:
            return self._refuse(None, _split(exc), frame)
        except (DeckError, TableError) as exc:
            reason = exc.reason if isinstance(exc, DeckError) else str(exc).split(": ", 1)[-1]
            return self._refuse(exc.seat, reason, frame)
        self.taken += 1
        return True

    def _refuse(self, seat: int | None, reason: str, frame: bytes) -> bool:
        self.refused = WatchRefused(seat, reason, frame)
        raise self.refused

    @staticmethod
    def _made(frames: list[bytes]) -> None:
        if frames:  # (a watcher's deck signs nothing: a frame here is a bug of ours)
            raise RuntimeError("a watcher's replay made frames of its own")


def _split(exc: ViewMismatch | TranscriptSplit) -> str:
    """Why a frame that shows a split transcript ends the watch. A seat would ask for the
    signed versions and blame whoever signed two; a watcher cannot ask, and the seat it
    watches through may itself have signed a version for its watchers alone: it names
    both seats and blames neither."""
    if isinstance(exc, ViewMismatch):
        return (f"seat {exc.seat} signed a view of seat {exc.about}'s messages that differs "
                f"from those this watch was given: seat {exc.about} signed two versions (to "
                f"its watchers alone, if it is the seat you watch through) or seat {exc.seat} "
                "did; the table finds which")
    return (f"seat {exc.seat}'s message was made on other messages than this watch was "
            "given: some seat signed two versions (to its watchers alone, if it is the seat "
            "you watch through); the table finds which")
