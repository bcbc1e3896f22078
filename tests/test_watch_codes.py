"""Watch codes of internet tables (`net.internet.watch_codes`), in memory on a clock: the
host's seat opens one code at a time on the table's mailbox (`fake_wormhole`); a watcher
with it catches up mid-game and follows the game live to the seats' results, over the
LAN's watcher protocol on the code's wormhole; a seat code is refused at `tractor watch`
and a watch code at `tractor join`, before any wormhole opens, and a code's connection
takes no seat; a wrong guess spends the code (replaced, and the host told); codes stop at
the watchers' limit and open again when a watcher leaves; a passphrase is proved over a
code; the mailbox out of reach is tried again with back-off; `--no-watchers` opens none;
a resumed host opens codes again, whose watchers prove the passphrase its journal kept."""

from __future__ import annotations

import argparse
import struct
from typing import Any

import pytest

pytest.importorskip("wormhole")

from fake_wormhole import RELAY, FakeMailbox  # noqa: E402
from memnet import MemNet  # noqa: E402
from test_watch_mesh import _mid_game  # noqa: E402
from twisted.internet.defer import ensureDeferred  # noqa: E402
from twisted.internet.endpoints import connectProtocol  # noqa: E402
from twisted.internet.testing import StringTransport  # noqa: E402

from tractor.cli.watch import _watch_code  # noqa: E402
from tractor.cli.watch_hosting import (  # noqa: E402
    PASSPHRASE_KEY,
    PASSPHRASE_LOST,
    WatchHosting,
    host_again,
    hosting_meta,
)
from tractor.net.internet.lobby import open_code, open_seat_code  # noqa: E402
from tractor.net.internet.rendezvous import WATCH_CODE, internet_address  # noqa: E402
from tractor.net.internet.watch_codes import CodeAddress, WatchCodes, WatchLink  # noqa: E402
from tractor.net.lobby.errors import WrongCode  # noqa: E402
from tractor.net.lobby.guess_line import AttemptLimiter  # noqa: E402
from tractor.net.mesh.handshake import pack_hello  # noqa: E402
from tractor.net.mesh.watch_gate import WatchDesk  # noqa: E402
from tractor.net.mesh.watchers import NEEDS_PASSPHRASE  # noqa: E402
from tractor.net.mesh.watching import PassphraseRefused, WatchClient  # noqa: E402


class Host:
    """A game in memory whose host seat (seat 0) opens watch codes on a fake mailbox,
    every line it tells the host kept (``lines``; a code opened is "code CODE")."""

    def __init__(self, limit: int | None = None) -> None:
        self.net = MemNet(seed=7, seated=True)
        self.clock = self.net.clock
        self.mailbox = FakeMailbox(self.clock, seed=3)
        node = self.net.nodes[0]
        if limit is not None:
            node.watchers.limit = limit
        self.lines: list[str] = []
        self.codes = WatchCodes(self.clock, node, self.mailbox.url, RELAY,
                                lambda code: self.lines.append(f"code {code}"),
                                self.lines.append, create=self.mailbox.create)
        self.codes.start()

    def opened(self) -> list[str]:
        return [line.split()[1] for line in self.lines if line.startswith("code ")]

    def advance(self, seconds: float) -> None:
        """The clock on by small steps, every in-memory connection's bytes moved."""
        for _ in range(int(seconds * 10)):
            self.clock.advance(0.1)
            self.mailbox.flush()

    def watcher(self, code: str) -> tuple[WatchClient, list[Any]]:
        """A watcher opening ``code`` as `tractor watch CODE` does: (its client, the
        errors opening the code raised)."""
        client = WatchClient(self.clock)
        client.ended.addErrback(lambda _f: None)  # (read from ``failure``)
        errors: list[Any] = []

        async def go() -> None:
            _w, endpoint = await open_code(self.clock, code, self.mailbox.url, RELAY,
                                           create=self.mailbox.create, kind=WATCH_CODE)
            await connectProtocol(endpoint, client)
        ensureDeferred(go()).addErrback(lambda f: errors.append(f.value))
        return client, errors


