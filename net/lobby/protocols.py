"""The lobby on the network: Twisted protocols that move lobby frames and time, and the
public API the client calls (`host_table`, `join_table`, `serve_ai`).

All decisions live in the state machines (`net/lobby/state.py`, `net/lobby/pake.py`); this module
frames bytes (32-bit length prefix, `MAX_LOBBY_FRAME`), runs idle timeouts on the given
clock, logs every dropped peer by address, and turns lost connections into typed errors.

Typical use (the lead's client code)::

    host = await host_table(reactor, "Friday", Rules(), me, passphrase="plum tree")
    host.on_change = redraw
    host.ready(True)
    seating = await host.started          # a Seating: seat, keys, addresses, table id
    node = PeerNode(reactor, GameSession(rules, seating.table, seating.seat, ...), ...)

    guest = await join_table(reactor, "tcp:192.0.2.5:40123", me, passphrase="plum tree")
    guest.ready(True)
    seating = await guest.started
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet.defer import Deferred, ensureDeferred, fail, maybeDeferred, succeed
from twisted.internet.endpoints import clientFromString, connectProtocol, serverFromString
from twisted.internet.interfaces import IReactorTime
from twisted.internet.protocol import Factory
from twisted.logger import Logger
from twisted.protocols.basic import Int32StringReceiver
from twisted.protocols.policies import TimeoutMixin

from tractor.net.lobby.discovery import (
    GROUP,
    PORT,
    DiscoveryError,
    browse,
    instance_id,
    pack_announcement,
    start_announcer,
)
from tractor.net.lobby.guess_line import TurnKeeper
from tractor.net.lobby.pake import Channel, GuestHandshake, HostHandshake, Step
from tractor.net.lobby.state import (
    MAX_LOBBY_FRAME,
    AdmitFn,
    AiServerMachine,
    AttemptLimiter,
    BadLobbyMessage,
    GuestLobby,
    HostLobby,
    LobbyClosed,
    LobbyError,
    NoAiServer,
    Participant,
    PassphraseRequired,
    Roster,
    Seating,
    SpawnFn,
    TooManyAttempts,
    WrongPassphrase,
    WrongServerKey,
    endpoint_string,
    fill_request_frame,
    fingerprint,
    pack,
    read_fill_reply,
    refusal,
)
from tractor.net.mesh.gate import Gate, LastFew, Recent, Refused, room_for_a_stranger
from tractor.rules import Rules

HANDSHAKE_TIMEOUT = 10.0  #: seconds to finish the PAKE (or the AI fill exchange)
JOIN_TIMEOUT = 10.0  #: seconds from the handshake to the join message
#: Lobby connections one host keeps at once: far more than a table needs, so that a
#: flood must come from over a hundred addresses to fill them (a descriptor each).
MAX_LINKS = 512
#: Connections from one address that have not begun a handshake: a person needs one, a
#: machine starting a person and eleven AI players at once twelve.
MAX_SILENT_PER_SOURCE = 12
MAX_PER_SOURCE = 16  #: connections from one address in all
SILENT_GRACE = 2.0  #: seconds a new connection cannot be pushed out for a newer one
#: Connections a minute one address may open to an AI server with a passphrase (each
#: greeting costs a SPAKE2 message, 5 ms of this server's CPU).
GREETINGS_PER_MINUTE = 30
RATE_WINDOW = 10.0
RATE_LIMIT = 40  #: lobby messages per connection per window (a human clicks a few)
FILL_BROWSE_SECONDS = 2.0
MAX_ERRORS = 64  #: errors of dropped peers kept for a look (the log has them all, in short)
LOGGED_PER_MINUTE = 5  #: refusals logged per address and minute (a flood fills no disk)

FillLocal = Callable[[int, str, list[bytes]], None]


def guess_lan_ip() -> str:
    """The address this machine uses towards the LAN (the source address of a route to the
    multicast group; a UDP ``connect`` sends nothing). 127.0.0.1 if there is no route."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((GROUP, PORT))
            ip = s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    return ip if ip and not ipaddress.ip_address(ip).is_unspecified else "127.0.0.1"


def _ip(address: Any) -> str:
    host = getattr(address, "host", None)
    return host if type(host) is str else "?"


def _name(address: Any) -> str:
    host, port = getattr(address, "host", None), getattr(address, "port", None)
    if type(host) is str and type(port) is int:
        return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return str(address)


def _bound_ip(listening: Any) -> str:
    ip = _ip(listening.getHost())
    try:
        return "127.0.0.1" if ipaddress.ip_address(ip).is_unspecified else ip
    except ValueError:
        return "127.0.0.1"


