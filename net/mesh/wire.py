"""Moving frames between peers over TCP with Twisted: length-prefixed, size-bounded, with a
versioned hello and a signed proof of the seat's key, then only signed frames from the seat
the connection belongs to.

`PeerNode` is one peer: it listens, dials the seats the fixed rule tells it to (a seat
dials every higher seat), reconnects with backoff, keeps an outbox per seat so nothing
is lost while a link is down, and hands every frame to a `GameSession`. All game logic
stays in the session; this module only moves bytes and time.

The handshake, on each side of a connection: send a hello ``[version, table, seat, public
key, nonce]`` with a fresh random nonce; read the other side's hello; send a proof, an
Ed25519 signature by this seat's session key over both nonces, the table and both seats
(`proof_message`); read and check the other side's proof. Public keys are known to the
whole table (and visible on the LAN), so a hello alone proves nothing: only the proof
shows that the other side holds the seat's private key, and since it signs this
connection's nonce it cannot be replayed on another connection. Until it is checked, the
link carries no game frame either way and does not count as connected.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from twisted.application.internet import ClientService
from twisted.internet.defer import Deferred
from twisted.internet.endpoints import clientFromString, serverFromString
from twisted.internet.interfaces import (
    IListeningPort,
    IReactorThreads,
    IReactorTime,
    IStreamClientEndpoint,
)
from twisted.internet.protocol import Factory
from twisted.internet.task import LoopingCall
from twisted.logger import Logger
from twisted.protocols.basic import Int32StringReceiver
from twisted.protocols.policies import TimeoutMixin
from zope.interface import implementer

from tractor.net.codec import CodecError, Limits, decode
from tractor.net.deck.engine import Runner
from tractor.net.deck.envelope import MAX_FRAME, open_frame, peek_hand
from tractor.net.deck.errors import DeckError
from tractor.net.deck.worker import DeckWorker
from tractor.net.internet.rendezvous import is_internet_address
from tractor.net.journal.store import Journal
from tractor.net.mesh.admission import STRANGER_HELLO as STRANGER_HELLO
from tractor.net.mesh.admission import Admission
from tractor.net.mesh.gate import LastFew
from tractor.net.mesh.intake import SUSPECT as SUSPECT  # (tests and the README name them here)
from tractor.net.mesh.intake import FrameIntake
from tractor.net.mesh.intake import ProcessingFailure as ProcessingFailure
from tractor.net.mesh.reachability import UNREACHABLE, Reachability
from tractor.net.mesh.relay import Relay, is_have, pack_have
from tractor.net.referee.judging import Judging
from tractor.net.referee.refereeing import Refereeing, SeatGone
from tractor.net.table.session import GameSession

WIRE_VERSION = "tractor-wire/5"  #: 5: ballots (4: frames relayed, have reports; 3: heartbeats)
HELLO_TIMEOUT = 10.0  #: seconds for the whole handshake (hello and proof)
#: Seconds between heartbeats on an up link that has sent nothing else meanwhile, and
#: seconds of silence after which a link is taken for dead and dropped (its seat is then
#: dialed again). A connection whose other end vanished (a router restart, a Wi-Fi
#: change) gives no sign of it until something is sent; without heartbeats the seat that
#: should dial found out only after minutes, while the table waited on it.
HEARTBEAT = 3.0
LINK_SILENCE = 12.0
GRACE = 120.0  #: seconds a seat may stay disconnected before the others vote it gone
#: Seconds a seat that (re)connected has to resend what it owes before its overdue keys
#: count: its frames follow the handshake, and deadlines may predate the link (a resume).
SETTLE = 5.0
#: Grace periods after which a seat still without a link ends the hand at this peer even
#: without every other seat's vote (when more than one seat is gone, none can be named).
LOST_AFTER = 2
NONCE_SIZE = 32
#: Seconds between have reports (each link gets one when this peer's holdings changed):
#: well inside `relay.RELAY_AFTER`, so a seat that got a frame straight from its author
#: says so before anyone relays it.
HAVE_EVERY = 0.25
WARN_BEFORE = 60.0  #: seconds before its decision deadline a person is warned
#: Prefix of every signed link proof. The session key also signs deck frames, whose signed
#: bytes always begin with a msgpack array; this prefix begins with a letter, so a proof can
#: never pass for a deck message, nor a deck message for a proof.
PROOF_CONTEXT = b"tractor-wire/2 link proof\x00"
_PROOF_TAG = "proof"
#: A hello is five scalars, a proof two: nothing nested, nothing long.
HELLO_LIMITS = Limits(max_bytes=256, max_depth=1, max_elements=6, max_str=64, max_bin=64,
                      max_array=8, max_map=0, max_memory=4096)
PROOF_LIMITS = Limits(max_bytes=128, max_depth=1, max_elements=3, max_str=16, max_bin=64,
                      max_array=2, max_map=0, max_memory=1024)


class HelloError(ValueError):
    """A hello or link proof that does not fit this table."""


class Hello(NamedTuple):
    """What a checked hello says: the seat it claims (not yet proven) and its nonce."""

    seat: int
    nonce: bytes


def pack_hello(table: bytes, seat: int, public_key: bytes, nonce: bytes | None = None) -> bytes:
    """This seat's hello; ``nonce`` is fresh for every connection (random if not given)."""
    if nonce is None:
        nonce = os.urandom(NONCE_SIZE)
    return msgpack.packb([WIRE_VERSION, table, seat, public_key, nonce], use_bin_type=True)


