"""The AI fill endpoint on the network, both ends: the AI server that hosts ask for players
(`AiServer`, one `AiServerProtocol` per request; `serve_ai` opens one), and the host's
side of one request (`FillClientLink`).

All decisions live in `ai_fill` (the greeting, the sealed request, the passphrase proof);
this module frames the bytes, bounds the open requests and the greetings per address,
announces the server on the LAN, and logs what it was asked for.
"""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet.defer import Deferred, maybeDeferred
from twisted.internet.interfaces import IListeningPort, IReactorTime
from twisted.logger import Logger

from tractor.net.lobby import listening
from tractor.net.lobby.ai_fill import (
    AdmitFn,
    AiServerMachine,
    SpawnFn,
    fill_request_frame,
    read_fill_reply,
)
from tractor.net.lobby.discovery import PORT, DiscoveryError, pack_announcement, start_announcer
from tractor.net.lobby.errors import BadLobbyMessage, LobbyError, NoAiServer, refusal
from tractor.net.lobby.framing import MAX_ERRORS, SILENT_GRACE, FramedLink, bare, ip_of
from tractor.net.lobby.guess_line import AttemptLimiter
from tractor.net.lobby.messages import pack
from tractor.net.lobby.seating import fingerprint
from tractor.net.mesh.endpoints import endpoint_string
from tractor.net.mesh.gate import Gate, LastFew, Recent, Refused, room_for_a_stranger

#: Connections a minute one address may open to an AI server with a passphrase (each
#: greeting costs a SPAKE2 message, 5 ms of this server's CPU).
GREETINGS_PER_MINUTE = 30


class AiServerProtocol(FramedLink):
    """One host asking this AI server for players (see `AiServerMachine`)."""

    def __init__(self, server: AiServer) -> None:
        super().__init__(server.clock)
        self.server = server
        self.machine: AiServerMachine | None = None

    def connectionMade(self) -> None:
        super().connectionMade()
        assert self.transport is not None  # makeConnection sets it before calling this
        ip = ip_of(self.transport.getPeer())
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
        self.server.errors.append(bare(exc))


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
        self._port: IListeningPort | None = None
        self._announcer: Any = None

    def protocol(self) -> AiServerProtocol:
        return AiServerProtocol(self)

    async def listen(self, description: str = "tcp:0") -> str:
        self._port, addresses = await listening.listen(self.reactor, description,
                                                        self.protocol)
        self.address = addresses.lan
        self.announced_address = addresses.announced
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


class FillClientLink(FramedLink):
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
                lobby = endpoint_string(listening.bound_ip(self.transport), self.lobby_port)
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