def _bare(exc: LobbyError) -> LobbyError:
    """The error without what would keep a dead connection alive (its traceback, and the
    errors it was raised from)."""
    exc.__cause__ = exc.__context__ = None
    return exc.with_traceback(None)


class _FramedLink(Int32StringReceiver, TimeoutMixin):
    """Length-prefixed frames, bounded; timeouts on the owner's clock; named peer."""

    MAX_LENGTH = MAX_LOBBY_FRAME
    log = Logger()

    def __init__(self, clock: IReactorTime) -> None:
        self.clock = clock
        self.who = "?"
        self.closing = False

    def callLater(self, delay: float, fn: Callable[..., Any], *a: Any, **kw: Any) -> Any:
        return self.clock.callLater(delay, fn, *a, **kw)

    def connectionMade(self) -> None:
        self.who = _name(self.transport.getPeer())
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
        ip = _ip(self.transport.getPeer()) if self.transport is not None else "?"
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
        self.transport.loseConnection()

    def failed(self, exc: LobbyError) -> None:
        pass

    def close(self) -> None:
        self.closing = True
        self.setTimeout(None)
        self.transport.loseConnection()

    def connectionLost(self, reason: Any = None) -> None:
        self.setTimeout(None)


# --- host -----------------------------------------------------------------------------------


class HostLink(_FramedLink):
    """One joiner's connection to the host."""

    def __init__(self, host: LobbyHost, conn: int, source: str | None = None) -> None:
        super().__init__(host.clock)
        self.host = host
        self.conn = conn
        #: What the connection came through when it has no IP of its own (a seat code's
        #: wormhole): it stands for the address in the gate, the guess limits and logs.
        self.source = source
        self.handshake: HostHandshake | None = None
        self.channel: Channel | None = None
        self.peer_ip = "?"
        self.local_ip = "?"
        self._recent: list[float] = []

    def connectionMade(self) -> None:
        super().connectionMade()
        self.peer_ip = self.source or _ip(self.transport.getPeer())
        self.local_ip = _ip(self.transport.getHost())
        if self.host.closed or not room_for_a_stranger():
            self.warn("refusing", "lobby closed" if self.host.closed else "out of descriptors")
            self.close()
            return
        try:
            evicted = self.host.gate.admit(self.conn, self.peer_ip, self.clock.seconds())
        except Refused as exc:
            self.warn("refusing", str(exc))
            self.close()
            return
        for conn in evicted:  # the oldest of a source that holds the most, to make room
            link = self.host.links.get(conn)
            if link is not None:
                link.drop(BadLobbyMessage("dropped to make room: too many connections "
                                          "without a seat", link.who), refuse=False)
        self.host.links[self.conn] = self
        self.handshake = HostHandshake(self.host.name, self.host.passphrase,
                                       self.host.state.tokens, self.host.limiter,
                                       self.peer_ip, self.who)

    def stringReceived(self, data: bytes) -> None:
        if self.closing or self.handshake is None:
            return
        now = self.clock.seconds()
        if self.channel is None:
            self._handshake_step(self.handshake.receive(data, now))
            return
        self._recent = [t for t in self._recent if t > now - RATE_WINDOW] + [now]
        try:
            if len(self._recent) > RATE_LIMIT:
                raise BadLobbyMessage("too many messages", self.who)
            msg = self.channel.open(data)
            sends = self.host.state.receive(self.conn, msg, now)
        except LobbyClosed:
            return  # a late message after the start: nothing to do
        except LobbyError as exc:
            self.drop(exc)
            return
        if self.host.state.conns.get(self.conn) is not None and \
                self.host.state.conns[self.conn].seat is not None:
            self.setTimeout(None)  # seated: a lobby may wait long for the last player
            self.host.gate.settle(self.conn)
        self.host.dispatch(sends)
        if msg.get("t") == "leave":
            self.log.info("lobby peer {who} left", who=self.who)
            self.close()

    def _handshake_step(self, step: Step) -> None:
        assert self.handshake is not None
        if step.send is not None:
            self.sendString(step.send)
        if step.error is not None:
            self.drop(step.error, refuse=False)  # the step carried the refusal
            self.host.tell_guesses()
            return
        if self.handshake.mode in ("pass", "token"):
            # A handshake under way that cost something (a guess counted against its
            # address and the table, a live seat token, or a place in the table's line,
            # which the line bounds itself): no longer a stranger that a flood may push
            # out. An open table's costs nothing: only a seat counts.
            self.host.gate.settle(self.conn)
        if step.wait is not None:
            self._wait_in_line(step.wait)
        elif step.channel is not None:
            self.channel = step.channel
            self.host.state.connect(self.conn, self.who, self.peer_ip, self.local_ip,
                                    self.handshake.token)
            self.setTimeout(JOIN_TIMEOUT)
            self.log.info("lobby peer {who} authenticated ({mode})", who=self.who,
                          mode=self.handshake.mode)

    def _wait_in_line(self, seconds: float) -> None:
        """No turn free for a guess: the hello waits on this connection for its turn
        (`tractor.net.lobby.guess_line`), at most ``seconds``."""
        assert self.handshake is not None and self.handshake.place is not None
        self.handshake.place.go = self._turn
        self.handshake.place.dismiss = self._end_wait
        self.setTimeout(seconds)
        self.host.turns.poke()

    def _turn(self) -> None:
        if self.closing or self.handshake is None:
            return
        self.setTimeout(HANDSHAKE_TIMEOUT)
        self._handshake_step(self.handshake.proceed(self.clock.seconds()))

    def _end_wait(self, why: str) -> None:
        if not self.closing and self.handshake is not None:
            self._handshake_step(self.handshake.give_up(why))

    def timeoutConnection(self) -> None:
        if self.handshake is not None and self.handshake.state == "waiting":
            self._end_wait("no turn for a guess came in time: strangers keep guessing at "
                           "this table; try again later")
            return
        super().timeoutConnection()

    def send_message(self, msg: dict[str, Any]) -> None:
        if self.channel is not None and not self.closing:
            self.sendString(self.channel.seal(msg))

    def drop(self, exc: LobbyError, refuse: bool = True) -> None:
        if refuse and not self.closing:
            self.send_message(refusal(exc))
        super().drop(exc, refuse)

    def failed(self, exc: LobbyError) -> None:
        self.host.errors.append(_bare(exc))

    def connectionLost(self, reason: Any = None) -> None:
        super().connectionLost(reason)
        if self.host.links.get(self.conn) is self:
            del self.host.links[self.conn]
            self.host.gate.release(self.conn)
        if self.channel is None:
            if self.handshake is not None:
                self.handshake.abort()
                self.host.tell_guesses()
            return
        self.host.dispatch(self.host.state.drop(self.conn, self.clock.seconds()))


