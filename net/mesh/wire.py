"""One peer on the network (`PeerNode`), over TCP with Twisted.

A node listens, dials the seats the fixed rule tells it to (a seat dials every higher seat),
reconnects with backoff, keeps an outbox per seat so nothing is lost while a link is down,
and hands every frame to a `GameSession`. All game logic stays in the session; this module
only moves bytes and time. Its parts, each in a module of its own: one connection
(`net.mesh.link`, opened by `net.mesh.handshake`), who may connect (`net.mesh.admission`),
dialing (`net.mesh.dialing`), what a frame does (`net.mesh.intake`), have reports and relays
(`net.mesh.gossip`, `net.mesh.relay`), the referee's side (`net.referee.judging`). An
internet table's seats are reached through pair links a layer above gives the node
(`net.mesh.pair_links`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet.address import IPv4Address, IPv6Address
from twisted.internet.defer import Deferred
from twisted.internet.endpoints import serverFromString
from twisted.internet.interfaces import (
    IListeningPort,
    IReactorThreads,
    IReactorTime,
    IStreamServerEndpoint,
)
from twisted.internet.protocol import Factory
from twisted.internet.task import LoopingCall
from twisted.logger import Logger

from tractor.net.deck.background import Runner
from tractor.net.deck.envelope import open_frame, peek_hand
from tractor.net.deck.worker import DeckWorker
from tractor.net.journal.store import Journal
from tractor.net.mesh.admission import Admission
from tractor.net.mesh.dialing import Dialer
from tractor.net.mesh.gate import LastFew
from tractor.net.mesh.gossip import Gossip
from tractor.net.mesh.intake import FrameIntake
from tractor.net.mesh.link import PeerLink
from tractor.net.mesh.outbox import Outbox
from tractor.net.mesh.pair_links import PairLinkMaker, PairLinks
from tractor.net.mesh.reachability import UNREACHABLE, Reachability
from tractor.net.mesh.relay import Relay
from tractor.net.mesh.traffic import Traffic
from tractor.net.mesh.watchers import Watchers
from tractor.net.referee.ballots import is_ballot
from tractor.net.referee.judging import Judging
from tractor.net.referee.refereeing import Refereeing, SeatGone
from tractor.net.table.journaled import hand_sides
from tractor.net.table.session import GameSession

#: Seconds between heartbeats (empty frames) on an up link that has sent nothing else
#: meanwhile; a link silent for `LINK_SILENCE` is dropped. A connection whose other end
#: vanished (a router restart, a Wi-Fi change) gives no sign of it until something is
#: sent; without heartbeats the seat that should dial found out only after minutes, while
#: the table waited on it.
HEARTBEAT = 3.0
GRACE = 120.0  #: seconds a seat may stay disconnected before the others vote it gone
#: Seconds a seat that (re)connected has to resend what it owes before its overdue keys
#: count: its frames follow the handshake, and deadlines may predate the link (a resume).
SETTLE = 5.0
#: Grace periods after which a seat still without a link ends the hand at this peer even
#: without every other seat's vote (when more than one seat is gone, none can be named).
LOST_AFTER = 2
#: Seconds between have reports (each link gets one when this peer's holdings changed):
#: well inside `relay.RELAY_AFTER`, so a seat that got a frame straight from its author
#: says so before anyone relays it.
HAVE_EVERY = 0.25
WARN_BEFORE = 60.0  #: seconds before its decision deadline a person is warned


class PeerNode:
    """One peer on the network: its session, its links to the other seats, its outboxes."""

    log = Logger()

    def __init__(self, reactor: Any, session: GameSession | None = None,
                 raw_keys: Sequence[bytes] = (), listen: str = "tcp:0:interface=127.0.0.1",
                 journal: Journal | None = None, game: str = "", grace: float = GRACE,
                 deck_runner: Runner | None = None,
                 pair_links: PairLinkMaker | None = None) -> None:
        self.reactor = reactor
        #: Where the decks' heavy work runs: a thread that gives way to the AI's searches
        #: (`DeckWorker`) when the reactor has threads, else at once.
        self.deck_runner = deck_runner
        self._worker: DeckWorker | None = None  #: the thread this node started, if any
        self.stopped = False  #: `stop` was called
        self.clock: IReactorTime = reactor
        self.listen_description = listen
        self.links: dict[int, PeerLink] = {}  #: seat -> its link, once its proof checked
        #: Every open connection, handshakes included (`stop` closes them all).
        self.connections: set[PeerLink] = set()
        self.port: IListeningPort | None = None
        self.dialer = Dialer(reactor, self.clock, self.dial_failed)  #: the seats TCP reaches
        #: The last errors seats were refused for (bounded: a seat may keep reconnecting).
        self.errors: list[Exception] = LastFew(256)
        self.halted: Exception | None = None
        #: The hand a verdict with a guilty seat is on (`cli.seat.goes_on` forfeits it).
        self.verdict_hand: int | None = None
        self.done: Deferred[GameSession] = Deferred()
        self.grace = grace
        #: Called (no arguments) after every change of the game state (a screen redraws).
        self.on_change: Callable[[], None] | None = None
        self.session: GameSession | None = None
        self.traffic = Traffic()
        #: Places for incoming connections that have not proved a seat (`net.mesh.admission`).
        self.admission = Admission(self.log)
        self.watchers = Watchers()  #: who watches the game through this peer
        self._watch: LoopingCall | None = None
        self._beat: LoopingCall | None = None
        self._gossip_loop: LoopingCall | None = None
        #: What links the seats at addresses TCP does not reach (an internet table's
        #: wormholes: `net.internet.mesh.Wormholes`), and those links once dialed.
        self.pair_links = pair_links
        self.mesh: PairLinks | None = None
        if session is not None:
            self.attach(session, raw_keys, journal, game)

    def attach(self, session: GameSession, raw_keys: Sequence[bytes],
               journal: Journal | None = None, game: str = "") -> None:
        """Seat this node in a game (it may already listen: a lobby needs its port first)."""
        self.session = session
        self.watchers.seat(session)
        # The table stamps key-release deadlines with this clock, which `_check_gone` reads.
        session.now = self.clock.seconds
        if self.deck_runner is None and IReactorThreads.providedBy(self.reactor):
            self._worker = DeckWorker(self.reactor)
            self.deck_runner = self._worker.run
        self.table = session.table
        self.seat = session.seat
        self.raw_keys = list(raw_keys)
        players = len(raw_keys)
        self.admission.seat_table(players)
        self.outbox = Outbox(s for s in range(players) if s != self.seat)  #: what left
        self.journal = journal  #: frames are kept there before they are sent
        self.game = game
        now = self.clock.seconds()
        #: Seat -> since when it is unreachable (every seat, until its link is up).
        self.down_since: dict[int, float] = {s: now for s in self.outbox.boxes}
        #: Seat -> since when its current link is up.
        self.up_since: dict[int, float] = {}
        self.reachability = Reachability(self.log)  #: lost links, in words
        self.public_keys = list(session.public_keys)
        #: Every signed frame this peer holds, and what each other seat lacks (`Relay`).
        self.relay = Relay(len(self.raw_keys), self.seat)
        self.gossip = Gossip(self.relay, self.traffic)  #: have reports and relays
        #: Signed frames that prove why this peer halted: every seat gets them.
        self.evidence: list[bytes] = []
        #: Complaints, ballots and the referee's verdicts (`net.referee.judging`).
        self.judging = Judging(session, self.grace, SETTLE, now, self.relay, self.outbox,
                               lambda: self.links, self.publish_and_halt, self._changed,
                               self.log, journal, game)
        #: What a frame does here (`net.mesh.intake`).
        self.intake = FrameIntake(self, session, self.relay, self.judging, self.clock,
                                  players, self.errors, self.log, self.deck_runner)
        if self.deck_runner is not None:
            session.runner = self.intake.run_deck_job
        #: (what the table stood at, since when) while this peer's player owes a decision:
        #: the other seats vote on it past the move deadline, so the screen warns first.
        self._own_wait: tuple[object, float] | None = None

    @property
    def refereeing(self) -> Refereeing:
        return self.judging.refereeing

    @property
    def ballots(self) -> dict[bytes, tuple[int, int]]:  # (`Judging.ballots`)
        return self.judging.ballots

    @property
    def complaints(self) -> dict[bytes, tuple[int, int]]:  # (`Judging.complaints`)
        return self.judging.complaints

    @property
    def signing_key(self) -> Ed25519PrivateKey:
        """This seat's session key: it signs the link proofs as it signs the deck frames."""
        assert self.session is not None
        return self.session.signing_key

    # --- connections ------------------------------------------------------------------------

    def factory(self, seat: int | None = None) -> Factory:
        """Links for incoming connections (``seat`` None) or for dialing ``seat``."""
        return Factory.forProtocol(lambda: PeerLink(self, seat))

    async def start(self) -> int:
        """Listen; return the port number."""
        # Twisted leaves `serverFromString` unannotated; it returns an IStreamServerEndpoint.
        endpoint: IStreamServerEndpoint = serverFromString(  # type: ignore[no-untyped-call]
            self.reactor, self.listen_description)
        self.port = await endpoint.listen(self.factory())
        address = self.port.getHost()
        assert isinstance(address, IPv4Address | IPv6Address)  # (`listen` is a TCP endpoint)
        return address.port

    def admit(self, link: PeerLink) -> bool:
        """Whether an incoming connection gets a place (`admission.Admission.admit`)."""
        return self.admission.admit(link, self.clock.seconds())

    def proved(self, link: PeerLink) -> None:
        self.admission.proved(link)

    def dial(self, addresses: dict[int, str]) -> None:
        """Connect to every higher seat (``addresses``: seat -> client endpoint string), with
        reconnection and backoff; lower seats dial us. From then on the addresses named
        here have the larger share of this peer's places for connections (`admit`)."""
        self.admission.allow(addresses.values())
        maker = self.pair_links
        paired = {s: a for s, a in addresses.items() if maker is not None and maker.takes(a)}
        if maker is not None and paired and self.mesh is None:  # (an internet table)
            self.mesh = maker.open(self, paired)
            self.mesh.start()
        for seat, address in sorted(addresses.items()):
            if seat > self.seat and seat not in paired:
                self.dialer.dial(seat, address, self.factory(seat))

    def dial_failed(self, seat: int, address: str, reason: str) -> None:
        self.reachability.failed(seat, address, reason)

    def seat_lost(self, seat: int) -> None:
        """The link of ``seat`` is down now, whatever its connection says yet (a pair link's
        wormhole gone: its subchannel may never hear of it)."""
        link = self.links.get(seat)
        if link is not None:
            self.link_down(seat, link)

    def unreachable(self, after: float = UNREACHABLE) -> dict[int, str]:
        """Seat -> why, for every seat without a link for ``after`` seconds."""
        return self.reachability.report(self.seat, self.down_since, self.clock.seconds(),
                                        {} if self.mesh is None else self.mesh.states(), after)

    def begin(self, frames: list[bytes] | None = None) -> None:
        """Start the game: send this peer's first frames (or ``frames``, those a resumed
        session owes), and watch for seats gone longer than the grace period."""
        assert self.session is not None
        if frames is not None:  # resumed: hold again what the journal gave back
            current = self.session.current.deck.config.hand
            now = self.clock.seconds()
            for frame in self.session.journal():
                hand = peek_hand(frame)
                if hand >= current - 1:
                    env = open_frame(frame, self.table, hand, self.public_keys, verify=False)
                    self.relay.hold(hand, env.seat, env.header.seq, env.content, frame, now,
                                    None)
            self.judging.resumed(now)
        self._send_all(self.session.start() if frames is None else frames)
        self._watch = self._watch or self._every(1.0, self._check_gone)
        # Until `stop`: the links stay alive after the game too, and a slower seat may
        # still lack frames.
        self._beat = self._beat or self._every(HEARTBEAT / 3, self._heartbeat)
        self._gossip_loop = self._gossip_loop or self._every(HAVE_EVERY, self._gossip)

    def _every(self, seconds: float, call: Callable[[], None]) -> LoopingCall:
        loop = LoopingCall(call)
        loop.clock = self.clock
        loop.start(seconds, now=False)
        return loop

    def _gossip(self) -> None:
        """Every `HAVE_EVERY` seconds: have reports and relays (`Gossip`), and the end of the
        wait for a suspected split."""
        assert self.session is not None
        now = self.clock.seconds()
        self.intake.waited_for_proof(now)
        # A halted peer still reports and relays what it holds: the peers still judging
        # may lack a frame only it has.
        current = self.session.current.deck.config.hand
        self.relay.forget_before(current - 1)
        self.judging.forget_before(current - 1)
        self.gossip.tell(self.links, current, now)

    def _heartbeat(self) -> None:
        """An empty frame on every up link that has been quiet for `HEARTBEAT` seconds, so
        the other end hears from us at least that often (see `LINK_SILENCE`)."""
        now = self.clock.seconds()
        for link in list(self.links.values()):
            if link.up and now - link.last_sent >= HEARTBEAT:
                link.sendString(b"")

    def send(self, frames: list[bytes]) -> None:
        """Broadcast frames this peer made outside `frame_from` (a person's move, chat)."""
        if self.halted is None:
            self._send_all(frames)

    def _check_gone(self) -> None:
        """Once a second: the referee's deadlines (complaints and votes on seats that hold
        the table up, connected or not), the log and screen on lost links, and the
        countdown of this peer's own decision."""
        if self.halted is not None or self.done.called:
            return
        now = self.clock.seconds()
        if self.reachability.look(self.unreachable()):
            self._changed()
        assert self.session is not None
        if self.intake.suspect is None:  # (a suspected split ends in a halt within seconds)
            self.judging.tick(now)
        if self.halted is not None:
            return
        voted_gone = self.judging.gone_voted()
        lost = [s for s, since in sorted(self.down_since.items())
                if s in voted_gone and now - since >= LOST_AFTER * self.grace
                and len(self.down_since) >= 2]
        if lost:
            # Votes cannot name a seat when another seat is gone too (it cannot vote): with
            # two seats or more without a link, one this peer voted gone, still without a
            # link after twice the grace period and no verdict, ends the hand at this peer
            # on its own clock (see the referee's known limits). A seat the table does not
            # wait on is not voted on, nor ended; one gone alone is named by the votes.
            self.verdict_hand = self.session.current.deck.config.hand
            self._halt(SeatGone(lost[0], now - self.down_since[lost[0]]))
            return
        left = self.decision_time_left()
        if left is not None and left < WARN_BEFORE:
            self._changed()  # the screen counts the seconds down

    def decision_time_left(self) -> float | None:
        """Seconds this peer's player has left to decide before the other seats complain
        (None while it owes no decision)."""
        assert self.session is not None
        table = self.session.current
        if table.waiting is None or self.halted is not None:
            self._own_wait = None
            return None
        marker = (self.session.hand_no, table.progress(), table.waiting)
        now = self.clock.seconds()
        if self._own_wait is None or self._own_wait[0] != marker:
            self._own_wait = (marker, now)
        return self.refereeing.timing.move - (now - self._own_wait[1])

    def progress_marker(self) -> object:
        """Changes whenever the table moves on (None before it starts): how an AI server's
        player tells a table that plays from one that stalls (`tractor.net.lobby.ai_pool`)."""
        table = None if self.session is None else self.refereeing.referee.table
        return None if table is None else table.marker

    def _halt(self, exc: Exception) -> None:
        self.log.error("halting: {why}", why=str(exc))
        self.halted = exc
        if self.session is not None:  # seated: its referee carries out nothing more
            self.judging.halted = True
        try:  # the table ends even when a bug in the journal goes up (after this)
            if self.journal is not None:  # a halted table never goes on: not to be resumed
                try:
                    self.journal.mark_finished(self.game, str(exc))
                except sqlite3.Error:  # the disk full, the file locked or read-only
                    self.log.failure("could not mark the game over in the journal")
        finally:
            if self._watch is not None and self._watch.running:
                self._watch.stop()
            self._changed()
            if not self.done.called:
                self.done.errback(exc)

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def stop(self) -> None:
        self.stopped = True  # a deck job that comes back later sends nothing
        for loop in (self._watch, self._beat, self._gossip_loop):
            if loop is not None and loop.running:
                loop.stop()
        self.dialer.stop()
        if self.mesh is not None:  # its services close their links, then the wormholes go
            self.mesh.stop()
        for link in list(self.connections):
            link.close()
        if self.port is not None:
            self.port.stopListening()
        if self._worker is not None:  # a process may play game after game
            self._worker.stop()

    def link_up(self, seat: int, link: PeerLink) -> None:
        """``link`` proved it speaks for ``seat``: it replaces any older link of that seat
        (a reconnect) and gets everything the seat may have missed."""
        old = self.links.get(seat)
        self.links[seat] = link
        if old is not None and old is not link:
            old.close()
        self.down_since.pop(seat, None)
        self.reachability.up(seat)
        self.up_since[seat] = self.clock.seconds()
        self.log.info("seat {seat} connected", seat=seat)
        # Resend everything this seat may have missed; the engine refuses duplicates.
        for frame in self.outbox.to(seat):
            link.sendString(frame)
        for frame in self.evidence:  # a halted table: the seat learns why
            link.sendString(frame)
        self.judging.link_up(seat, link, self.up_since[seat])
        self.gossip.link_up(seat)
        self.intake.new_link(seat)

    def link_down(self, seat: int, link: PeerLink) -> None:
        if self.links.get(seat) is link:
            del self.links[seat]
            self.relay.link_lost(seat)
            self.up_since.pop(seat, None)
            self.down_since[seat] = self.clock.seconds()
            self.judging.link_down(seat, self.down_since[seat])
            self.log.info("seat {seat} disconnected", seat=seat)
            self._changed()

    # --- frames -------------------------------------------------------------------------------

    def _keep(self, frames: list[bytes], public: bool = True) -> None:
        assert self.session is not None
        signed, proved = self.session.ledger.take_marks()  # (taken, journal or not)
        self.watchers.publish(frames, public)
        if self.journal is not None:
            self.journal.keep(self.game, frames, signed, proved, self.session.results,
                              self.session.over, hand_sides(self.session), self.session.winners)

    def _send_all(self, frames: list[bytes]) -> None:
        assert self.session is not None
        self._keep(frames, public=self.intake.suspect is None)  # (journaled before it leaves)
        hand = self.session.current.deck.config.hand
        if self.outbox.new_hand(hand):
            self.intake.new_hand()
        now = self.clock.seconds()
        for frame in frames:
            env = open_frame(frame, self.table, peek_hand(frame), self.public_keys,
                             verify=False)  # signed here a moment ago
            self.relay.hold(env.header.hand, self.seat, env.header.seq, env.content, frame,
                            now, None)
        if self.intake.suspect is None:
            self._broadcast(frames)
        # Else signs of a split: nothing of this peer's leaves (its keys least of all); the
        # wait ends in a halt either way (on the proof, or on the view), and the frames stay
        # in the journal.
        if self.halted is None:
            self.judging.moved(now)
        self._changed()
        if self.session.over or self._finished():
            if self._watch is not None and self._watch.running:
                self._watch.stop()
            if not self.done.called:
                self.done.callback(self.session)

    def _broadcast(self, frames: list[bytes]) -> None:
        for frame in frames:
            for seat, box in self.outbox.boxes.items():
                box.append(frame)
                link = self.links.get(seat)
                if link is not None:
                    link.sendString(frame)

    def _finished(self) -> bool:
        s = self.session
        assert s is not None
        return s.max_hands is not None and len(s.results) >= s.max_hands

    def frame_from(self, link: PeerLink, frame: bytes) -> None:
        """Hand one frame of an up link to the session (`intake.FrameIntake`)."""
        self.intake.frame_from(link, frame)

    def move_failed(self, exc: Exception, what: str = "this peer's move") -> None:
        """This peer's own move raised (`intake.FrameIntake.move_failed`)."""
        self.intake.move_failed(exc, what)

    def publish_and_halt(self, exc: Exception, hand: int, frames: Sequence[bytes]) -> None:
        """Halt on ``exc`` (a verdict on ``hand``), and give every seat the signed ``frames``
        that show why."""
        self.verdict_hand = hand
        if frames:
            self.evidence = self.watchers.evidence(frames)  # (its watchers' too)
            # Twice: a ballot taken past a bound only on an item others voted on (the
            # referee's `keeps`) finds those votes there the second time, whatever order.
            for link in list(self.links.values()):
                for frame in [*frames, *(f for f in frames if is_ballot(f))]:
                    link.sendString(frame)
        self._halt(exc)
