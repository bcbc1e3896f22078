"""Watchers on a seat's game port (`net.mesh.watchers`, `watch_link`, `watching`), in
memory on a `Clock`: a watcher arriving mid-game catches up and follows the game live to
the seats' results; the table never waits on a watcher (it ends at the same moment with or
without them); one that stops reading or sends anything is dropped; a peer takes a
bounded number and a table may take none; a forged frame ends the watch naming its seat."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
from memnet import MemNet
from twisted.internet.address import IPv4Address
from twisted.internet.error import ConnectionDone
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.python.failure import Failure

from tractor.net.mesh.link import PeerLink
from tractor.net.mesh.watch_link import HEARTBEAT
from tractor.net.mesh.watchers import MAX_WATCHERS, is_watch_hello, watch_hello
from tractor.net.mesh.watching import SILENCE, WatchClient, WatchError
from tractor.net.table.spectator import WatchRefused
from tractor.phases import Phase

BUFFER = 64 * 1024  #: what a TCP transport buffers before it pauses its producer


class PacedTransport(StringTransport):
    """A transport that, like TCP's, pauses its streaming producer once more than `BUFFER`
    bytes wait to go, and resumes it once they went (`take`)."""

    def __init__(self, port: int, host: str = "127.0.0.1") -> None:
        super().__init__(peerAddress=IPv4Address("TCP", host, port))
        self.paused = False

    def write(self, data: bytes) -> None:
        super().write(data)
        if len(self.value()) > BUFFER and self.producer is not None and not self.paused:
            self.paused = True
            self.producer.pauseProducing()

    def take(self) -> bytes:
        data = self.value()
        self.clear()
        if self.paused and self.producer is not None:
            self.paused = False
            self.producer.resumeProducing()
        return data


class Watch:
    """One watcher's connection to seat ``seat``'s node, moved by `pump`."""

    def __init__(self, net: MemNet, seat: int, port: int, reads: bool = True,
                 host: str = "127.0.0.1") -> None:
        self.link = PeerLink(net.nodes[seat])
        self.link_side = PacedTransport(port, host)
        self.client = WatchClient(net.clock)
        self.client.ended.addErrback(lambda failure: None)  # (read from ``failure``)
        self.client_side = StringTransport()
        self.reads = reads  #: False: it never reads what the seat writes
        self.link.makeConnection(self.link_side)
        self.client.makeConnection(self.client_side)

    def pump(self) -> None:
        hello = self.client_side.value()
        self.client_side.clear()
        if hello and not self.link.closing:
            self.link.dataReceived(hello)
        if self.reads:
            data = self.link_side.take()
            if data:
                self.client.dataReceived(data)


def _mid_game(net: MemNet, seat: int = 1) -> bool:
    hand = net.sessions[seat].current
    return hand.phase == Phase.PLAY and len(hand.public.tricks) >= 2


def _run(net: MemNet, make: Any) -> list[Watch]:
    """Run ``net`` to its end, calling ``make()`` once mid-game for the watchers, moving
    their bytes as the clock goes."""
    watches: list[Watch] = []

    def step() -> bool:
        if not watches and _mid_game(net):
            watches.extend(make())
        for w in watches:
            w.pump()
        return False

    net.run(until=step)
    for w in watches:
        w.pump()
    return watches


@pytest.fixture(scope="module")
def baseline() -> tuple[float, list[Any]]:
    """The same game without a watcher: when it ended, and its results."""
    net = MemNet(seed=7, seated=True)
    net.run()
    assert net.completed()
    return net.clock.seconds(), net.results()


def test_a_watcher_arriving_mid_game_follows_it_to_the_seats_results_and_delays_nothing(
        baseline: tuple[float, list[Any]]) -> None:
    net = MemNet(seed=7, seated=True)
    watches = _run(net, lambda: [Watch(net, 1, 6001), Watch(net, 2, 6002, reads=False)])
    reader, stalled = watches
    assert net.completed()
    assert (net.clock.seconds(), net.results()) == baseline  # nobody waited on a watcher
    spectator = reader.client.spectator
    assert spectator is not None and reader.client.failure is None
    assert [r.to_data() for r in spectator.session.results] == net.results()[0]
    assert reader.client.welcome is not None
    assert reader.client.welcome.table == net.sessions[0].table
    assert stalled.client.spectator is None  # it read nothing


def test_a_watcher_that_stops_reading_is_dropped_and_the_table_goes_on(
        baseline: tuple[float, list[Any]]) -> None:
    net = MemNet(seed=7, seated=True)
    net.nodes[2].watchers.behind = 2_000
    (stalled,) = _run(net, lambda: [Watch(net, 2, 6003, reads=False)])
    assert net.completed()
    assert net.clock.seconds() == baseline[0]
    assert stalled.link.closing  # dropped: it fell behind
    assert not net.nodes[2].watchers.served
    assert "behind" in net.nodes[2].watchers.dropped[-1]


@pytest.fixture(scope="module")
def paused_game() -> Iterator[MemNet]:
    """A game stopped mid-way (its seats' nodes still up) for watchers to come to."""
    net = MemNet(seed=7, seated=True)
    net.run(until=lambda: _mid_game(net))
    yield net
    for node in net.nodes:
        node.stop()


def test_a_watcher_that_sends_anything_after_its_hello_is_dropped(paused_game: MemNet
                                                                  ) -> None:
    net = paused_game
    watch = Watch(net, 1, 6004)
    watch.pump()
    assert net.nodes[1].watchers.served
    watch.link.dataReceived(b"\x00\x00\x00\x02hi")
    assert watch.link.closing and not net.nodes[1].watchers.served


def test_a_peer_takes_a_bounded_number_of_watchers_and_a_table_may_take_none(
        paused_game: MemNet) -> None:
    net = paused_game
    watches = []
    for i in range(MAX_WATCHERS + 1):  # (one after another: unproved connections are few)
        watches.append(Watch(net, 0, 6100 + i, host=f"10.0.0.{i + 1}"))
        watches[-1].pump()
    assert len(net.nodes[0].watchers.served) == MAX_WATCHERS
    refused = watches[-1].client
    assert refused.ended.called and isinstance(refused.failure, WatchError)
    assert "watchers already" in str(refused.failure)
    net.nodes[3].watchers.open = False
    closed = Watch(net, 3, 6200)
    closed.pump()
    assert "takes no watchers" in str(closed.client.failure)


def test_a_forged_frame_ends_the_watch_naming_its_seat(paused_game: MemNet) -> None:
    net = paused_game
    watch = Watch(net, 1, 6300)
    watch.pump()
    client = watch.client
    assert client.spectator is not None and client.failure is None
    frame = net.sessions[3].current.deck.mine()[-1]
    header, body, signature = msgpack.unpackb(frame, raw=False)
    header[4] += 1000  # another message number, under the old signature
    client.stringReceived(msgpack.packb([header, body, signature], use_bin_type=True))
    assert isinstance(client.failure, WatchRefused) and client.failure.seat is None
    assert "seat 3" in str(client.failure)  # (named, not blamed: it did not sign it)
    assert "signature" in str(client.failure)


def test_a_watch_hello_is_not_a_seat_hello() -> None:
    assert is_watch_hello(watch_hello())
    assert is_watch_hello(watch_hello(bytes(32)))
    assert not is_watch_hello(watch_hello(bytes(65)))
    assert not is_watch_hello(b"\xc1")


def test_a_quiet_game_still_beats_to_its_watchers_and_a_silent_seat_ends_the_watch(
        paused_game: MemNet) -> None:
    net = paused_game
    watch = Watch(net, 2, 6400, reads=False)
    watch.pump()
    watch.link_side.take()  # the welcome and the game so far
    net.clock.advance(HEARTBEAT + 0.1)
    data, frames = watch.link_side.take(), []
    while data:
        (size,) = struct.unpack("!I", data[:4])
        frames.append(data[4:4 + size])
        data = data[4 + size:]
    assert b"" in frames  # a heartbeat, whatever else the game sent meanwhile
    clock = Clock()
    client = WatchClient(clock)
    client.ended.addErrback(lambda failure: None)
    client.makeConnection(StringTransport())
    clock.advance(SILENCE - 1)
    client.dataReceived(b"\x00\x00\x00\x00")  # a heartbeat: the seat is there
    clock.advance(SILENCE - 1)
    assert client.failure is None
    clock.advance(2)
    assert isinstance(client.failure, WatchError) and "sent nothing" in str(client.failure)


def test_a_watcher_whose_seat_leaves_is_told_who_left_by_name(paused_game: MemNet) -> None:
    watch = Watch(paused_game, 2, 6500)
    watch.pump()
    client = watch.client
    client.transport.peerAddr = IPv4Address("TCP", "127.0.0.1", 6002)  # p2's game port
    client.connectionLost(Failure(ConnectionDone()))
    said: list[str] = []
    client.ended.addCallback(said.append)
    assert said == ["p2, whose seat you watch through, left the table"]
    paused_game.nodes[2].watchers.left(watch.link)


def test_a_plain_watch_opens_with_the_table_its_rules_teams_and_trump(
        paused_game: MemNet) -> None:
    from tractor.cli.watch import BANNER, PlainFollowing

    lines: list[str] = []
    follow = PlainFollowing(lines.append)
    watch = Watch(paused_game, 1, 6501)
    watch.client.on_change = lambda: follow.changed(watch.client)
    for _ in range(100):  # (the game so far, as fast as its transport takes it)
        watch.pump()
    assert lines[:4] == [BANNER,
                         "table 'memnet': 4 seats, 2 decks, fixed teams",
                         "teams: p0, p2 (team 0, level 2) against p1, p3 (team 1, level 2)",
                         "hand 1, trump: rank 2, suit not declared yet"]
    assert all(len(line) <= 80 for line in lines[1:])
    assert any(line.startswith("after trick 2: ") for line in lines)  # the log follows
    paused_game.nodes[1].watchers.drop(watch.link, "the test is over")