class LobbyHost:
    """The host's open table. Read ``address`` (what joiners dial), ``roster()``; set
    ``on_change`` (called with the new `Roster` after every change) to redraw a UI; call
    ``ready``, ``request_fill``, ``close``; await ``started`` for the `Seating`.

    ``errors`` keeps every `LobbyError` a peer was dropped for (also logged)."""

    log = Logger()

    def __init__(self, reactor: Any, name: str, rules: Rules, me: Participant | None,
                 passphrase: str | None = None, fill_local: FillLocal | None = None,
                 clock: IReactorTime | None = None, limiter: AttemptLimiter | None = None,
                 carry: tuple[Any, ...] | None = None, internet: str | None = None) -> None:
        self.reactor = reactor
        self.clock: IReactorTime = clock or reactor
        self.name = name
        self.passphrase = passphrase or None
        self.fill_local = fill_local
        #: AI server address -> the identity key it proved when it took a fill request.
        self.ai_servers: dict[str, bytes] = {}
        self.state = HostLobby(name, rules, me, carry=carry, internet=internet)
        self.limiter = limiter or AttemptLimiter()
        self.turns = TurnKeeper(self.limiter, self.clock)  #: the line's turns for guesses
        self.links: dict[int, HostLink] = {}
        #: Places for connections: a seated one keeps its own, strangers share the rest.
        self.gate = Gate(MAX_SILENT_PER_SOURCE, MAX_LINKS, "connections",
                         "have not begun a handshake", per_source_total=MAX_PER_SOURCE,
                         min_age=SILENT_GRACE)
        self.started: Deferred[Seating] = Deferred()
        self.on_change: Callable[[Roster], None] | None = None
        #: Called with one line for the host to read: wrong passphrase guesses so far.
        self.on_warning: Callable[[str], None] | None = None
        self._guesses_told = 0
        #: The last `MAX_ERRORS` errors peers were dropped for (without their tracebacks,
        #: which would keep each dead connection alive).
        self.errors: list[LobbyError] = LastFew(MAX_ERRORS)
        self.closed = False
        self.address = ""  #: the lobby endpoint joiners on the LAN dial
        self.announced_address = ""
        self.local_address = ""  #: the same on this machine (for local AI players)
        self.instance = instance_id()
        self.discovery_port = PORT  #: UDP port of announcements (and of the AI server search)
        self._next_conn = 0
        self._last_roster: Roster | None = None
        self._port: Any = None
        self._announcer: Any = None

    # --- set-up -----------------------------------------------------------------------------

    def protocol(self, source: str | None = None) -> HostLink:
        """A protocol for one incoming connection (used by the factory and by tests);
        ``source`` names a connection that has no IP of its own (a seat code's wormhole)."""
        self._next_conn += 1
        return HostLink(self, self._next_conn, source)

    async def listen(self, description: str = "tcp:0:interface=0.0.0.0") -> str:
        """Listen on a Twisted server endpoint; returns ``address``."""
        endpoint = serverFromString(self.reactor, description)
        self._port = await endpoint.listen(Factory.forProtocol(self.protocol))
        bound = _ip(self._port.getHost())
        port = self._port.getHost().port
        try:
            wildcard = ipaddress.ip_address(bound).is_unspecified
        except ValueError:
            wildcard = True
        self.local_address = endpoint_string(_bound_ip(self._port), port)
        self.address = endpoint_string(guess_lan_ip() if wildcard else bound, port)
        # Announced as bound: a wildcard address tells browsers to use the datagram's source.
        self.announced_address = endpoint_string("0.0.0.0" if wildcard else bound, port)
        self.state.host_ip = _bound_ip(self._port)
        self.log.info("table {name!r} open at {address}", name=self.name,
                      address=self.address)
        return self.address

    def announcement(self) -> bytes:
        roster = self.roster()
        rules = roster.rules
        summary = f"{rules.players} players, {rules.decks} decks, {rules.declaration}"
        return pack_announcement("table", self.name, self.announced_address, len(roster.seats),
                                 len(roster.seats) - len(roster.empty_seats()), summary,
                                 self.passphrase is not None, self.instance)

    def start_announcing(self) -> None:
        """Announce the table on the LAN once a second until the start or `close`; a host
        where multicast is refused logs it and goes on (joiners can still type the
        address)."""
        try:
            self._announcer = start_announcer(self.reactor, self.announcement, self.clock,
                                              port=self.discovery_port)
        except DiscoveryError as exc:
            self.log.warn("not announcing table {name!r}: {why}", name=self.name, why=exc.why)

    # --- the lobby --------------------------------------------------------------------------

    def roster(self) -> Roster:
        return self.state.roster(self.clock.seconds())

    def ready(self, ready: bool = True) -> None:
        """The host's own ready flag (`LobbyError` if the host does not play)."""
        self.dispatch(self.state.host_ready(ready, self.clock.seconds()))

    def request_fill(self, ai_server: str | None = None, count: int | None = None,
                     local: bool = True, seats: list[int] | None = None,
                     expect: str | None = None,
                     passphrase: str | None = None) -> Deferred[int]:
        """Ask for an AI on every empty seat (or ``count`` of them): one-time seat tokens
        reserve the seats, then ``fill_local(count, local_address, tokens)`` is called if
        given (and ``local``), else the AI server at ``ai_server`` (a client endpoint
        string) is asked, if its identity key has the fingerprint ``expect`` (when given):
        the seat tokens are sealed to that key only (with the proof of ``passphrase`` for a
        server that has one). An AI server is never picked for the
        host (one found on the LAN may be anyone's): see `browse_ai_servers`. Fires with
        the number of AI players asked for; on failure the reservations are dropped and it
        fails with `NoAiServer` (or `WrongServerKey`)."""
        if ai_server is None and not (self.fill_local is not None and local):
            return fail(NoAiServer("no AI server chosen: `fill lan` lists the ones heard on "
                                   "the LAN", "fill"))
        now = self.clock.seconds()
        tokens = self.state.issue_tokens(now, count, seats)
        if not tokens:
            return succeed(0)
        self.dispatch(self.state.broadcast(now))
        if self.fill_local is not None and local and ai_server is None:
            try:
                self.fill_local(len(tokens), self.local_address, tokens)
            except Exception as exc:
                self._revoke(tokens)
                return fail(NoAiServer(f"the local AI provider failed: {exc}", "local"))
            return succeed(len(tokens))
        assert ai_server is not None
        return ensureDeferred(self._fill_remote(tokens, ai_server, expect, passphrase))

    async def browse_ai_servers(self, seconds: float = FILL_BROWSE_SECONDS) -> list[Any]:
        """The AI servers heard on the LAN (`Announcement`s; ``id`` is the fingerprint of
        the identity key each announced, which `request_fill` then checks)."""
        return await browse(self.reactor, seconds, kind="ai-server", clock=self.clock,
                            port=self.discovery_port)

    async def _fill_remote(self, tokens: list[bytes], ai_server: str,
                           expect: str | None, passphrase: str | None) -> int:
        try:
            port = self._port.getHost().port if self._port is not None else 0
            link = FillClientLink(self.clock, len(tokens), port, tokens, self.name, expect,
                                  passphrase)
            await connectProtocol(clientFromString(self.reactor, ai_server), link)
            count = await link.result
            assert link.identity is not None
            self.ai_servers[ai_server] = link.identity
            self.log.info("AI server {server} starts {n} player(s)", server=ai_server, n=count)
            return count
        except Exception as exc:
            self._revoke(tokens)
            if isinstance(exc, NoAiServer | WrongServerKey | PassphraseRequired |
                          WrongPassphrase | TooManyAttempts):
                raise
            why = exc.why if isinstance(exc, LobbyError) else str(exc)
            raise NoAiServer(f"AI fill failed: {why}", ai_server) from exc

    def tell_guesses(self) -> None:
        """Tell the host of each new wrong guess (a joiner's typo, or someone guessing)."""
        wrong = self.limiter.wrong
        if wrong == self._guesses_told:
            return
        self._guesses_told = wrong
        wait = self.limiter.wait(self.clock.seconds())
        line = (f"{wrong} wrong passphrase guess{'es' if wrong > 1 else ''} at this table, "
                f"the last from {self.limiter.last_wrong}")
        if wait:
            line += f"; the table takes the next guess in {wait:.0f} s"
        self.log.warn("{line}", line=line)
        if self.on_warning is not None:
            self.on_warning(line)

    def _revoke(self, tokens: list[bytes]) -> None:
        self.state.tokens.revoke(tokens)
        self.dispatch(self.state.broadcast(self.clock.seconds()))

    def dispatch(self, sends: list[tuple[int, dict[str, Any]]]) -> None:
        """Send what the state machine produced, tell ``on_change`` if the roster changed;
        after the start, close the lobby."""
        for conn, msg in sends:
            link = self.links.get(conn)
            if link is not None:
                link.send_message(msg)
        roster = self.roster()
        if roster != self._last_roster and not self.closed:
            self._last_roster = roster
            if self.on_change is not None:
                self.on_change(roster)
        if self.state.seating is not None and not self.started.called:
            seating = self.state.seating
            self.log.info("table {name!r} starts: {n} seats", name=self.name,
                          n=len(seating.keys))
            self._shut()
            self.started.callback(seating)

    def _shut(self) -> None:
        self.closed = True
        self.turns.stop()
        for link in list(self.links.values()):
            link.close()
        if self._port is not None:
            self._port.stopListening()
            self._port = None
        if self._announcer is not None:
            maybeDeferred(self._announcer.stopListening)
            self._announcer = None

    def close(self) -> None:
        """Close the lobby: every joiner gets `LobbyClosed`, ``started`` fails with it
        unless the game already started."""
        if self.closed:
            return
        for link in self.links.values():
            link.send_message(refusal(LobbyClosed("the host closed the table", "host")))
        self._shut()
        if not self.started.called:
            self.started.errback(LobbyClosed("the host closed the lobby", "host"))