def test_a_code_watcher_catches_up_mid_game_and_follows_it_to_the_seats_results() -> None:
    host = Host()
    host.advance(0.5)
    (code,) = host.opened()  # one code, from the start of the game
    assert len(code.split("-")) == 5  # a number and four words: a watch code's form
    watches: list[tuple[WatchClient, list[Any]]] = []

    def step() -> bool:
        host.mailbox.flush()
        if not watches and _mid_game(host.net):
            watches.append(host.watcher(code))
        return False
    host.net.run(until=step)
    host.advance(1)
    net = host.net
    assert net.completed()
    ((client, errors),) = watches
    assert not errors and client.failure is None
    spectator = client.spectator
    assert spectator is not None and client.ended.called  # (the seat closed at the end)
    assert [r.to_data() for r in spectator.session.results] == net.results()[0]
    assert client.welcome is not None and client.welcome.table == net.sessions[0].table
    # Used, the code opened the next at once; nothing was spent or refused.
    assert len(host.opened()) == 2 and host.opened()[1] != code
    assert host.lines == [f"code {c}" for c in host.opened()], host.lines
    host.codes.close()


def test_a_seat_code_is_refused_at_watch_and_a_watch_code_at_join_spending_nothing() -> None:
    host = Host()
    host.advance(0.5)
    (code,) = host.opened()
    said: list[str] = []
    args = argparse.Namespace(mailbox=host.mailbox.url, relay=RELAY, plain=True,
                              passphrase=None)
    seat_code = "7-guitarist-revenge-bodyguard"
    done = ensureDeferred(_watch_code(host.clock, args, seat_code, said.append,
                                      create=host.mailbox.create))
    assert done.result == 1
    assert f"{seat_code} is a seat code: `tractor join {seat_code}`" in said[-1], said
    joined: list[Any] = []
    ensureDeferred(open_seat_code(host.clock, code, host.mailbox.url, RELAY,
                                  create=host.mailbox.create)).addErrback(
        lambda f: joined.append(f.trap(WrongCode) and f.value))
    assert joined and f"{code} is a watch code: `tractor watch {code}`" in joined[0].why
    assert host.mailbox.created == 1  # the host's code only: no wormhole for either
    host.advance(2)
    assert host.opened() == [code]  # neither spent it
    host.codes.close()


def test_a_wrong_guess_spends_the_code_and_the_watchers_limit_holds_codes_back() -> None:
    host = Host(limit=3)
    host.net.run(until=lambda: _mid_game(host.net))
    host.advance(0.5)
    (first,) = host.opened()
    _guess, errors = host.watcher(host.mailbox.wrong_code(first))
    host.advance(1)
    assert isinstance(errors[0], WrongCode) and "is not the host's watch code" in str(
        errors[0])
    assert f"the watch code {first} was spent by a wrong guess" in host.lines[1]
    assert len(host.opened()) == 2  # its replacement, at once
    watching = []
    for _ in range(3):  # each code used opens the next, up to the limit
        client, errors = host.watcher(host.opened()[-1])
        host.advance(1)
        assert not errors and client.failure is None and client.spectator is not None
        watching.append(client)
    # The limit (three watchers) is reached: no code opens until one of them leaves.
    host.advance(3)
    assert len(host.opened()) == 4
    assert "next watch code opens when a watcher leaves" in host.lines[-1], host.lines
    assert len(host.net.nodes[0].watchers.served) == 3  # (each code counted apart)
    transport = watching[0].transport
    assert transport is not None
    transport.loseConnection()
    host.advance(2)
    assert len(host.opened()) == 5
    host.codes.close()
    for node in host.net.nodes:
        node.stop()