def open_hello(data: bytes, table: bytes, keys: Sequence[bytes], me: int) -> Hello:
    """The seat a hello claims and its nonce; raises `HelloError` if anything does not fit.
    The claim is only checked against the table's public keys: `check_proof` proves it."""
    try:
        hello = decode(data, HELLO_LIMITS)
    except CodecError as exc:
        raise HelloError(f"unreadable hello: {exc.reason}") from exc
    if not isinstance(hello, list) or not hello:
        raise HelloError("a hello is [version, table, seat, key, nonce]")
    # The version first: a peer on another release gets a reason it can act on.
    if hello[0] != WIRE_VERSION:
        raise HelloError(f"unsupported protocol {hello[0]!r:.40}: this peer speaks "
                         f"{WIRE_VERSION} (every seat needs a compatible tractor)")
    if len(hello) != 5:
        raise HelloError("a hello is [version, table, seat, key, nonce]")
    _, t, seat, key, nonce = hello
    if t != table:
        raise HelloError("hello for another table")
    if type(seat) is not int or not 0 <= seat < len(keys) or seat == me:
        raise HelloError(f"no such seat {seat!r:.10}")
    if key != keys[seat]:
        raise HelloError(f"seat {seat} presents another key than the table's")
    if type(nonce) is not bytes or len(nonce) != NONCE_SIZE:
        raise HelloError(f"seat {seat} sent a hello without a {NONCE_SIZE}-byte nonce")
    return Hello(seat, nonce)


def read_hello(data: bytes, table: bytes, keys: Sequence[bytes], me: int) -> int:
    """The seat a hello claims (see `open_hello`); raises `HelloError`."""
    return open_hello(data, table, keys, me).seat


def proof_message(table: bytes, signer: int, verifier: int, verifier_nonce: bytes,
                  signer_nonce: bytes) -> bytes:
    """The bytes seat ``signer`` signs to prove its key to seat ``verifier`` on one
    connection: the verifier's nonce makes it useless on any other connection, the seats
    stop it being reflected back or shown to a third seat."""
    return PROOF_CONTEXT + msgpack.packb([WIRE_VERSION, table, signer, verifier,
                                          verifier_nonce, signer_nonce], use_bin_type=True)


def pack_proof(key: Ed25519PrivateKey, table: bytes, signer: int, verifier: int,
               verifier_nonce: bytes, signer_nonce: bytes) -> bytes:
    """The proof frame ``signer`` sends after reading ``verifier``'s hello."""
    signature = key.sign(proof_message(table, signer, verifier, verifier_nonce, signer_nonce))
    return msgpack.packb([_PROOF_TAG, signature], use_bin_type=True)