async def host_table(reactor: Any, name: str, rules: Rules, me: Participant | None,
                     passphrase: str | None = None, listen: str = "tcp:0:interface=0.0.0.0",
                     fill_local: FillLocal | None = None, announce: bool = True,
                     clock: IReactorTime | None = None, discovery_port: int = PORT,
                     carry: tuple[Any, ...] | None = None,
                     internet: str | None = None) -> LobbyHost:
    """Open a table: listen for joiners on ``listen`` and (``announce``) tell the LAN.

    ``me`` is the host's own seat (its game mesh already listens on ``me.game_port``), or
    None for a host that only seats AI players. ``passphrase`` (None or "": an open table)
    is never sent anywhere. ``fill_local(count, lobby_address, tokens)``: an in-process AI
    provider for `LobbyHost.request_fill` (each AI joins with `join_table(..., token=t)`).
    ``clock`` drives timeouts, guess limits and announcements (default: the reactor);
    ``discovery_port``: the UDP port announcements go to and AI servers are looked for on.
    ``internet``: an internet table's game address (`rendezvous.internet_address`): the
    seats' links will be wormholes; people join by seat codes (`internet_lobby.SeatCodes`).
    """
    host = LobbyHost(reactor, name, rules, me, passphrase, fill_local, clock, carry=carry,
                     internet=internet)
    host.discovery_port = discovery_port
    await host.listen(listen)
    if announce:
        host.start_announcing()
    return host


