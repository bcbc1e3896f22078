"""The host's lobby on the network: one `HostLink` per joiner's connection, and the
`LobbyHost` the client drives (`host_table` opens one).

All decisions live in the state machines (`HostLobby`, the handshakes of `pake`); this
module admits connections through the gate (a flood of strangers cannot take every
descriptor), runs the handshake and then the lobby messages of each, with timeouts and a
message rate, sends what the state machine produced, announces the table on the LAN, and
asks for AI players (in-process, or an AI server: `ai_server.FillClientLink`).

Typical use (the client's code)::

    host = await host_table(reactor, "Friday", Rules(), me, passphrase="plum tree")
    host.on_change = redraw
    host.ready(True)
    seating = await host.started          # a Seating: seat, keys, addresses, table id
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet.defer import Deferred, ensureDeferred, fail, maybeDeferred, succeed
from twisted.internet.interfaces import IListeningPort, IReactorTime
from twisted.logger import Logger

from tractor.errors import TractorError
from tractor.net.lobby import listening
from tractor.net.lobby.ai_server import FillClientLink
from tractor.net.lobby.discovery import (
    PORT,
    DiscoveryError,
    browse,
    instance_id,
    pack_announcement,
    start_announcer,
)
from tractor.net.lobby.errors import (
    BadLobbyMessage,
    LobbyClosed,
    LobbyError,
    NoAiServer,
    PassphraseRequired,
    TooManyAttempts,
    WrongPassphrase,
    WrongServerKey,
    refusal,
)
from tractor.net.lobby.framing import (
    DIAL_FAILURES,
    HANDSHAKE_TIMEOUT,
    MAX_ERRORS,
    SILENT_GRACE,
    FramedLink,
    bare,
    dial,
    ip_of,
)
from tractor.net.lobby.guess_line import AttemptLimiter, TurnKeeper
from tractor.net.lobby.host_state import HostLobby, Send
from tractor.net.lobby.pake import Channel, HostHandshake, Step
from tractor.net.lobby.seating import Participant, Roster, Seating
from tractor.net.lobby.table_settings import rules_summary
from tractor.net.mesh.gate import Gate, LastFew, Refused, room_for_a_stranger
from tractor.rules import Rules

JOIN_TIMEOUT = 10.0  #: seconds from the handshake to the join message
#: Lobby connections one host keeps at once: far more than a table needs, so that a
#: flood must come from over a hundred addresses to fill them (a descriptor each).
MAX_LINKS = 512
#: Connections from one address that have not begun a handshake: a person needs one, a
#: machine starting a person and eleven AI players at once twelve.
MAX_SILENT_PER_SOURCE = 12
MAX_PER_SOURCE = 16  #: connections from one address in all
RATE_WINDOW = 10.0
RATE_LIMIT = 40  #: lobby messages per connection per window (a human clicks a few)
FILL_BROWSE_SECONDS = 2.0

#: ``fill_local(count, lobby_address, tokens)``: an in-process AI provider starts ``count``
#: players, or raises one of `LOCAL_FILL_FAILURES` (a process that could not start, or its
#: own refusal); the seats are then freed and the host told why.
FillLocal = Callable[[int, str, list[bytes]], None]
LOCAL_FILL_FAILURES = (OSError, TractorError)


class HostLink(FramedLink):
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
        assert self.transport is not None  # makeConnection sets it before calling this
        self.peer_ip = self.source or ip_of(self.transport.getPeer())
        self.local_ip = ip_of(self.transport.getHost())
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
            link = self.host.links.get(conn) if isinstance(conn, int) else None
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
        self.host.errors.append(bare(exc))

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
        self._port: IListeningPort | None = None
        self._announcer: Any = None

    # --- set-up -----------------------------------------------------------------------------

    def protocol(self, source: str | None = None) -> HostLink:
        """A protocol for one incoming connection (used by the factory and by tests);
        ``source`` names a connection that has no IP of its own (a seat code's wormhole)."""
        self._next_conn += 1
        return HostLink(self, self._next_conn, source)

    async def listen(self, description: str = "tcp:0:interface=0.0.0.0") -> str:
        """Listen on a Twisted server endpoint; returns ``address``."""
        self._port, addresses = await listening.listen(self.reactor, description,
                                                        self.protocol)
        self.local_address = addresses.local
        self.address = addresses.lan
        # Announced as bound: a wildcard address tells browsers to use the datagram's source.
        self.announced_address = addresses.announced
        self.state.host_ip = addresses.bound_ip
        self.log.info("table {name!r} open at {address}", name=self.name,
                      address=self.address)
        return self.address

    def announcement(self) -> bytes:
        roster = self.roster()
        summary = rules_summary(roster.rules)
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

    def change_rules(self, changes: dict[str, Any]) -> None:
        """Set rules options before the start (`HostLobby.change_rules`: the core's
        `RulesError`, or `SettingRefused`, says why not); every person is un-readied."""
        self.dispatch(self.state.change_rules(changes, self.clock.seconds()))

    def sit(self, seat: int) -> None:
        """Move the host to a free seat (`SettingRefused` if it cannot)."""
        self.dispatch(self.state.host_sit(seat, self.clock.seconds()))

    def swap(self, a: int, b: int) -> None:
        """Exchange two seats (`SettingRefused` if they cannot be)."""
        self.dispatch(self.state.swap(a, b, self.clock.seconds()))

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
            except LOCAL_FILL_FAILURES as exc:
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
            port = getattr(self._port.getHost(), "port", 0) if self._port is not None else 0
            link = FillClientLink(self.clock, len(tokens), port, tokens, self.name, expect,
                                  passphrase)
            await dial(self.reactor, ai_server, link)
            count = await link.result
            assert link.identity is not None
            self.ai_servers[ai_server] = link.identity
            self.log.info("AI server {server} starts {n} player(s)", server=ai_server, n=count)
            return count
        except (LobbyError, *DIAL_FAILURES) as exc:
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

    def dispatch(self, sends: list[Send]) -> None:
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
    seats' links will be wormholes; people join by seat codes (`net.internet.lobby.SeatCodes`).
    """
    host = LobbyHost(reactor, name, rules, me, passphrase, fill_local, clock, carry=carry,
                     internet=internet)
    host.discovery_port = discovery_port
    await host.listen(listen)
    if announce:
        host.start_announcing()
    return host
