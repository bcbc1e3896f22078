"""An in-memory magic-wormhole mailbox for the seat code tests, on a `Clock`: the host's
wormholes get codes (a nameplate and words from magic-wormhole's own word list), a joiner's
code is compared with the host's as SPAKE2 would (one try per code: right, both sides
verify and Dilation connects them in memory through `twisted.test.iosim`; wrong, both
fail with `WrongPasswordError`), and the mailbox can be out of reach (every wormhole then
fails with `ServerConnectionError`, as the library's does).

    mailbox = FakeMailbox(clock, seed=1)
    SeatCodes(clock, host, mailbox.url, "tcp:127.0.0.1:9", create=mailbox.create, ...)

`Table` is a host's lobby with its `SeatCodes` on such a mailbox, every line it says kept.
"""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

from twisted.internet.defer import Deferred, ensureDeferred, fail, succeed
from twisted.internet.task import Clock
from twisted.python.failure import Failure
from twisted.test import iosim
from wormhole._wordlist import even_words_lowercase, odd_words_lowercase
from wormhole.errors import ServerConnectionError, WormholeClosed, WrongPasswordError

from tractor.net.internet.lobby import SeatCodes, open_seat_code
from tractor.net.internet.rendezvous import APPID
from tractor.net.lobby.errors import WrongCode
from tractor.net.lobby.host_protocol import LobbyHost
from tractor.net.lobby.seating import Participant
from tractor.rules import Rules

RELAY = "tcp:127.0.0.1:9"

ODD, EVEN = sorted(odd_words_lowercase), sorted(even_words_lowercase)


class Once:
    """A result many may wait for (the library's `OneShotObserver`)."""

    def __init__(self) -> None:
        self.done = False
        self.result: Any = None
        self.waiters: list[Deferred[Any]] = []

    def when(self) -> Deferred[Any]:
        if self.done:
            return fail(self.result) if isinstance(self.result, Failure) else \
                succeed(self.result)
        d: Deferred[Any] = Deferred()
        self.waiters.append(d)
        return d

    def fire(self, value: Any) -> None:
        if self.done:
            return
        self.done, self.result = True, value
        waiters, self.waiters = self.waiters, []
        for d in waiters:
            if isinstance(value, Failure):
                d.errback(value)
            else:
                d.callback(value)


class FakeDemultiplex:
    """Where the library puts the other side's subchannels (`SubchannelDemultiplex`), as
    magic-wormhole 0.24 makes it: without the names expected (``_expected`` None: one of a
    name nothing listens on is held, its bytes with it, in ``held``)."""

    def __init__(self) -> None:
        self._expected: list[str] | None = None
        self.held: list[str] = []


class FakeDilated:
    def __init__(self, wormhole: FakeWormhole) -> None:
        self.wormhole = wormhole
        self.dilated = Once()
        self._manager = SimpleNamespace(_subprotocol_factories=FakeDemultiplex())
        #: What the host listens with, by subchannel name (the lobby's, the watchers').
        self.factories: dict[str, Any] = {}

    def when_dilated(self) -> Deferred[Any]:
        return self.dilated.when()

    def listener_for(self, name: str) -> FakeListener:
        return FakeListener(self, name)

    def connector_for(self, name: str) -> FakeEndpoint:
        return FakeEndpoint(self.wormhole, name)


class FakeListener:
    def __init__(self, dilated: FakeDilated, name: str) -> None:
        self.dilated, self.name = dilated, name

    def listen(self, factory: Any) -> Deferred[Any]:
        self.dilated.factories[self.name] = factory
        return succeed(self)