def test_no_watchers_opens_no_code_and_a_passphrase_table_says_so_with_the_code() -> None:
    net = MemNet(seed=7, seated=True)
    mailbox = FakeMailbox(net.clock)
    seating: Any = argparse.Namespace(name="t")  # (what a `Seating` gives `WatchHosting`)
    lines: list[str] = []
    refused = WatchHosting(net.nodes[0].watchers, seating, True, None, AttemptLimiter())
    assert refused.open_codes(net.clock, net.nodes[0], mailbox.url, RELAY, lines.append,
                              create=mailbox.create) is None
    net.clock.advance(5)
    assert mailbox.created == 0 and lines == []
    hosting = WatchHosting(net.nodes[0].watchers, seating, False, "pass", AttemptLimiter())
    assert hosting.code_notes("5-a-b-c-d", mailbox.url, RELAY) == [
        "others may watch: `tractor watch 5-a-b-c-d`",
        f"  (adding --mailbox {mailbox.url} --relay {RELAY} --passphrase - (with the "
        "table's passphrase))"]
    assert refused.code_notes("5-a-b-c-d") == ["others may watch: `tractor watch 5-a-b-c-d`"]


def test_a_passphrase_is_checked_over_a_code_and_typed_again_on_the_same_wormhole() -> None:
    host = Host()
    watchers = host.net.nodes[0].watchers
    watchers.open = False  # (a table with a passphrase: only the host's desk takes them)
    watchers.desk = WatchDesk("memnet", "correct horse", AttemptLimiter())
    host.net.run(until=lambda: _mid_game(host.net))
    host.advance(0.5)
    (code,) = host.opened()
    opened = ensureDeferred(open_code(host.clock, code, host.mailbox.url, RELAY,
                                      create=host.mailbox.create, kind=WATCH_CODE))
    host.advance(1)
    _wormhole, endpoint = opened.result

    def attempt(passphrase: str) -> WatchClient:
        client = WatchClient(host.clock, passphrase=passphrase)
        client.ended.addErrback(lambda _f: None)  # (read from ``failure``)
        connectProtocol(endpoint, client)
        host.advance(1)
        return client
    assert isinstance(attempt("wrong horse").failure, PassphraseRefused)
    right = attempt("correct horse")  # a new connection on the same code
    assert right.failure is None and right.spectator is not None
    assert "serves one watcher" in str(attempt("correct horse").failure)
    assert right.transport is not None and not right.ended.called
    host.codes.close()
    for node in host.net.nodes:
        node.stop()


def test_a_mailbox_out_of_reach_is_said_once_and_the_code_opens_when_it_answers() -> None:
    net = MemNet(seed=7, seated=True)
    mailbox = FakeMailbox(net.clock, reachable=False)
    lines: list[str] = []
    codes = WatchCodes(net.clock, net.nodes[0], mailbox.url, RELAY,
                       lambda code: lines.append(f"code {code}"), lines.append,
                       create=mailbox.create)
    codes.start()
    net.clock.pump([0.1] * 300)
    assert len(lines) == 1 and f"cannot reach the mailbox {mailbox.url}" in lines[0], lines
    assert 4 <= mailbox.created <= 7  # tried again after 1, 2, 4, 8, 16 s: not every second
    mailbox.reachable = True
    net.clock.pump([0.1] * 400)
    assert lines[1:2] == [f"the mailbox {mailbox.url} can be reached now: opening a watch code"]
    assert len(lines) == 3 and lines[2].startswith("code "), lines
    codes.close()


def test_a_watch_codes_connection_takes_a_watcher_never_a_seat() -> None:
    net = MemNet(seed=7, seated=True)
    host = net.nodes[3]  # (a lower seat's hello would be taken on its game port)
    link = WatchLink(host, CodeAddress("watch code #1"), lambda _link, _served: None)
    link.makeConnection(StringTransport())
    hello = pack_hello(host.table, 1, host.raw_keys[1])
    link.dataReceived(struct.pack("!I", len(hello)) + hello)
    assert link.closing and link.seat is None