# --- guest ----------------------------------------------------------------------------------


class GuestLink(_FramedLink):
    """A participant's connection to the host's lobby."""

    def __init__(self, guest: LobbyGuest) -> None:
        super().__init__(guest.clock)
        self.guest = guest
        self.channel: Channel | None = None

    def connectionMade(self) -> None:
        super().connectionMade()
        self.guest.link = self
        self.guest.state.who = self.who
        self.guest.state.lobby_ip = _ip(self.transport.getPeer())
        self.guest.handshake.who = self.who
        self.sendString(self.guest.handshake.hello())

    def stringReceived(self, data: bytes) -> None:
        if self.closing:
            return
        if self.channel is None:
            step = self.guest.handshake.receive(data)
            if step.send is not None:
                self.sendString(step.send)
            if step.error is not None:
                self.drop(step.error, refuse=False)
            elif step.wait is not None:
                # Strangers are guessing at this table: our hello waits for its turn.
                self.setTimeout(step.wait + HANDSHAKE_TIMEOUT)
                self.log.info("lobby {who}: the table is busy with guesses; waiting for a "
                              "turn (at most {s:.0f} s)", who=self.who, s=step.wait)
            elif step.channel is not None:
                self.channel = step.channel
                self.send_message(self.guest.state.join_message())
            return
        try:
            result = self.guest.state.receive(self.channel.open(data))
        except LobbyError as exc:
            self.drop(exc, refuse=False)
            return
        self.guest.update(result)
        if isinstance(result, Seating):
            self.close()
        else:
            self.setTimeout(None)

    def send_message(self, msg: dict[str, Any]) -> None:
        if self.channel is not None and not self.closing:
            self.sendString(self.channel.seal(msg))

    def failed(self, exc: LobbyError) -> None:
        self.guest.fail(exc)

    def connectionLost(self, reason: Any = None) -> None:
        super().connectionLost(reason)
        self.guest.fail(LobbyClosed("connection to the lobby lost", self.who))