class FakeEndpoint:
    """A joiner's subchannel to the host's lobby (or a watcher's to its watchers): an
    in-memory connection (`iosim`), to what the other side listens with on that name."""

    def __init__(self, wormhole: FakeWormhole, name: str) -> None:
        self.wormhole, self.name = wormhole, name

    def connect(self, factory: Any) -> Deferred[Any]:
        peer = self.wormhole.peer
        assert peer is not None, "no peer"
        listening = peer.dilation.factories.get(self.name)
        client = factory.buildProtocol(None)
        if listening is None:  # as the library does with a name nobody listens on
            demultiplex = peer.dilation._manager._subprotocol_factories
            if demultiplex._expected is not None and self.name not in demultiplex._expected:
                return fail(ConnectionRefusedError(f"{self.name}: not expected"))
            demultiplex.held.append(self.name)
            return succeed(client)
        server = listening.buildProtocol(None)
        pump = iosim.connect(server, iosim.FakeTransport(server, True), client,
                             iosim.FakeTransport(client, False), greet=False)
        self.wormhole.mailbox.pumps.append(pump)
        pump.flush()
        return succeed(client)


class FakeWormhole:
    def __init__(self, mailbox: FakeMailbox, appid: str = "") -> None:
        self.mailbox, self.appid = mailbox, appid
        self.code_seen, self.key, self.verifier = Once(), Once(), Once()
        self.dilation = FakeDilated(self)
        self.code: str | None = None
        self.peer: FakeWormhole | None = None
        self.closed = False

    def _fail_all(self, why: Exception) -> None:
        for once in (self.code_seen, self.key, self.verifier, self.dilation.dilated):
            once.fire(Failure(why))

    def allocate_code(self, words: int) -> None:
        self.mailbox.allocations.append((self.mailbox.clock.seconds(), words))
        self.mailbox.clock.callLater(0.2, self.mailbox.allocate, self, words)

    def set_code(self, code: str) -> None:
        self.mailbox.clock.callLater(0.2, self.mailbox.answer, self, code)

    def get_code(self) -> Deferred[Any]:
        return self.code_seen.when()

    def get_unverified_key(self) -> Deferred[Any]:
        return self.key.when()

    def get_verifier(self) -> Deferred[Any]:
        return self.verifier.when()

    def dilate(self, transit_relay_location: str | None = None, **_options: Any
               ) -> FakeDilated:
        return self.dilation  # (``expected_subprotocols`` ignored, as 0.24 does)

    def close(self) -> Deferred[Any]:
        if not self.closed:
            self.closed = True
            self.mailbox.release(self)
            self._fail_all(WormholeClosed("closed"))
        return succeed(None)


