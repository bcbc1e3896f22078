"""Watchers of a table with a passphrase (`net.mesh.watch_gate`), in memory on a `Clock`:
a watcher that knows it proves it to the host's seat (the lobby's SPAKE2 handshake) and
watches; one that does not is refused in words; guesses are counted by the lobby's own
limits, so a watcher guesses no faster than a guest; a seat that does not hold the
passphrase sends watchers to the host's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memnet import MemNet
from test_watch_mesh import PacedTransport, _mid_game
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport

from tractor.cli.watch_hosting import (
    HOSTING_KEY,
    PASSPHRASE_KEY,
    PASSPHRASE_LOST,
    host_again,
    hosting_meta,
)
from tractor.net.journal.store import Journal
from tractor.net.lobby.discovery import PORT, Announcement, Browser
from tractor.net.lobby.guess_line import AttemptLimiter
from tractor.net.mesh.link import PeerLink
from tractor.net.mesh.watch_gate import GATE_TIMEOUT, WatchDesk
from tractor.net.mesh.watchers import NEEDS_PASSPHRASE, hello_proof, is_watch_hello, watch_hello
from tractor.net.mesh.watching import PassphraseRefused, WatchClient, WatchError

PASSPHRASE = "correct horse"


class Watch:
    """A watcher (knowing ``passphrase`` or not) on seat ``seat``'s game port."""

    def __init__(self, net: MemNet, seat: int, port: int, passphrase: str | None) -> None:
        self.link = PeerLink(net.nodes[seat])
        self.link_side = PacedTransport(port)
        self.client = WatchClient(net.clock, passphrase=passphrase)
        self.client.ended.addErrback(lambda failure: None)  # (read from ``failure``)
        self.client_side = StringTransport()
        self.link.makeConnection(self.link_side)
        self.client.makeConnection(self.client_side)

    def pump(self, rounds: int = 4) -> None:
        """Move the bytes both ways until they stop (the handshake takes two rounds)."""
        for _ in range(rounds):
            sent = self.client_side.value()
            self.client_side.clear()
            if sent and not self.link.closing:
                self.link.dataReceived(sent)
            answer = self.link_side.take()
            if answer:
                self.client.dataReceived(answer)


@pytest.fixture(scope="module")
def table() -> Iterator[MemNet]:
    """A game stopped mid-way whose seats take no plain watchers (a table with a
    passphrase); seat 0 (the host) holds the passphrase."""
    net = MemNet(seed=7, seated=True, watchers=False)  # (its id says so, as a lobby's)
    net.run(until=lambda: _mid_game(net))
    yield net
    for node in net.nodes:
        node.stop()


@pytest.fixture
def desk(table: MemNet) -> Iterator[WatchDesk]:
    desk = WatchDesk("ann's table", PASSPHRASE, AttemptLimiter())
    table.nodes[0].watchers.desk = desk
    yield desk
    for link in list(table.nodes[0].watchers.served):
        table.nodes[0].watchers.drop(link, "the test is over")


def test_a_watcher_that_knows_the_passphrase_watches(table: MemNet, desk: WatchDesk) -> None:
    watch = Watch(table, 0, 7001, PASSPHRASE)
    watch.pump()
    client = watch.client
    assert client.failure is None and client.spectator is not None
    assert client.welcome is not None and client.welcome.table == table.sessions[0].table
    assert client.spectator.taken > 0  # the game so far, every frame checked
    assert desk.limiter.wrong == 0


def test_a_wrong_passphrase_is_refused_and_counted_as_a_guess(table: MemNet,
                                                              desk: WatchDesk) -> None:
    watch = Watch(table, 0, 7002, "wrong horse")
    watch.pump()
    assert isinstance(watch.client.failure, PassphraseRefused)  # (asked again)
    assert "wrong table passphrase" in str(watch.client.failure)
    assert watch.client.spectator is None and watch.link.closing
    assert desk.limiter.wrong == 1
    assert not table.nodes[0].watchers.checking