class LobbyGuest:
    """A participant in someone's lobby. ``joined`` fires with the first `Roster` (or fails
    with the typed reason: `WrongPassphrase`, `TableFull`, ...); then ``ready``/``leave``;
    ``on_change`` gets every new roster; ``started`` fires with the verified `Seating`."""

    log = Logger()

    def __init__(self, reactor: Any, me: Participant, passphrase: str | None = None,
                 token: bytes | None = None, clock: IReactorTime | None = None,
                 expect_carry: tuple[Any, ...] | None = None) -> None:
        self.reactor = reactor
        self.clock: IReactorTime = clock or reactor
        self.me = me
        self.state = GuestLobby(me, expect_carry=expect_carry)
        self.handshake = GuestHandshake(passphrase or None, token)
        self.link: GuestLink | None = None
        self.joined: Deferred[Roster | None] = Deferred()
        self.started: Deferred[Seating] = Deferred()
        self.on_change: Callable[[Roster], None] | None = None
        self.error: LobbyError | None = None

    def protocol(self) -> GuestLink:
        return GuestLink(self)

    def roster(self) -> Roster | None:
        return self.state.roster

    def ready(self, ready: bool = True) -> None:
        if self.link is not None:
            self.link.send_message(GuestLobby.ready_message(ready))

    def leave(self) -> None:
        """Leave the table: the seat frees; ``started`` fails with `LobbyClosed`."""
        self.fail(LobbyClosed("you left the table", "you"))
        if self.link is not None:
            self.link.send_message(GuestLobby.leave_message())
            self.link.close()

    def update(self, result: Roster | Seating) -> None:
        if isinstance(result, Seating):
            if not self.joined.called:
                self.joined.callback(self.state.roster)
            if not self.started.called:
                self.log.info("lobby {who}: the game starts, seat {seat}",
                              who=self.state.who, seat=result.seat)
                self.started.callback(result)
            return
        if not self.joined.called:
            self.joined.callback(result)
        if self.on_change is not None:
            self.on_change(result)

    def fail(self, exc: LobbyError) -> None:
        """The lobby is over for us without a start: fail what is still pending (once)."""
        if self.started.called or self.error is not None:
            return
        self.error = exc
        if not self.joined.called:
            self.joined.errback(exc)
        elif not self.started.called:
            self.started.errback(exc)