class FakeMailbox:
    def __init__(self, clock: Clock, seed: int = 0, reachable: bool = True,
                 url: str = "ws://127.0.0.1:9/v1") -> None:
        self.clock, self.rng, self.reachable, self.url = clock, random.Random(seed), \
            reachable, url
        #: nameplate -> a host's waiting wormhole (an application's nameplates are its
        #: own, as on the mailbox server: `_key`)
        self.hosts: dict[str, FakeWormhole] = {}
        self.allocations: list[tuple[float, int]] = []  #: (when, words) of every request
        self.answered: set[str] = set()  #: nameplates someone answered (one try each)
        self.pumps: list[Any] = []
        self.created = 0

    def create(self, appid: str, _url: str, _reactor: Any, dilation: bool = True
               ) -> FakeWormhole:
        self.created += 1
        return FakeWormhole(self, appid)

    @staticmethod
    def _key(w: FakeWormhole, nameplate: str) -> str:
        """Where ``w``'s nameplate is kept: the seat codes' as they are (their tests name
        them so), another application's apart ("APPID NAMEPLATE")."""
        return nameplate if w.appid in (APPID, "") else f"{w.appid} {nameplate}"

    def allocate(self, w: FakeWormhole, words: int) -> None:
        if w.closed:
            return
        if not self.reachable:
            w._fail_all(ServerConnectionError(self.url, ConnectionRefusedError(
                "Connection refused")))
            return
        nameplate = str(next(n for n in range(1, 10**6)
                             if self._key(w, str(n)) not in self.hosts))
        w.code = "-".join([nameplate] + [(ODD, EVEN)[i % 2][self.rng.randrange(256)]
                                         for i in range(words)])
        self.hosts[self._key(w, nameplate)] = w
        w.code_seen.fire(w.code)

    def answer(self, joiner: FakeWormhole, code: str) -> None:
        """A joiner's code meets the host's wormhole at its nameplate: one try."""
        nameplate = self._key(joiner, code.split("-", 1)[0])
        host = self.hosts.get(nameplate)
        if host is None or nameplate in self.answered or not self.reachable:
            return  # nobody there (or crowded): the joiner waits
        self.answered.add(nameplate)
        host.key.fire(b"key")
        joiner.key.fire(b"key")
        if code == host.code:
            joiner.peer, host.peer = host, joiner
            for w in (host, joiner):
                w.verifier.fire(b"verifier")
                w.dilation.dilated.fire(w.dilation)
        else:
            for w in (host, joiner):
                w.verifier.fire(Failure(WrongPasswordError()))

    def silent_guess(self, nameplate: str) -> None:
        """A guesser who learns from the host's answer alone and never sends their own."""
        host = self.hosts.get(nameplate)
        if host is not None and nameplate not in self.answered:
            self.answered.add(nameplate)
            host.key.fire(b"key")

    def release(self, w: FakeWormhole) -> None:
        for nameplate, held in list(self.hosts.items()):
            if held is w:
                del self.hosts[nameplate]
                self.answered.discard(nameplate)

    def open_codes(self) -> list[str]:
        """The host codes nobody has tried yet."""
        return [w.code for n, w in self.hosts.items() if n not in self.answered and w.code]

    def wrong_code(self, code: str) -> str:
        """The same nameplate and other words from the list (a guess that passes the
        joiner's own check of the words)."""
        nameplate, *words = code.split("-")
        while True:
            guess = [(ODD, EVEN)[i % 2][self.rng.randrange(256)] for i in range(len(words))]
            if guess != words:
                return "-".join([nameplate, *guess])

    def flush(self) -> None:
        for pump in self.pumps:
            pump.flush()


class Table:
    """A host's lobby and its seat codes on a clock, every line for the host kept."""

    def __init__(self, players: int = 4, host_plays: bool = True, seed: int = 1,
                 mailbox: FakeMailbox | None = None) -> None:
        self.clock = mailbox.clock if mailbox is not None else Clock()
        self.clock.advance(1_000_000)  # not at 0: times before the start are real times
        self.mailbox = mailbox or FakeMailbox(self.clock, seed=seed)
        me = Participant("Hana", bytes([7]) * 32, 4000) if host_plays else None
        self.host = LobbyHost(self.clock, "table", Rules(players=players), me,
                              fill_local=lambda _count, _address, _tokens: None,
                              clock=self.clock)
        self.lines: list[str] = []
        self.said: list[tuple[float, str]] = []  #: (when, line)
        self.opened = 0
        self.codes = SeatCodes(self.clock, self.host, self.mailbox.url, RELAY,
                               on_codes=lambda now: self._say(f"codes: {now}"),
                               create=self.mailbox.create, on_warning=self._say,
                               on_open=self._open)
        self.codes.start()
        for _ in range(10):  # small steps: a Clock runs what falls due at the step's end
            self.clock.advance(0.1)

    def _say(self, line: str) -> None:
        self.lines.append(line)
        self.said.append((self.clock.seconds(), line))

    def _open(self) -> None:
        self.opened += 1
        self._say("open on the internet")

    def guess_every_open_code(self) -> list[float]:
        """The attacker, through the joiner's own code path: one wrong try at each code
        nobody has tried yet. Returns when each try was refused."""
        tries = []
        for code in self.mailbox.open_codes():
            d = ensureDeferred(open_seat_code(self.clock, self.mailbox.wrong_code(code),
                                              self.mailbox.url, RELAY, wait=5,
                                              create=self.mailbox.create))
            refused: list[object] = []
            d.addErrback(lambda f, refused=refused: refused.append(f.trap(WrongCode)))
            self.clock.advance(0.5)
            assert refused, "a wrong code was not refused"
            tries.append(self.clock.seconds())
        return tries