def check_proof(data: bytes, public_key: bytes, table: bytes, signer: int, verifier: int,
                verifier_nonce: bytes, signer_nonce: bytes) -> None:
    """Raise `HelloError` unless ``data`` is ``signer``'s proof for this connection."""
    try:
        proof = decode(data, PROOF_LIMITS)
    except CodecError:
        proof = None
    if (not isinstance(proof, list) or len(proof) != 2 or proof[0] != _PROOF_TAG
            or type(proof[1]) is not bytes):
        raise HelloError("sent another frame before proving it holds the seat's key")
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(
            proof[1], proof_message(table, signer, verifier, verifier_nonce, signer_nonce))
    except (InvalidSignature, ValueError) as exc:
        raise HelloError("its proof does not verify with the seat's key (an impostor, or a "
                         "proof replayed from another connection)") from exc


def redial_delay(attempt: int) -> float:
    """Seconds before dialing a seat again after ``attempt`` failures: 0.2 s growing by half
    each time up to 10 s, and up to a fifth more at random (so two seats do not retry in
    step). Twisted's `backoffPolicy` adds up to a whole second to every retry: a resumed
    table's links to AI seats that start a moment after the person's waited up to a second
    more each for nothing."""
    delay = min(0.2 * 1.5 ** min(attempt, 20), 10.0)
    return delay * (1.0 + random.random() / 5)