async def join_table(reactor: Any, address: str, me: Participant,
                     passphrase: str | None = None, token: bytes | None = None,
                     clock: IReactorTime | None = None,
                     expect_carry: tuple[Any, ...] | None = None,
                     endpoint: Any = None, mailbox: str | None = None) -> LobbyGuest:
    """Join the lobby at ``address`` (a client endpoint string, e.g. from discovery) with a
    passphrase, a one-time AI seat ``token``, or neither. Returns once seated (the first
    roster is in); raises the typed `LobbyError` otherwise (`WrongPassphrase`,
    `PassphraseRequired`, `TableFull`, `TooManyAttempts`, `BadToken`, `LobbyClosed`, ...).
    ``endpoint``: connect there instead (a seat code's wormhole, ``address`` then names it
    in messages), through ``mailbox`` (an internet table's start must name it)."""
    guest = LobbyGuest(reactor, me, passphrase, token, clock, expect_carry)
    guest.state.mailbox = mailbox
    try:
        await connectProtocol(endpoint or clientFromString(reactor, address), guest.protocol())
    except Exception as exc:
        raise LobbyClosed(f"cannot reach the lobby: {exc}", address) from exc
    await guest.joined
    return guest


# --- AI server ------------------------------------------------------------------------------


class AiServerProtocol(_FramedLink):
    """One host asking this AI server for players (see `AiServerMachine`)."""

    def __init__(self, server: AiServer) -> None:
        super().__init__(server.clock)
        self.server = server
        self.machine: AiServerMachine | None = None

    def connectionMade(self) -> None:
        super().connectionMade()
        ip = _ip(self.transport.getPeer())
        try:
            if self.server.passphrase and self.server.greetings.hit(
                    ip, self.clock.seconds()) > GREETINGS_PER_MINUTE:
                raise Refused("too many connections a minute from this address")
            if not room_for_a_stranger():
                raise Refused("out of descriptors")
            evicted = self.server.gate.admit(self, ip, self.clock.seconds())
        except Refused as exc:
            self.warn("refusing", str(exc))
            self.close()
            return
        for link in evicted:
            assert isinstance(link, AiServerProtocol)
            link.drop(BadLobbyMessage("dropped to make room: too many open requests",
                                      link.who), refuse=False)
        self.machine = AiServerMachine(self.server.spawn, ip, self.who, self.server.limiter,
                                       self.server.identity, passphrase=self.server.passphrase,
                                       admit=self.server.admit)
        self.sendString(self.machine.greeting())

    def connectionLost(self, reason: Any = None) -> None:
        super().connectionLost(reason)
        self.server.gate.release(self)

    def stringReceived(self, data: bytes) -> None:
        if self.closing or self.machine is None:
            return
        try:
            reply = self.machine.receive(data, self.clock.seconds())
        except LobbyError as exc:
            self.sendString(pack(refusal(exc)))
            self.drop(exc)
            return
        for request in self.machine.requests:
            self.log.info("AI server: {who} asks {n} player(s) for table {table!r}",
                          who=self.who, n=request.count, table=request.table)
        for error in self.machine.spawn_errors:
            self.log.error("AI server: spawning a player failed: {why}", why=error)
        self.sendString(reply)
        self.close()

    def failed(self, exc: LobbyError) -> None:
        self.server.errors.append(_bare(exc))


