"""What every lobby connection shares on the network: length-prefixed frames with a bound,
idle timeouts on the owner's clock, a name for the peer in every log line and error, and
refusals logged without letting a flood fill the disk.

`FramedLink` is the base of the host's, the guest's and the AI server's links
(`host_protocol`, `guest_protocol`, `ai_server`); `dial` opens a client connection.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet.defer import Deferred
from twisted.internet.endpoints import clientFromString, connectProtocol
from twisted.internet.error import ConnectError, ConnectingCancelledError
from twisted.internet.interfaces import IAddress, IDelayedCall, IReactorTime, IStreamClientEndpoint
from twisted.internet.protocol import Protocol
from twisted.logger import Logger
from twisted.protocols.basic import Int32StringReceiver
from twisted.protocols.policies import TimeoutMixin

from tractor.net.lobby.errors import BadLobbyMessage, LobbyError
from tractor.net.lobby.messages import MAX_LOBBY_FRAME
from tractor.net.mesh.gate import Recent

HANDSHAKE_TIMEOUT = 10.0  #: seconds to finish the PAKE (or the AI fill exchange)
SILENT_GRACE = 2.0  #: seconds a new connection cannot be pushed out for a newer one
MAX_ERRORS = 64  #: errors of dropped peers kept for a look (the log has them all, in short)
LOGGED_PER_MINUTE = 5  #: refusals logged per address and minute (a flood fills no disk)
#: What `dial` fails with when the other side cannot be reached: refused, timed out, no
#: route (`ConnectError` and its kinds), a name that does not resolve (`DNSLookupError`, an
#: `OSError`), the attempt cancelled. Anything else is a bug.
DIAL_FAILURES = (ConnectError, ConnectingCancelledError, OSError)


def ip_of(address: IAddress | None) -> str:
    """The IP of a socket address ("?" for an address without one)."""
    host = getattr(address, "host", None)
    return host if type(host) is str else "?"


def name_of(address: IAddress) -> str:
    """A socket address as logs and errors name a peer: ``192.0.2.5:40123``,
    ``[2001:db8::1]:40123``."""
    host, port = getattr(address, "host", None), getattr(address, "port", None)
    if type(host) is str and type(port) is int:
        return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return str(address)


def bare(exc: LobbyError) -> LobbyError:
    """The error without what would keep a dead connection alive (its traceback, and the
    errors it was raised from)."""
    exc.__cause__ = exc.__context__ = None
    return exc.with_traceback(None)


def dial(reactor: Any, address: str, protocol: Protocol,
         endpoint: IStreamClientEndpoint | None = None) -> Deferred[Protocol]:
    """Connect ``protocol`` to the client endpoint string ``address`` (or to ``endpoint``,
    which ``address`` then only names)."""
    if endpoint is None:
        # Twisted leaves clientFromString unannotated.
        endpoint = clientFromString(reactor, address)  # type: ignore[no-untyped-call]
    # Twisted leaves connectProtocol unannotated.
    connected: Deferred[Protocol] = connectProtocol(  # type: ignore[no-untyped-call]
        endpoint, protocol)
    return connected


class FramedLink(Int32StringReceiver, TimeoutMixin):
    """Length-prefixed frames, bounded; timeouts on the owner's clock; named peer.

    A subclass handles ``stringReceived`` and records why a peer was dropped (`failed`);
    `drop` logs, closes and calls it once."""

    MAX_LENGTH = MAX_LOBBY_FRAME
    log = Logger()

    def __init__(self, clock: IReactorTime) -> None:
        self.clock = clock
        self.who = "?"
        self.closing = False

    def callLater(self, period: float, func: Callable[..., object], *args: object,
                  **kw: object) -> IDelayedCall:
        return self.clock.callLater(period, func, *args, **kw)

    def setTimeout(self, timeoutPeriod: float | None = None) -> float | None:
        # Typed here: Twisted leaves TimeoutMixin unannotated.
        previous: float | None = super().setTimeout(  # type: ignore[no-untyped-call]
            timeoutPeriod)
        return previous

    def sendString(self, string: bytes) -> None:
        # Typed here: Twisted leaves Int32StringReceiver unannotated.
        super().sendString(string)  # type: ignore[no-untyped-call]

    def connectionMade(self) -> None:
        assert self.transport is not None  # makeConnection sets it before calling this
        self.who = name_of(self.transport.getPeer())
        for option in ("setTcpNoDelay", "setTcpKeepAlive"):
            setter = getattr(self.transport, option, None)
            if setter is not None:
                setter(True)
        self.setTimeout(HANDSHAKE_TIMEOUT)

    def timeoutConnection(self) -> None:
        self.drop(BadLobbyMessage("no message in time", self.who), refuse=False)

    def lengthLimitExceeded(self, length: int) -> None:
        self.drop(BadLobbyMessage(f"frame of {length} bytes is over the limit", self.who),
                  refuse=False)

    _logged = Recent(60.0)  #: refusals logged, per address (shared by every lobby link)

    def warn(self, what: str, why: str) -> None:
        """Log a refusal: `LOGGED_PER_MINUTE` per address, then one line saying the rest
        of the minute's are not logged."""
        ip = ip_of(self.transport.getPeer()) if self.transport is not None else "?"
        n = self._logged.hit(ip, self.clock.seconds())
        if n <= LOGGED_PER_MINUTE:
            self.log.warn("{what} lobby peer {who}: {why}", what=what, who=self.who, why=why)
        elif n == LOGGED_PER_MINUTE + 1:
            self.log.warn("more refusals of {ip} this minute are not logged", ip=ip)

    def drop(self, exc: LobbyError, refuse: bool = True) -> None:
        """Log, tell the peer why (if ``refuse``), close. Subclasses record the error."""
        if self.closing:
            return
        self.closing = True
        self.warn("dropping", exc.why)
        self.failed(exc)
        assert self.transport is not None  # connected: nothing drops a link before that
        self.transport.loseConnection()

    def failed(self, exc: LobbyError) -> None:
        pass

    def close(self) -> None:
        self.closing = True
        self.setTimeout(None)
        assert self.transport is not None  # connected: nothing closes a link before that
        self.transport.loseConnection()

    def connectionLost(self, reason: Any = None) -> None:
        self.setTimeout(None)