class PeerLink(Int32StringReceiver, TimeoutMixin):
    """One TCP connection to one other seat. Three states: waiting for the hello (``seat``
    is None), waiting for the proof (``seat`` is the claimed seat, ``up`` is False), up."""

    MAX_LENGTH = MAX_FRAME
    log = Logger()

    def __init__(self, node: PeerNode, expected: int | None = None) -> None:
        self.node = node
        #: The seat this link must speak for: the one dialed (an outgoing link), else any
        #: lower seat (lower seats dial us; a higher one claiming to has no business here).
        self.expected = expected
        self.seat: int | None = None
        self.up = False
        self.nonce = os.urandom(NONCE_SIZE)
        self.peer_nonce = b""
        self.last_sent = 0.0  #: when this link last sent a frame (heartbeats fill gaps)
        self.deadline = HELLO_TIMEOUT  #: seconds to prove a seat (less for a stranger)
        self.closing = False  #: `close` was called: nothing more is read from it

    def callLater(self, delay: float, fn: Callable[..., Any], *a: Any, **kw: Any) -> Any:
        return self.node.clock.callLater(delay, fn, *a, **kw)

    def sendString(self, string: bytes) -> None:
        if self.closing:
            return  # closed by this peer: nothing more goes out on it
        self.last_sent = self.node.clock.seconds()
        if string and self.up:
            self.node.traffic.count(string)
        try:
            super().sendString(string)
        except Exception as exc:
            # A TCP transport takes every write; a Dilation subchannel the other end closed
            # refuses it (and would end a heartbeat or relay loop that wrote to it). The
            # link is gone: its frames go again on the next one.
            self.log.info("link to {who} closed under a write: {why}", who=self._who(),
                          why=exc)
            self.close()

    def connectionMade(self) -> None:
        # Small frames, one after another: do not let Nagle hold them back.
        no_delay = getattr(self.transport, "setTcpNoDelay", None)
        if no_delay is not None:
            no_delay(True)
        if self.node.session is None:
            self.log.warn("dropping {who}: this peer is not seated yet", who=self._who())
            self.close()
            return
        if self.expected is None and not self.node.admit(self):
            self.close()
            return
        self.node.connections.add(self)
        # One deadline for the whole handshake: not reset by the hello, so a peer cannot
        # hold a half-open link longer by trickling its messages.
        self.setTimeout(self.deadline)
        node = self.node
        self.sendString(pack_hello(node.table, node.seat, node.raw_keys[node.seat], self.nonce))

    def close(self) -> None:
        """Close the connection, once (a Dilation subchannel refuses a second close, and
        has no ``disconnecting`` flag to tell)."""
        if not self.closing:
            self.closing = True
            try:
                self.transport.loseConnection()
            except Exception as exc:  # a subchannel its other end closed first says so
                self.log.debug("closing {who}: {why}", who=self._who(), why=exc)

    def timeoutConnection(self) -> None:
        self.log.warn("dropping {who}: no message in time", who=self._who())
        self.close()

    def lengthLimitExceeded(self, length: int) -> None:
        self.log.warn("dropping {who}: frame of {n} bytes is over the limit", who=self._who(),
                      n=length)
        self.close()

    def _who(self) -> str:
        peer = self.transport.getPeer() if self.transport else "?"
        return f"seat {self.seat} ({peer})" if self.seat is not None else f"{peer}"

    def _drop(self, why: str) -> None:
        self.log.warn("dropping {who}: {why}", who=self._who(), why=why)
        self.close()

    def stringReceived(self, data: bytes) -> None:
        if self.up:
            self.resetTimeout()
            if data:  # an empty frame is a heartbeat: the link is alive, nothing more
                self.node.frame_from(self, data)
        elif self.closing:
            return  # refused already: read nothing more from it
        elif self.seat is None:
            self._hello_received(data)
        else:
            self._proof_received(data)

    def _hello_received(self, data: bytes) -> None:
        node = self.node
        try:
            hello = open_hello(data, node.table, node.raw_keys, node.seat)
        except HelloError as exc:
            self._drop(str(exc))
            return
        if (self.expected is not None and hello.seat != self.expected) or (
                self.expected is None and hello.seat > node.seat):
            self._drop(f"seat {hello.seat} may not speak on this connection (lower seats dial "
                       "higher ones)")
            return
        self.seat, self.peer_nonce = hello
        self.sendString(pack_proof(node.signing_key, node.table, node.seat, hello.seat,
                                   hello.nonce, self.nonce))

    def _proof_received(self, data: bytes) -> None:
        node = self.node
        assert self.seat is not None
        try:
            check_proof(data, node.raw_keys[self.seat], node.table, self.seat, node.seat,
                        self.nonce, self.peer_nonce)
        except HelloError as exc:
            self._drop(str(exc))
            return
        self.up = True
        self.setTimeout(LINK_SILENCE)
        node.proved(self)
        node.link_up(self.seat, self)

    def connectionLost(self, reason: Any = None) -> None:
        self.setTimeout(None)
        self.node.connections.discard(self)
        self.node.admission.release(self)
        if self.up and self.seat is not None:
            self.node.link_down(self.seat, self)


class Traffic:
    """What this peer's links carried (heartbeats and handshakes aside), for the figures."""

    def __init__(self) -> None:
        self.frames = self.bytes = 0  #: every frame sent on a link, relays and haves included
        self.relayed = self.relayed_bytes = 0  #: other seats' frames relayed
        self.haves = self.have_bytes = 0  #: have reports

    def count(self, frame: bytes) -> None:
        self.frames += 1
        self.bytes += len(frame)
        if is_have(frame):
            self.haves += 1
            self.have_bytes += len(frame)

    def as_dict(self) -> dict[str, int]:
        return dict(vars(self))


@implementer(IStreamClientEndpoint)
class _Remembering:
    """A client endpoint that remembers why its last attempt failed, so a seat that
    cannot be reached is named with its address and the reason within seconds."""

    def __init__(self, inner: IStreamClientEndpoint, node: PeerNode, seat: int,
                 address: str) -> None:
        self.inner, self.node, self.seat, self.address = inner, node, seat, address

    def connect(self, factory: Any) -> Deferred[Any]:
        d = self.inner.connect(factory)

        def failed(failure: Any) -> Any:
            self.node.dial_failed(self.seat, self.address, failure.getErrorMessage())
            return failure
        return d.addErrback(failed)