class AiServer:
    """An AI server: hosts ask its fill endpoint for players; ``spawn(lobby_address, token,
    table_name)`` (the AI layer's) starts one AI participant that joins the lobby with that
    token. Serves any number of tables at once. ``address``: its fill endpoint."""

    log = Logger()

    def __init__(self, reactor: Any, spawn: SpawnFn, name: str = "AI server",
                 clock: IReactorTime | None = None, limiter: AttemptLimiter | None = None,
                 identity: Ed25519PrivateKey | None = None,
                 passphrase: str | None = None, admit: AdmitFn | None = None) -> None:
        self.reactor = reactor
        #: The AI layer's share of its players among hosts (`tractor.net.lobby.ai_pool`).
        self.admit = admit
        #: Hosts must prove it (SPAKE2) before a request is read; None: any host may ask.
        self.passphrase = passphrase or None
        #: Open requests (each holds a descriptor and, with a passphrase, a PAKE): a few
        #: per address, 32 in all.
        self.gate = Gate(4, 32, "requests", "are open", min_age=SILENT_GRACE)
        #: Greetings per address (with a passphrase each costs a key exchange).
        self.greetings = Recent(60.0)
        #: What hosts pin: kept in the data folder by `tractor ai-server` (a fresh one here
        #: when none is given), announced as its fingerprint and signing every greeting.
        self.identity = identity or Ed25519PrivateKey.generate()
        self.clock: IReactorTime = clock or reactor
        self.spawn = spawn
        self.name = name
        # Without a passphrase, requests are not guesses: 20 a minute from one address
        # (the players it may start are bounded by the AI layer). With one, each is a
        # guess, bounded as at a table.
        self.limiter = limiter or (
            AttemptLimiter(what="wrong guesses at this AI server") if self.passphrase else
            AttemptLimiter(limit=20, window=60.0, budget=1 << 30))
        self.errors: list[LobbyError] = LastFew(MAX_ERRORS)
        self.players: Any = None  #: what the AI layer keeps of the players it started
        self.address = ""
        self.announced_address = ""
        self.instance = fingerprint(self.identity.public_key().public_bytes_raw())
        self.discovery_port = PORT
        self._port: Any = None
        self._announcer: Any = None

    def protocol(self) -> AiServerProtocol:
        return AiServerProtocol(self)

    async def listen(self, description: str = "tcp:0") -> str:
        endpoint = serverFromString(self.reactor, description)
        self._port = await endpoint.listen(Factory.forProtocol(self.protocol))
        bound = _ip(self._port.getHost())
        try:
            wildcard = ipaddress.ip_address(bound).is_unspecified
        except ValueError:
            wildcard = True
        port = self._port.getHost().port
        self.address = endpoint_string(guess_lan_ip() if wildcard else bound, port)
        self.announced_address = endpoint_string("0.0.0.0" if wildcard else bound, port)
        return self.address

    def announcement(self) -> bytes:
        return pack_announcement("ai-server", self.name, self.announced_address,
                                 passphrase=self.passphrase is not None, id=self.instance)

    def start_announcing(self) -> None:
        try:
            self._announcer = start_announcer(self.reactor, self.announcement, self.clock,
                                              port=self.discovery_port)
        except DiscoveryError as exc:
            self.log.warn("AI server not announced: {why}", why=exc.why)

    def close(self) -> None:
        if self._port is not None:
            self._port.stopListening()
            self._port = None
        if self._announcer is not None:
            maybeDeferred(self._announcer.stopListening)
            self._announcer = None


async def serve_ai(reactor: Any, spawn: SpawnFn, listen: str = "tcp:0", announce: bool = True,
                   name: str = "AI server", clock: IReactorTime | None = None,
                   discovery_port: int = PORT,
                   identity: Ed25519PrivateKey | None = None,
                   passphrase: str | None = None, admit: AdmitFn | None = None) -> AiServer:
    """Run an AI server's fill endpoint on ``listen`` and (``announce``) tell the LAN.
    ``spawn(lobby_address, token, table_name)`` is called once per AI seat a host asks for;
    the AI it starts calls ``join_table(reactor, lobby_address, Participant(..., kind="ai"),
    token=token)`` and then ``ready(True)``."""
    server = AiServer(reactor, spawn, name, clock, identity=identity, passphrase=passphrase,
                      admit=admit)
    server.discovery_port = discovery_port
    await server.listen(listen)
    if announce:
        server.start_announcing()
    return server


class FillClientLink(_FramedLink):
    """The host's side of one fill request: read the greeting, send the sealed request,
    read the reply. ``result`` fires with the number of players the server starts."""

    def __init__(self, clock: IReactorTime, count: int, lobby_port: int, tokens: list[bytes],
                 table: str, expect: str | None = None, passphrase: str | None = None) -> None:
        super().__init__(clock)
        self.passphrase = passphrase  #: the AI server's, if it asks for one
        self.count = count
        self.lobby_port = lobby_port
        self.tokens = tokens
        self.table = table
        self.expect = expect  #: the fingerprint of the server the host chose
        self.identity: bytes | None = None  #: the identity key the server proved
        self.result: Deferred[int] = Deferred()
        self._sent = False

    def stringReceived(self, data: bytes) -> None:
        if self.closing:
            return
        try:
            if not self._sent:
                # The AI server keeps only the port: it dials back the IP we come from.
                lobby = endpoint_string(_bound_ip(self.transport), self.lobby_port)
                request, self.identity = fill_request_frame(
                    data, self.count, lobby, self.tokens, self.table, self.who, self.expect,
                    self.passphrase)
                self.sendString(request)
                self._sent = True
                return
            count = read_fill_reply(data, self.who)
        except LobbyError as exc:
            self.drop(exc, refuse=False)
            return
        self.close()
        if not self.result.called:
            self.result.callback(count)

    def failed(self, exc: LobbyError) -> None:
        if not self.result.called:
            self.result.errback(exc)

    def connectionLost(self, reason: Any = None) -> None:
        super().connectionLost(reason)
        if not self.result.called:
            self.result.errback(NoAiServer("the AI server closed the connection", self.who))