class Resumed:
    """Seat 0 of a game, as `tractor resume` brings back an internet host's seat journaled
    with ``meta`` (its table's address added; ``passphrase``: a table whose seats take no
    plain watchers): what `host_again` opened (``hosting``) and told its log
    (``lines``). (The game is at its start: a watcher's catching up mid-game is shown
    above.)"""

    def __init__(self, meta: dict[str, Any], passphrase: bool) -> None:
        self.net = MemNet(seed=7, seated=True, watchers=not passphrase)
        self.clock = self.net.clock
        self.mailbox = FakeMailbox(self.clock, seed=3)
        address = internet_address(self.mailbox.url, RELAY)
        meta = {"addresses": {str(s): address for s in range(4)}, "table_name": "t",
                "listen": "tcp:40124:interface=127.0.0.1", "watchers": not passphrase,
                **meta}
        self.lines: list[str] = []
        self.hosting = host_again(self.clock, self.net.nodes[0], self.net.sessions[0],
                                  meta, self.lines.append, create=self.mailbox.create)
        self.advance(0.5)

    def advance(self, seconds: float) -> None:
        for _ in range(int(seconds * 10)):
            self.clock.advance(0.1)
            self.mailbox.flush()

    def stop(self) -> None:
        if self.hosting is not None:
            self.hosting.stop()
        for node in self.net.nodes:
            node.stop()


def test_a_resumed_internet_host_opens_codes_whose_watchers_prove_the_passphrase() -> None:
    # As `tractor host --internet --passphrase` journals its seat (even were the LAN
    # announcement asked for, an internet table's game is never announced there).
    host = Resumed({"local_ai": True, **hosting_meta(False, "correct horse", True)},
                   passphrase=True)
    assert host.hosting is not None and host.hosting.codes is not None
    code = host.lines[0].split("`")[1].split()[-1]
    assert host.lines == [f"others may watch: `tractor watch {code}`",
                          f"  (adding --mailbox {host.mailbox.url} --relay {RELAY} "
                          "--passphrase - (with the table's passphrase))"]
    opened = ensureDeferred(open_code(host.clock, code, host.mailbox.url, RELAY,
                                      create=host.mailbox.create, kind=WATCH_CODE))
    host.advance(1)
    _wormhole, endpoint = opened.result

    def attempt(passphrase: str | None) -> WatchClient:
        client = WatchClient(host.clock, passphrase=passphrase)
        client.ended.addErrback(lambda _f: None)  # (read from ``failure``)
        connectProtocol(endpoint, client)
        host.advance(1)
        return client
    assert str(attempt(None).failure) == NEEDS_PASSPHRASE
    right = attempt("correct horse")  # (a new connection on the same code)
    assert right.failure is None and right.spectator is not None
    host.stop()


def test_a_resumed_internet_host_without_the_passphrase_says_why_and_opens_no_code(
        ) -> None:
    meta = {"local_ai": True, **hosting_meta(False, "correct horse", False)}
    meta.pop(PASSPHRASE_KEY)  # (a journal that lost it)
    host = Resumed(meta, passphrase=True)
    host.advance(2)
    assert host.hosting is not None and host.hosting.codes is None
    assert host.lines == [PASSPHRASE_LOST] and host.mailbox.created == 0
    assert host.net.nodes[0].watchers.refusing == PASSPHRASE_LOST
    host.stop()


@pytest.mark.parametrize(("meta", "opens"), [
    ({"local_ai": True, **hosting_meta(False, None, False)}, True),
    ({"local_ai": True, **hosting_meta(True, None, False)}, False),  # --no-watchers
    ({}, False),  # a guest's seat
    # Journaled before the host's seat kept its hosting: codes where watchers needed none.
    ({"local_ai": True}, True),
    ({"local_ai": True, "watchers": False}, False),  # (none, or a passphrase)
])
def test_a_resumed_internet_seat_opens_codes_only_as_its_host_did(
        meta: dict[str, Any], opens: bool) -> None:
    host = Resumed(meta, passphrase=False)
    codes = None if host.hosting is None else host.hosting.codes
    assert (codes is not None) == opens and host.mailbox.created == int(opens)
    # (the code's line and its --mailbox and --relay: the tests' servers)
    assert [line[:19] for line in host.lines] == ["others may watch: `", "  (adding --mailbox"
                                                  ] * opens
    host.stop()
