"""One connection to one other seat (`PeerLink`): length-prefixed, size-bounded frames, the
handshake of `net.mesh.handshake` first (a versioned hello and a signed proof of the seat's
key), then only signed frames from the seat the connection belongs to, handed to the node.

Until the other side's proof is checked, a link carries no game frame either way and does
not count as connected. Over TCP or over a Dilation subchannel (`net.mesh.pair_links`),
the same.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Protocol

from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.logger import Logger
from twisted.protocols.basic import Int32StringReceiver
from twisted.protocols.policies import TimeoutMixin
from twisted.python.failure import Failure

from tractor.net.deck.envelope import MAX_FRAME
from tractor.net.mesh.admission import Admission
from tractor.net.mesh.closed_transport import closed_transport_errors
from tractor.net.mesh.handshake import (
    NONCE_SIZE,
    HelloError,
    SeatIdentity,
    check_proof,
    open_hello,
    pack_hello,
    pack_proof,
)
from tractor.net.mesh.linger import Linger
from tractor.net.mesh.traffic import Traffic
from tractor.net.mesh.watch_link import WatcherConnection, watch_over
from tractor.net.mesh.watchers import Watchers, is_watch_hello
from tractor.net.table.session import GameSession

HELLO_TIMEOUT = 10.0  #: seconds for the whole handshake (hello and proof)
#: Seconds of silence after which an up link is taken for dead and dropped (its seat is
#: then dialed again): the node sends a heartbeat on a quiet link every `wire.HEARTBEAT`.
LINK_SILENCE = 12.0


class LinkNode(SeatIdentity, Protocol):
    """What a link uses of its node (`wire.PeerNode`), besides who it is."""

    @property
    def clock(self) -> IReactorTime: ...

    @property
    def session(self) -> GameSession | None:
        """None until the node is seated at a table."""
        ...

    @property
    def traffic(self) -> Traffic: ...

    @property
    def admission(self) -> Admission: ...

    @property
    def watchers(self) -> Watchers: ...

    @property
    def connections(self) -> set[PeerLink]:
        """Every open connection, handshakes included."""
        ...

    def admit(self, link: PeerLink) -> bool:
        """Whether an incoming connection gets a place."""
        ...

    def proved(self, link: PeerLink) -> None: ...

    def link_up(self, seat: int, link: PeerLink) -> None: ...

    def link_down(self, seat: int, link: PeerLink) -> None: ...

    def frame_from(self, link: PeerLink, frame: bytes) -> None:
        """A frame of an up link (not a heartbeat)."""
        ...


class PeerLink(Int32StringReceiver, TimeoutMixin):
    """One connection to one other seat. Three states: waiting for the hello (``seat``
    is None), waiting for the proof (``seat`` is the claimed seat, ``up`` is False), up."""

    MAX_LENGTH = MAX_FRAME
    log = Logger()

    def __init__(self, node: LinkNode, expected: int | None = None) -> None:
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
        #: Aborts the connection if its close has not finished in time (`linger.LINGER`):
        #: an end that stops reading would hold it open for ever.
        self.linger = Linger(node.clock)
        #: Set when a watcher, not a seat, came on this connection (`net.mesh.watchers`).
        self.watcher: WatcherConnection | None = None

    def callLater(self, period: float, func: Callable[[], object]) -> IDelayedCall:
        """(`TimeoutMixin`'s timer: on the node's clock.)"""
        return self.node.clock.callLater(period, func)

    def sendString(self, string: bytes) -> None:
        if self.closing:
            return  # closed by this peer: nothing more goes out on it
        self.last_sent = self.node.clock.seconds()
        if string and self.up:
            self.node.traffic.count(string)
        try:
            super().sendString(string)  # type: ignore[no-untyped-call]  # (Twisted: unannotated)
        except closed_transport_errors() as exc:
            # A TCP transport takes every write; a Dilation subchannel that closed refuses
            # it (and would end a heartbeat or relay loop that wrote to it). The link is
            # gone: its frames go again on the next one.
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
        self.setTimeout(self.deadline)  # type: ignore[no-untyped-call]  # (Twisted: unannotated)
        node = self.node
        self.sendString(pack_hello(node.table, node.seat, node.raw_keys[node.seat], self.nonce))

    def close(self) -> None:
        """Close the connection, once (a Dilation subchannel refuses a second close, and
        has no ``disconnecting`` flag to tell)."""
        if not self.closing:
            if self.watcher is not None:  # what waits for it goes before the close
                self.node.watchers.last_frames(self.watcher)
            self.closing = True
            try:
                assert self.transport is not None  # (set before anything can close it)
                self.transport.loseConnection()
            except closed_transport_errors() as exc:  # a subchannel closed first says so
                self.log.debug("closing {who}: {why}", who=self._who(), why=exc)
            else:
                self.linger.closed(self.transport)

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
            self.resetTimeout()  # type: ignore[no-untyped-call]  # (Twisted: unannotated)
            if data:  # an empty frame is a heartbeat: the link is alive, nothing more
                self.node.frame_from(self, data)
        elif self.closing:
            return  # refused already: read nothing more from it
        elif self.watcher is not None:
            if not self.node.watchers.heard(self.watcher, data, self.node.clock.seconds()):
                self._drop("a watcher sends nothing after its hello (and its passphrase)")
                self.node.watchers.left(self.watcher)
        elif self.seat is None and self.expected is None and is_watch_hello(data):
            self.setTimeout(None)  # type: ignore[no-untyped-call]  # (Twisted: unannotated)
            self.node.admission.release(self)  # (the watchers bound themselves)
            self.watcher = watch_over(self, self.node.watchers, data, self.node.clock)
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
        self.setTimeout(LINK_SILENCE)  # type: ignore[no-untyped-call]  # (Twisted: unannotated)
        node.proved(self)
        node.link_up(self.seat, self)

    def connectionLost(self, reason: Failure | None = None) -> None:
        self.setTimeout(None)  # type: ignore[no-untyped-call]  # (Twisted: unannotated)
        self.linger.lost()
        self.node.connections.discard(self)
        self.node.admission.release(self)
        if self.watcher is not None:
            self.node.watchers.left(self.watcher)
        if self.up and self.seat is not None:
            self.node.link_down(self.seat, self)