class PeerNode:
    """One peer on the network: its session, its links to the other seats, its outboxes."""

    log = Logger()

    def __init__(self, reactor: Any, session: GameSession | None = None,
                 raw_keys: Sequence[bytes] = (), listen: str = "tcp:0:interface=127.0.0.1",
                 journal: Journal | None = None, game: str = "", grace: float = GRACE,
                 deck_runner: Runner | None = None) -> None:
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
        self.services: list[ClientService] = []
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
        self._watch: Any = None
        self._beat: Any = None
        self._gossip_loop: Any = None
        #: An internet table's wormholes (`wormhole_mesh.InternetMesh`), once dialed.
        self.mesh: Any = None
        self.intake = FrameIntake(self)  #: what a frame does here (`net.mesh.intake`)
        #: Internet tables only: never offer a direct connection (tests and benchmarks
        #: that measure the relay's path on one machine).
        self.relay_only = False
        if session is not None:
            self.attach(session, raw_keys, journal, game)

    def attach(self, session: GameSession, raw_keys: Sequence[bytes],
               journal: Journal | None = None, game: str = "") -> None:
        """Seat this node in a game (it may already listen: a lobby needs its port first)."""
        self.session = session
        # The table stamps key-release deadlines with this clock, which `_check_gone` reads.
        session.now = self.clock.seconds
        if self.deck_runner is None and IReactorThreads.providedBy(self.reactor):
            self._worker = DeckWorker(self.reactor)
            self.deck_runner = self._worker.run
        if self.deck_runner is not None:
            session.runner = self.intake._run_deck_job
        self.table = session.table
        self.seat = session.seat
        self.raw_keys = list(raw_keys)
        players = len(raw_keys)
        self.admission.seat_table(players)
        self.outbox: dict[int, list[bytes]] = {s: [] for s in range(len(raw_keys))
                                                if s != self.seat}
        self._outbox_hand = 0
        self.journal = journal  #: frames are kept there before they are sent
        self.game = game
        now = self.clock.seconds()
        #: Seat -> since when it is unreachable (every seat, until its link is up).
        self.down_since: dict[int, float] = {s: now for s in self.outbox}
        #: Seat -> since when its current link is up.
        self.up_since: dict[int, float] = {}
        self.reachability = Reachability(self.log)  #: lost links, in words
        self.public_keys = list(session.public_keys)
        #: Every signed frame this peer holds, and what each other seat lacks (`Relay`).
        self.relay = Relay(len(self.raw_keys), self.seat)
        self._have_sent: dict[int, bytes] = {}  #: seat -> the last have report it got
        self._copies: dict[int, int] = {}  #: seat -> copies its link brought this hand
        #: Signed frames that prove why this peer halted: every seat gets them.
        self.evidence: list[bytes] = []
        #: A sign of a split transcript, and until when this peer waits for the proof.
        self._suspect: tuple[DeckError, float] | None = None
        #: Complaints, ballots and the referee's verdicts (`net.referee.judging`).
        self.judging = Judging(session, self.grace, SETTLE, now, self.relay,
                               lambda: self.links, self._publish_and_halt, self._changed,
                               self.log, journal, game)
        self.judging.outbox = self.outbox
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
        endpoint = serverFromString(self.reactor, self.listen_description)
        self.port = await endpoint.listen(self.factory())
        return self.port.getHost().port

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
        internet = {s: a for s, a in addresses.items() if is_internet_address(a)}
        if internet and self.mesh is None:  # an internet table: a wormhole per pair
            from tractor.net.internet.mesh import InternetMesh

            self.mesh = InternetMesh(self, internet, self.relay_only)
            self.mesh.start()
        for seat, address in sorted(addresses.items()):
            if seat <= self.seat or seat in internet:
                continue
            endpoint = _Remembering(clientFromString(self.reactor, address), self, seat,
                                    address)
            service = ClientService(endpoint, self.factory(seat), retryPolicy=redial_delay,
                                    clock=self.clock)
            service.startService()
            self.services.append(service)

    def dial_failed(self, seat: int, address: str, reason: str) -> None:
        self.reachability.failed(seat, address, reason)

    def unreachable(self, after: float = UNREACHABLE) -> dict[int, str]:
        """Seat -> why, for every seat without a link for ``after`` seconds."""
        return self.reachability.report(self.seat, self.down_since, self.clock.seconds(),
                                        self.mesh, after)

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
        """Every `HAVE_EVERY` seconds: a have report to each seat whose last one is out of
        date, the frames a seat still lacks past `relay.RELAY_AFTER`, and the end of the
        wait for a suspected split."""
        assert self.session is not None
        now = self.clock.seconds()
        if self._suspect is not None and self.halted is None and now >= self._suspect[1]:
            # No proof came: the signed view itself is the evidence.
            self.intake._halt_on_evidence(self._suspect[0], self.session.current.deck.config.hand)
        # A halted peer still reports and relays what it holds: the peers still judging
        # may lack a frame only it has.
        current = self.session.current.deck.config.hand
        self.relay.forget_before(current - 1)
        self.judging.forget_before(current - 1)
        report = pack_have(self.relay.report([h for h in (current - 1, current, current + 1)
                                              if h >= 0]))
        for seat, link in list(self.links.items()):
            if link.up and self._have_sent.get(seat) != report:
                self._have_sent[seat] = report
                link.sendString(report)
        for seat, frame in self.relay.due(now, [s for s, lk in self.links.items() if lk.up]):
            self.traffic.relayed += 1
            self.traffic.relayed_bytes += len(frame)
            self.links[seat].sendString(frame)

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
        if self._suspect is None:  # (a suspected split ends in a halt within seconds)
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
        if self.journal is not None:  # a halted table never goes on: not to be resumed
            try:
                self.journal.mark_finished(self.game)
            except Exception:
                self.log.failure("could not mark the game over in the journal")
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
        for service in self.services:
            service.stopService()
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
        for frame in self.outbox[seat]:
            link.sendString(frame)
        for frame in self.evidence:  # a halted table: the seat learns why
            link.sendString(frame)
        self.judging.link_up(seat, link, self.up_since[seat])
        self._have_sent.pop(seat, None)  # it hears what this peer holds at the next report
        self._copies[seat] = 0

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

    def _keep(self, frames: list[bytes]) -> None:
        signed, proved = self.session.ledger.take_marks()  # (taken, journal or not)
        if self.journal is not None:
            self.journal.keep(self.game, frames, signed, proved, self.session.results,
                              self.session.over)

    def _send_all(self, frames: list[bytes]) -> None:
        self._keep(frames)  # written before it leaves: a crash never loses a sent frame
        hand = self.session.current.deck.config.hand
        if hand != self._outbox_hand:
            # Keep the frames of this hand and the one before (a slower peer may still need
            # them after a reconnect); older ones are settled.
            for box in self.outbox.values():
                box[:] = [f for f in box if peek_hand(f) >= hand - 1]
            self._outbox_hand = hand
            self._copies.clear()
        now = self.clock.seconds()
        for frame in frames:
            env = open_frame(frame, self.table, peek_hand(frame), self.public_keys,
                             verify=False)  # signed here a moment ago
            self.relay.hold(env.header.hand, self.seat, env.header.seq, env.content, frame,
                            now, None)
        if self._suspect is None:
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
            for seat, box in self.outbox.items():
                box.append(frame)
                link = self.links.get(seat)
                if link is not None:
                    link.sendString(frame)

    def _finished(self) -> bool:
        s = self.session
        return s.max_hands is not None and len(s.results) >= s.max_hands

    def frame_from(self, link: PeerLink, frame: bytes) -> None:
        """Hand one frame of an up link to the session (`intake.FrameIntake`)."""
        self.intake.frame_from(link, frame)

    def move_failed(self, exc: Exception, what: str = "this peer's move") -> None:
        """This peer's own move raised (`intake.FrameIntake.move_failed`)."""
        self.intake.move_failed(exc, what)

    def _publish_and_halt(self, exc: Exception, hand: int, frames: Sequence[bytes]) -> None:
        self.intake.publish_and_halt(exc, hand, frames)
