"""Moving frames between peers over TCP with Twisted: length-prefixed, size-bounded, with a
versioned hello, then only signed frames from the seat the connection belongs to.

`PeerNode` is one peer: it listens, dials the seats the fixed rule tells it to (a seat
dials every higher seat), reconnects with backoff, keeps an outbox per seat so nothing
is lost while a link is down, and hands every frame to a `GameSession`. All game logic
stays in the session; this module only moves bytes and time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgpack
from twisted.application.internet import ClientService, backoffPolicy
from twisted.internet.defer import Deferred
from twisted.internet.endpoints import clientFromString, serverFromString
from twisted.internet.interfaces import IListeningPort, IReactorTime
from twisted.internet.protocol import Factory
from twisted.logger import Logger
from twisted.protocols.basic import Int32StringReceiver
from twisted.protocols.policies import TimeoutMixin

from .deck.envelope import MAX_FRAME, FrameError, peek_hand
from .deck.errors import DeckError, Replay
from .journal import Journal
from .session import GameSession
from .table import TableError

WIRE_VERSION = "tractor-wire/1"
HELLO_TIMEOUT = 10.0
IDLE_TIMEOUT = 300.0
GRACE = 120.0  #: seconds a seat may stay disconnected before the hand ends without it


class SeatGone(Exception):
    """A seat stayed unreachable past the grace period: the hand ends without a result."""

    def __init__(self, seat: int, seconds: float) -> None:
        self.seat = seat
        super().__init__(f"seat {seat} left the table: no connection for {seconds:.0f} s, "
                         "so this hand ends without a result")


class HelloError(ValueError):
    """A hello that does not fit this table."""


def pack_hello(table: bytes, seat: int, public_key: bytes) -> bytes:
    return msgpack.packb([WIRE_VERSION, table, seat, public_key], use_bin_type=True)


def read_hello(data: bytes, table: bytes, keys: Sequence[bytes], me: int) -> int:
    """The seat a hello speaks for; raises `HelloError` if anything does not fit."""
    try:
        hello = msgpack.unpackb(data, raw=False, max_bin_len=64, max_str_len=64,
                                max_array_len=8, max_map_len=0, max_ext_len=0)
    except (msgpack.UnpackException, ValueError, TypeError) as exc:
        raise HelloError(f"unreadable hello: {exc}") from exc
    if not isinstance(hello, list) or len(hello) != 4:
        raise HelloError("a hello is [version, table, seat, key]")
    version, t, seat, key = hello
    if version != WIRE_VERSION:
        raise HelloError(f"unsupported protocol {version!r:.40}")
    if t != table:
        raise HelloError("hello for another table")
    if type(seat) is not int or not 0 <= seat < len(keys) or seat == me:
        raise HelloError(f"no such seat {seat!r:.10}")
    if key != keys[seat]:
        raise HelloError(f"seat {seat} presents another key than the table's")
    return seat


class PeerLink(Int32StringReceiver, TimeoutMixin):
    """One TCP connection to one other seat."""

    MAX_LENGTH = MAX_FRAME
    log = Logger()

    def __init__(self, node: PeerNode) -> None:
        self.node = node
        self.seat: int | None = None

    def callLater(self, delay: float, fn: Callable[..., Any], *a: Any, **kw: Any) -> Any:
        return self.node.clock.callLater(delay, fn, *a, **kw)

    def connectionMade(self) -> None:
        # Small frames, one after another: do not let Nagle hold them back.
        no_delay = getattr(self.transport, "setTcpNoDelay", None)
        if no_delay is not None:
            no_delay(True)
        if self.node.session is None:
            self.log.warn("dropping {who}: this peer is not seated yet", who=self._who())
            self.transport.loseConnection()
            return
        self.setTimeout(HELLO_TIMEOUT)
        self.sendString(pack_hello(self.node.table, self.node.seat, self.node.raw_keys[
            self.node.seat]))

    def timeoutConnection(self) -> None:
        self.log.warn("dropping {who}: no message in time", who=self._who())
        self.transport.loseConnection()

    def lengthLimitExceeded(self, length: int) -> None:
        self.log.warn("dropping {who}: frame of {n} bytes is over the limit", who=self._who(),
                      n=length)
        self.transport.loseConnection()

    def _who(self) -> str:
        peer = self.transport.getPeer() if self.transport else "?"
        return f"seat {self.seat} ({peer})" if self.seat is not None else f"{peer}"

    def stringReceived(self, data: bytes) -> None:
        self.resetTimeout()
        if self.seat is None:
            try:
                seat = read_hello(data, self.node.table, self.node.raw_keys, self.node.seat)
            except HelloError as exc:
                self.log.warn("dropping {who}: {why}", who=self._who(), why=str(exc))
                self.transport.loseConnection()
                return
            self.seat = seat
            self.setTimeout(IDLE_TIMEOUT)
            self.node.link_up(seat, self)
            return
        self.node.frame_from(self, data)

    def connectionLost(self, reason: Any = None) -> None:
        self.setTimeout(None)
        if self.seat is not None:
            self.node.link_down(self.seat, self)


class PeerNode:
    """One peer on the network: its session, its links to the other seats, its outboxes."""

    log = Logger()

    def __init__(self, reactor: Any, session: GameSession | None = None,
                 raw_keys: Sequence[bytes] = (), listen: str = "tcp:0:interface=127.0.0.1",
                 journal: Journal | None = None, game: str = "", grace: float = GRACE) -> None:
        self.reactor = reactor
        self.clock: IReactorTime = reactor
        self.listen_description = listen
        self.links: dict[int, PeerLink] = {}
        self.port: IListeningPort | None = None
        self.services: list[ClientService] = []
        self.errors: list[Exception] = []
        self.halted: Exception | None = None
        self.done: Deferred[GameSession] = Deferred()
        self.grace = grace
        #: Called (no arguments) after every change of the game state (a screen redraws).
        self.on_change: Callable[[], None] | None = None
        self.session: GameSession | None = None
        self._watch: Any = None
        if session is not None:
            self.attach(session, raw_keys, journal, game)

    def attach(self, session: GameSession, raw_keys: Sequence[bytes],
               journal: Journal | None = None, game: str = "") -> None:
        """Seat this node in a game (it may already listen: a lobby needs its port first)."""
        self.session = session
        self.table = session.table
        self.seat = session.seat
        self.raw_keys = list(raw_keys)
        self.outbox: dict[int, list[bytes]] = {s: [] for s in range(len(raw_keys))
                                                if s != self.seat}
        self._outbox_hand = 0
        self.journal = journal  #: frames are kept there before they are sent
        self.game = game
        now = self.clock.seconds()
        #: Seat -> since when it is unreachable (every seat, until its link is up).
        self.down_since: dict[int, float] = {s: now for s in self.outbox}

    # --- connections ------------------------------------------------------------------------

    def factory(self) -> Factory:
        return Factory.forProtocol(lambda: PeerLink(self))

    async def start(self) -> int:
        """Listen; return the port number."""
        endpoint = serverFromString(self.reactor, self.listen_description)
        self.port = await endpoint.listen(self.factory())
        return self.port.getHost().port

    def dial(self, addresses: dict[int, str]) -> None:
        """Connect to every higher seat (``addresses``: seat -> client endpoint string), with
        reconnection and backoff; lower seats dial us."""
        for seat, address in sorted(addresses.items()):
            if seat <= self.seat:
                continue
            endpoint = clientFromString(self.reactor, address)
            service = ClientService(endpoint, self.factory(), retryPolicy=backoffPolicy(
                initialDelay=0.2, maxDelay=10.0), clock=self.clock)
            service.startService()
            self.services.append(service)

    def begin(self, frames: list[bytes] | None = None) -> None:
        """Start the game: send this peer's first frames (or ``frames``, those a resumed
        session owes), and watch for seats gone longer than the grace period."""
        assert self.session is not None
        self._send_all(self.session.start() if frames is None else frames)
        if self._watch is None:
            from twisted.internet.task import LoopingCall

            self._watch = LoopingCall(self._check_gone)
            self._watch.clock = self.clock
            self._watch.start(1.0, now=False)

    def send(self, frames: list[bytes]) -> None:
        """Broadcast frames this peer made outside `frame_from` (a person's move, chat)."""
        if self.halted is None:
            self._send_all(frames)

    def _check_gone(self) -> None:
        if self.halted is not None or self.done.called:
            return
        now = self.clock.seconds()
        for seat, since in sorted(self.down_since.items()):
            if now - since >= self.grace:
                self._halt(SeatGone(seat, now - since))
                return

    def _halt(self, exc: Exception) -> None:
        self.log.error("halting: {why}", why=str(exc))
        self.halted = exc
        if self._watch is not None and self._watch.running:
            self._watch.stop()
        self._changed()
        if not self.done.called:
            self.done.errback(exc)

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def stop(self) -> None:
        if self._watch is not None and self._watch.running:
            self._watch.stop()
        for service in self.services:
            service.stopService()
        for link in list(self.links.values()):
            link.transport.loseConnection()
        if self.port is not None:
            self.port.stopListening()

    def link_up(self, seat: int, link: PeerLink) -> None:
        old = self.links.get(seat)
        if old is not None and old is not link:
            old.transport.loseConnection()
        self.links[seat] = link
        self.down_since.pop(seat, None)
        self.log.info("seat {seat} connected", seat=seat)
        # Resend everything this seat may have missed; the engine refuses duplicates.
        for frame in self.outbox[seat]:
            link.sendString(frame)

    def link_down(self, seat: int, link: PeerLink) -> None:
        if self.links.get(seat) is link:
            del self.links[seat]
            self.down_since[seat] = self.clock.seconds()
            self.log.info("seat {seat} disconnected", seat=seat)
            self._changed()

    # --- frames -------------------------------------------------------------------------------

    def _keep(self, frames: list[bytes]) -> None:
        if self.journal is None:
            return
        self.journal.append(self.game, frames)
        recorded = len(self.journal.results(self.game))
        for i, res in enumerate(self.session.results[recorded:], recorded):
            self.journal.record_result(self.game, i, res, finished=self.session.over)

    def _send_all(self, frames: list[bytes]) -> None:
        self._keep(frames)  # written before it leaves: a crash never loses a sent frame
        hand = self.session.current.deck.config.hand
        if hand != self._outbox_hand:
            # Keep the frames of this hand and the one before (a slower peer may still need
            # them after a reconnect); older ones are settled.
            for box in self.outbox.values():
                box[:] = [f for f in box if peek_hand(f) >= hand - 1]
            self._outbox_hand = hand
        for frame in frames:
            for seat, box in self.outbox.items():
                box.append(frame)
                link = self.links.get(seat)
                if link is not None:
                    link.sendString(frame)
        self._changed()
        if self.session.over or self._finished():
            if self._watch is not None and self._watch.running:
                self._watch.stop()
            if not self.done.called:
                self.done.callback(self.session)

    def _finished(self) -> bool:
        s = self.session
        return s.max_hands is not None and len(s.results) >= s.max_hands

    def frame_from(self, link: PeerLink, frame: bytes) -> None:
        if self.halted is not None:
            return
        try:
            claimed = _sender(frame)
            if claimed != link.seat:
                raise FrameError(f"relayed a frame of seat {claimed}", link.seat)
            out = self.session.receive(frame)
            self._keep([frame])
            self._send_all(out)
        except (FrameError, DeckError, TableError) as exc:
            outgoing = getattr(exc, "outgoing", [])
            if outgoing:
                self._send_all(outgoing)
            if isinstance(exc, Replay):
                return  # a frame sent again after a reconnect: harmless
            self.errors.append(exc)
            if isinstance(exc, FrameError):
                # Malformed, forged or misrouted: nothing changed; drop the link.
                self.log.warn("dropping seat {seat}: {why}", seat=link.seat, why=str(exc))
                link.transport.loseConnection()
                return
            # A validly signed frame that breaks the protocol: the table halts on evidence.
            self._halt(exc)


def _sender(frame: bytes) -> int:
    peek_hand(frame)  # bounded read; raises FrameError on a malformed frame
    seat = msgpack.unpackb(frame, raw=False)[0][3]
    if type(seat) is not int:
        raise FrameError("bad seat")
    return seat
