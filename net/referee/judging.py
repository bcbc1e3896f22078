"""This peer's referee on the wire: the signed complaints and ballots it hears and relays,
and the referee's effects carried out (`net.referee.machine`, fed by `net.referee.refereeing`).

No Twisted here: the node (`wire.PeerNode`) gives it the time and a way to reach the links
(`JudgedLink`).

What one seat can make this peer keep is bounded: complaints and ballots are taken only for
the hand being played and the ones beside it, at most `MAX_COMPLAINTS_PER_SEAT` times the
seats complaints per signer and hand, and the ballots the referee keeps (`Referee.keeps`:
`referee.MAX_BALLOTS` votes per signer and hand, as many passes per seat); older hands are
forgotten as the table moves on (`forget_before`). A ballot is relayed once, if kept.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol

from twisted.logger import Logger

from tractor.net.deck.envelope import peek_hand
from tractor.net.journal.store import Journal
from tractor.net.mesh.outbox import Outbox
from tractor.net.mesh.relay import Relay
from tractor.net.referee.ballots import BallotError, read_ballot
from tractor.net.referee.machine import GONE, Blame, Cast, Complain, Decide, Effect, Item, replace
from tractor.net.referee.refereeing import Refereeing, timing, verdict
from tractor.net.referee.stall import ComplaintError, pack_complaint, read_complaint
from tractor.net.table.session import GameSession

#: Complaints kept per signer and hand, per seat of the table (a seat complains about a few
#: steps of a hand; more is a flood, not relayed).
MAX_COMPLAINTS_PER_SEAT = 2


class JudgedLink(Protocol):
    """A link, as the referee's side sees it: the seat it proved, and ways to send on it
    and to drop it."""

    @property
    def seat(self) -> int | None: ...

    def sendString(self, string: bytes) -> None: ...

    def _drop(self, why: str) -> None: ...


Links = Callable[[], Mapping[int, JudgedLink]]  #: seat -> its link, those up (now)


class Judging:
    """The referee's side of one peer: it hears and relays ballots and complaints, and
    carries out the referee's effects through ``halt(exc, hand, frames)`` (a verdict) and
    the links ``links()`` gives (seat -> link, those up). A seat that complains it lacks
    one of this peer's own frames gets it again from ``outbox``."""

    def __init__(self, session: GameSession, grace: float, settle: float, now: float,
                 relay: Relay, outbox: Outbox, links: Links,
                 halt: Callable[[Exception, int, Sequence[bytes]], None],
                 changed: Callable[[], None], log: Logger,
                 journal: Journal | None = None, game: str = "") -> None:
        self.session = session
        self.seat = session.seat
        self.table = session.table
        self.public_keys = list(session.public_keys)
        self.relay = relay
        self.links = links
        self._halt = halt
        self._changed = changed
        self.log = log
        self.journal = journal
        self.game = game
        self.halted = False  #: once a verdict is out, nothing more is carried out
        #: Who holds the table up, judged on signed ballots (`net.referee.machine`).
        self.refereeing = Refereeing(session, session.signing_key, timing(grace, settle), now)
        #: Signed complaints heard (this peer's too) -> (hand, complainer): relayed once.
        self.complaints: dict[bytes, tuple[int, int]] = {}
        #: Signed ballots heard (this peer's too) -> (hand, signer): relayed once, and
        #: given to a seat whose link comes up.
        self.ballots: dict[bytes, tuple[int, int]] = {}
        self.outbox = outbox

    # --- events -------------------------------------------------------------------------------

    def resumed(self, now: float) -> None:
        """A peer that begins again: the ballots it cast before are its own again (it must
        never cast the other kind on the same item)."""
        if self.journal is not None:
            for frame in self.journal.ballots(self.game):
                ballot = read_ballot(frame, self.table, self.public_keys, "the journal")
                self.ballots[frame] = (ballot.item.hand, ballot.signer)
                self.carry_out(self.refereeing.heard(ballot, now, own=True))

    def tick(self, now: float) -> None:
        self.carry_out(self.refereeing.tick(now))

    def moved(self, now: float) -> None:
        self.carry_out(self.refereeing.moved(now))  # waits end, passes fall due

    def link_up(self, seat: int, link: JudgedLink, now: float) -> None:
        """A seat's link came up: it gets every ballot of the hands still open."""
        self.refereeing.link_up(seat, now)
        for frame in list(self.ballots):
            link.sendString(frame)

    def link_down(self, seat: int, now: float) -> None:
        self.refereeing.link_down(seat, now)

    def found(self, blame: Blame) -> None:
        """Evidence the deck found: the referee's verdict too."""
        self.refereeing.found(blame)

    def forget_before(self, hand: int) -> None:
        """Hands before ``hand`` are settled: their complaints and ballots go."""
        self.complaints = {c: k for c, k in self.complaints.items() if k[0] >= hand}
        self.ballots = {b: k for b, k in self.ballots.items() if k[0] >= hand}
        self.refereeing.forget_before(hand)

    def be_patient(self) -> None:
        """Never vote on a seat for the time it takes over a decision (a practice table)."""
        self.refereeing.timing = replace(self.refereeing.timing, move=math.inf)

    def gone_voted(self) -> set[int]:
        """Seats this peer voted gone on items still open."""
        return {seat for seat, what in self.refereeing.open_votes() if what == GONE}

    # --- frames from the links ----------------------------------------------------------------

    def ballot_from(self, link: JudgedLink, frame: bytes, now: float) -> None:
        """A seat's ballot (or one it relays): checked, relayed once, given to the referee."""
        try:
            ballot = read_ballot(frame, self.table, self.public_keys, f"seat {link.seat}")
        except BallotError as exc:
            link._drop(str(exc))
            return
        current = self.session.current.deck.config.hand
        if frame in self.ballots or not current - 1 <= ballot.item.hand <= current + 1:
            return
        before = self.refereeing.referee
        effects = self.refereeing.heard(ballot, now)
        if self.refereeing.referee is before:
            return  # not kept (a copy, or past a bound): nor relayed
        self.ballots[frame] = (ballot.item.hand, ballot.signer)
        for seat, other in list(self.links().items()):  # before any pass of this peer's
            if seat not in (link.seat, ballot.signer):
                other.sendString(frame)
        self.carry_out(effects)

    def complaint_from(self, link: JudgedLink, frame: bytes) -> None:
        """A seat waited too long for another's message: relay its complaint once, and if
        this peer holds what it lacks (or owes it), send that at once."""
        try:
            complaint = read_complaint(frame, self.table, self.public_keys)
        except ComplaintError as exc:
            link._drop(str(exc))
            return
        if not self._pass_on(link, frame, self.complaints, complaint.hand,
                             complaint.complainer,
                             MAX_COMPLAINTS_PER_SEAT * len(self.public_keys)):
            return
        self.complaints[frame] = (complaint.hand, complaint.complainer)
        self._send_missing(complaint.complainer, complaint.hand, complaint.about,
                           complaint.held)

    def _pass_on(self, link: JudgedLink, frame: bytes, seen: dict[bytes, tuple[int, int]],
                 hand: int, signer: int, bound: int) -> bool:
        """Whether a signed complaint is news (for this hand or one beside it, not
        heard yet, and within ``bound`` per signer and hand: more is a flood); if so it is
        relayed once to every other seat."""
        current = self.session.current.deck.config.hand
        if frame in seen or not current - 1 <= hand <= current + 1:
            return False
        if sum(k == (hand, signer) for k in seen.values()) >= bound:
            return False
        for seat, other in list(self.links().items()):
            if seat not in (link.seat, signer):
                other.sendString(frame)
        return True

    def _send_missing(self, to: int, hand: int, about: int, held: int) -> None:
        """Give seat ``to`` the frames of ``about`` in ``hand`` past the first ``held``."""
        target = self.links().get(to)
        if target is None or to == self.seat:
            return
        if about == self.seat:  # what left of its own (never what a suspected split keeps)
            frames = [f for f in self.outbox.to(to) if peek_hand(f) == hand]
        else:
            frames = self.relay.chain(hand, about, held)
        for f in frames:
            target.sendString(f)

    # --- the referee's effects -----------------------------------------------------------------

    def carry_out(self, effects: Iterable[Effect]) -> None:
        for effect in effects:
            if self.halted:
                return
            if isinstance(effect, Complain):
                self._complain(effect.item, effect.what)
            elif isinstance(effect, Cast):
                self._cast(effect.ballot.frame, effect.ballot.item.hand)
            elif isinstance(effect, Decide):
                exc = verdict(effect.blame, self.refereeing.timing)
                self.log.warn("verdict: {why}", why=str(exc))
                self._halt(exc, effect.blame.hand, effect.blame.frames)

    def _complain(self, item: Item, what: str) -> None:
        """Tell every seat this peer has waited past the deadline for ``item``: whoever holds
        the message sends it at once."""
        held = len(self.relay.chain(item.hand, item.seat))
        self.log.warn("seat {seat} owes its {what}: complaining to the table", seat=item.seat,
                      what=what)
        complaint = pack_complaint(self.session.signing_key, self.table, item.hand, self.seat,
                                   item.seat, what, held)
        self.complaints[complaint] = (item.hand, self.seat)
        for link in list(self.links().values()):
            link.sendString(complaint)

    def _cast(self, frame: bytes, hand: int) -> None:
        """This peer's ballot: in the journal before it leaves (a resumed peer must never
        cast the other kind on the same item: its two signatures would blame it)."""
        if self.journal is not None:
            with self.journal.db:
                self.journal.add_ballot(self.game, frame)
        self.ballots[frame] = (hand, self.seat)
        for link in list(self.links().values()):
            link.sendString(frame)
        self._changed()