def test_a_watcher_without_the_passphrase_is_told_to_give_it(table: MemNet,
                                                             desk: WatchDesk) -> None:
    watch = Watch(table, 0, 7003, None)
    watch.pump()
    assert str(watch.client.failure) == NEEDS_PASSPHRASE
    assert isinstance(watch.client.failure, PassphraseRefused)  # (asked for)
    assert desk.limiter.wrong == 0  # (no guess was made)


def test_watchers_guess_no_faster_than_the_lobbys_limits_allow(table: MemNet,
                                                               desk: WatchDesk) -> None:
    limit = desk.limiter.limit  # wrong guesses a minute from one address, as for a guest
    for i in range(limit):
        Watch(table, 0, 7100 + i, f"guess {i}").pump()
    assert desk.limiter.wrong == limit
    late = Watch(table, 0, 7200, PASSPHRASE)  # even the right one waits now
    late.pump()
    assert late.client.spectator is None
    assert "too many" in str(late.client.failure)
    assert isinstance(late.client.failure, WatchError)
    assert not isinstance(late.client.failure, PassphraseRefused)  # (asking again: no use)
    assert desk.limiter.wrong == limit  # refused before any guess was run


def test_a_watcher_that_never_confirms_is_dropped_and_its_guess_counted(
        table: MemNet, desk: WatchDesk) -> None:
    watch = Watch(table, 0, 7300, PASSPHRASE)
    watch.link.dataReceived(watch.client_side.value())  # the hello, never the confirmation
    assert table.nodes[0].watchers.checking
    table.clock.advance(GATE_TIMEOUT + 1)
    assert watch.link.closing and not table.nodes[0].watchers.checking
    assert desk.limiter.wrong == 1


def test_a_seat_without_the_passphrase_sends_watchers_to_the_hosts(table: MemNet) -> None:
    watch = Watch(table, 2, 7400, PASSPHRASE)
    watch.pump()
    assert "host's game port" in str(watch.client.failure)
    plain = Watch(table, 2, 7401, None)
    plain.pump()
    assert "takes no watchers" in str(plain.client.failure)


def test_a_watch_hello_carries_a_bounded_passphrase_hello() -> None:
    proof = bytes(120)
    assert is_watch_hello(watch_hello(b"", proof)) and hello_proof(watch_hello(b"", proof))
    assert hello_proof(watch_hello()) == b""
    assert not is_watch_hello(watch_hello(b"", bytes(300)))


def test_passphrase_watchers_right_or_wrong_delay_nothing_and_blame_nobody() -> None:
    """The same game with no watcher, then with watchers proving (or failing to prove)
    the passphrase mid-game: it ends at the same moment with the same results, no seat
    halted, and the one that knew the passphrase saw the seats' results."""
    alone = MemNet(seed=7, seated=True, watchers=False)
    alone.run()
    net = MemNet(seed=7, seated=True, watchers=False)
    net.nodes[0].watchers.desk = WatchDesk("ann's table", PASSPHRASE)
    watches: list[Watch] = []

    def step() -> bool:
        if not watches and _mid_game(net):
            watches.extend([Watch(net, 0, 7500, PASSPHRASE), Watch(net, 0, 7501, "nope"),
                            Watch(net, 1, 7502, PASSPHRASE)])
        for w in watches:
            w.pump(1)
        return False

    net.run(until=step)
    for w in watches:
        w.pump()
    assert net.completed() and not any(node.halted for node in net.nodes)
    assert (net.clock.seconds(), net.results()) == (alone.clock.seconds(), alone.results())
    knows, wrong, elsewhere = (w.client for w in watches)
    assert knows.spectator is not None and knows.failure is None
    assert [r.to_data() for r in knows.spectator.session.results] == net.results()[0]
    assert "wrong table passphrase" in str(wrong.failure)
    assert "host's game port" in str(elsewhere.failure)


class Multicast:
    """A reactor's multicast, for an announcer: what it would send, on demand."""

    def __init__(self) -> None:
        self.announcer: Any = None

    def listenMulticast(self, port: int, protocol: Any, listenMultiple: bool) -> Any:  # noqa: N802
        self.announcer = protocol
        return self

    def stopListening(self) -> None:  # noqa: N802
        self.announcer = None

    def heard(self) -> Announcement:
        browser = Browser(Clock())
        browser.datagramReceived(self.announcer.payload(), ("192.0.2.5", PORT))
        (heard,) = browser.list("game")
        return heard


def _journaled(passphrase: str | None, kept: bool = True) -> dict[str, Any]:
    """The host seat's meta as `tractor host` journals it (through JSON, as the journal
    keeps it): where it listens, its table, and what it opened for watchers."""
    meta = {"table_name": "ann's table", "kinds": ["person"] * 4, "watchers": False,
            "addresses": {str(s): f"tcp:192.0.2.{5 + s}:{40124 + s}" for s in range(4)},
            "listen": "tcp:40124:interface=0.0.0.0",
            **hosting_meta(False, passphrase, True)}
    if not kept:
        meta.pop(PASSPHRASE_KEY)
    return json.loads(json.dumps(meta))


@pytest.fixture
def resumed(table: MemNet) -> Iterator[MemNet]:
    """Seat 0 (the host) as `tractor resume` brings it back: no desk of its lobby's."""
    watchers = table.nodes[0].watchers
    yield table
    for link in list(watchers.served):
        watchers.drop(link, "the test is over")
    watchers.desk, watchers.refusing = None, None


def test_a_resumed_host_takes_watchers_with_the_passphrase_its_journal_kept(
        resumed: MemNet) -> None:
    multicast, notes = Multicast(), []
    hosting = host_again(multicast, resumed.nodes[0], resumed.sessions[0],
                         _journaled(PASSPHRASE), notes.append)
    assert hosting is not None
    assert notes == ["others may watch this game: `tractor watch 192.0.2.5:40124 "
                     "--passphrase -` (with the table's passphrase)"]
    heard = multicast.heard()  # announced again at the same game port
    assert (heard.kind, heard.address, heard.passphrase) == ("game", "tcp:192.0.2.5:40124",
                                                             True)
    assert heard.seats > 0
    knows = Watch(resumed, 0, 7600, PASSPHRASE)
    knows.pump()
    assert knows.client.failure is None and knows.client.spectator is not None
    without = Watch(resumed, 0, 7601, None)
    without.pump()
    assert str(without.client.failure) == NEEDS_PASSPHRASE
    hosting.stop()
    assert multicast.announcer is None


def test_a_resumed_host_without_the_passphrase_refuses_watchers_saying_why(
        resumed: MemNet) -> None:
    multicast, notes = Multicast(), []
    host_again(multicast, resumed.nodes[0], resumed.sessions[0],
               _journaled(PASSPHRASE, kept=False), notes.append)
    assert notes == [PASSPHRASE_LOST]
    assert multicast.heard().seats == 0  # listed as taking no watchers
    for port, passphrase in ((7602, PASSPHRASE), (7603, None)):
        watch = Watch(resumed, 0, port, passphrase)
        watch.pump()
        assert str(watch.client.failure) == PASSPHRASE_LOST and watch.client.spectator is None


def test_a_finished_game_leaves_no_passphrase_in_the_journal(tmp_path: Path) -> None:
    journal = Journal(str(tmp_path / "journal.sqlite"))
    journal.set_meta("g", _journaled(PASSPHRASE))
    assert journal.meta("g")[PASSPHRASE_KEY] == PASSPHRASE
    journal.mark_finished("g")
    assert PASSPHRASE_KEY not in journal.meta("g")
    assert journal.meta("g")[HOSTING_KEY]["passphrase"] is True
