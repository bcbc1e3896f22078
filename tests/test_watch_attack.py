"""The watchers' protocol attacked from both sides, in memory on a `Clock`.

A hostile watcher: one that never reads is cut off once dropped or when the seat stops (not
kept open with its frames for ever); one address takes 2 places at most; one that comes and
goes in a loop gets the game so far a few times only; watchers do not keep a seat from
reconnecting; the game so far holds no key of a card still in a hand. A hostile seat: it
cannot show its watchers other names or rules than its table's (the welcome makes the
table id), nor another chain of its own messages (caught, naming both seats, blaming the
honest one no more); a forged frame or one far out of order blames nobody it names; hellos
for ever, a giant message, the game again and again end the watch. And what a seat keeps
from the seats (signs of a split) it keeps from its watchers; the evidence it halts on,
they get too."""

from __future__ import annotations

import struct
from typing import Any

import msgpack
import pytest
from memnet import TABLE, MemNet, body_of, kind_of, resign, withhold
from test_watch_mesh import Watch, _mid_game
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport

from tractor import Rules
from tractor.cli.seat.netclient import verdict_text
from tractor.cli.seat.watcher_client import WatcherClient
from tractor.cli.watch import PlainFollowing
from tractor.net.deck.envelope import MAX_FRAME, Header, chain_digest, open_frame, seal
from tractor.net.deck.errors import ViewMismatch
from tractor.net.mesh import watching
from tractor.net.mesh.linger import LINGER
from tractor.net.mesh.watch_arrivals import PER_SOURCE, TOTAL, WINDOW, WatchArrivals
from tractor.net.mesh.watchers import MAX_PER_SOURCE, MAX_WATCHERS
from tractor.net.mesh.watching import WatchClient, WatchError
from tractor.net.referee.stall import Stalled
from tractor.net.table.spectator import Spectator, WatchRefused


@pytest.fixture
def paused() -> Any:
    """A game stopped mid-way (its nodes up), for one test to change."""
    net = MemNet(seed=7, seated=True)
    net.run(until=lambda: _mid_game(net))
    yield net
    for node in net.nodes:
        node.stop()


def _served(watch: Watch) -> bytes:
    """What the seat wrote to the watcher so far (taken off its transport)."""
    return watch.link_side.take()


def test_a_seat_waiting_for_proof_of_a_split_sends_its_own_frames_to_no_watcher(
        paused: MemNet) -> None:
    net, node = paused, paused.nodes[1]
    early = Watch(net, 1, 7001)
    early.pump()
    _served(early)
    node.intake.suspect = (ViewMismatch(2, 3, 5), net.clock.seconds() + 10)
    frames = net.sessions[1].say("kept back")  # (as any move of its own made meanwhile)
    node.send(frames)
    assert frames and kind_of(frames[0]) == "app"
    assert frames[0] not in _served(early)  # not live ...
    late = Watch(net, 1, 7002)
    late.pump()
    assert frames[0] not in _served(late)  # ... nor in the game so far


def _alternate_chain(net: MemNet, transcript: list[bytes], seat: int, at: int,
                     text: str) -> list[bytes]:
    """``transcript`` with ``seat``'s chat line number ``at`` said otherwise, and every later
    frame of that seat signed again on that version (its views of its own chain follow
    it): the game a hostile seat shows its watchers alone."""
    keys = [k.public_key() for k in net.keys]
    hand = msgpack.unpackb(next(f for f in transcript if _place(f) == (seat, at)))[0][2]
    mine = sorted((f for f in transcript if _place(f)[0] == seat
                   and msgpack.unpackb(f)[0][2] == hand), key=lambda f: _place(f)[1])
    hashes = [bytes(32)]
    swapped: dict[bytes, bytes] = {}
    for frame in mine:
        h = msgpack.unpackb(frame, raw=False)[0]
        views = [tuple(v) for v in h[6]]
        count = views[seat][0]
        if h[4] == at:
            new = resign(frame, net.keys[seat], {**body_of(frame), "data": {"chat": text}})
        elif h[4] > at:
            views[seat] = (count, hashes[count])
            header = Header(h[1], h[2], h[3], h[4], h[5], tuple(views))
            new = seal(header, body_of(frame), net.keys[seat])
        else:
            new = frame
        swapped[frame] = new
        hashes.append(chain_digest(hashes[-1], open_frame(new, TABLE, hand, keys).content))
    return [swapped.get(f, f) for f in transcript]


def _place(frame: bytes) -> tuple[int, int]:
    h = msgpack.unpackb(frame)[0]
    return h[3], h[4]


def test_a_seat_showing_its_watchers_another_game_is_caught_and_no_honest_seat_is_named(
        ) -> None:
    net = MemNet(seed=7)
    net.run(until=lambda: _mid_game(net))
    said = net.sessions[1].say("good luck")
    net.nodes[1].send(said)
    net.run()
    assert net.completed()
    transcript = list(dict.fromkeys(net.sessions[1].journal()))
    fake = _alternate_chain(net, transcript, 1, _place(said[0])[1], "seat 3 cheats")
    watcher = Spectator(net.rules, TABLE, [k.public_key() for k in net.keys])
    with pytest.raises(WatchRefused) as refused:
        for frame in fake:
            watcher.take(frame)
    assert refused.value.seat is None  # it cannot tell which of the two signed two versions
    assert "seat 1" in str(refused.value) and "two versions" in str(refused.value)
    for node in net.nodes:
        node.stop()


def test_a_watcher_dropped_for_not_reading_is_cut_off_not_kept_open(paused: MemNet) -> None:
    net, node = paused, paused.nodes[2]
    node.watchers.behind = 2_000
    watch = Watch(net, 2, 7101, reads=False)
    watch.pump()
    net.run(until=lambda: watch.link.closing)
    assert "behind" in node.watchers.dropped[-1]
    # A TCP close waits for the other end to read what was written: it never will.
    assert watch.link_side.disconnecting and not watch.link_side.disconnected
    net.clock.advance(LINGER + 0.1)
    assert watch.link_side.disconnected  # aborted: its descriptor and buffer are free


def test_a_stopping_seat_cuts_off_the_watchers_that_do_not_take_their_last_frames(
        paused: MemNet) -> None:
    net, node = paused, paused.nodes[0]
    stalled, reader = Watch(net, 0, 7201, reads=False), Watch(net, 0, 7202)
    for watch in (stalled, reader):
        watch.pump()
    assert node.watchers.served[stalled.link.watcher].queue  # (what it did not read)
    node.stop()
    reader.pump()
    reader.link.connectionLost()  # it read everything: the close completes
    net.clock.advance(LINGER + 0.1)
    assert stalled.link_side.disconnected
    assert not reader.link_side.disconnected  # (closed as usual, never aborted)


def test_one_address_takes_at_most_two_watchers_places_at_a_seat(paused: MemNet) -> None:
    net, node = paused, paused.nodes[3]
    watches = [Watch(net, 3, 7300 + i, reads=False, host="10.0.0.66") for i in range(3)]
    for watch in watches:
        watch.pump()
    assert len(node.watchers.served) == MAX_PER_SOURCE == 2
    refused = watches[-1]
    assert refused.link.closing and b"from your address" in refused.link_side.value()
    other = Watch(net, 3, 7400, host="10.0.0.67")  # another host still gets a place
    other.pump()
    assert other.client.spectator is not None and len(node.watchers.served) == 3


def _client() -> WatchClient:
    client = WatchClient(Clock())
    client.ended.addErrback(lambda failure: None)  # (read from ``failure``)
    client.makeConnection(StringTransport())
    return client


def _message(value: Any) -> bytes:
    data = msgpack.packb(value, use_bin_type=True)
    return struct.pack("!I", len(data)) + data


def test_a_seat_that_sends_hellos_for_ever_instead_of_a_welcome_ends_the_watch() -> None:
    client = _client()
    client.dataReceived(_message(["tractor-mesh", b"seat hello"]))  # (what a seat says)
    assert client.failure is None
    client.dataReceived(_message(["tractor-mesh", b"and again"]))  # (a timeout put off)
    assert isinstance(client.failure, WatchError) and "welcome" in str(client.failure)


def test_a_seat_that_sends_a_giant_message_is_named_not_taken_for_a_closed_game() -> None:
    client = _client()
    client.dataReceived(struct.pack("!I", MAX_FRAME + 1))
    assert isinstance(client.failure, WatchError)
    assert "more than any frame" in str(client.failure)


def test_a_watcher_that_comes_and_goes_in_a_loop_gets_the_game_so_far_a_few_times_only(
        paused: MemNet) -> None:
    net, node = paused, paused.nodes[2]
    reads = []
    journal = node.session.journal
    node.session.journal = lambda: reads.append(1) or journal()  # type: ignore[method-assign]
    for i in range(PER_SOURCE + 1):
        watch = Watch(net, 2, 7500 + i, host="10.0.0.70")
        watch.pump()
        watch.link.connectionLost()  # gone at once, to come again
    assert len(reads) == PER_SOURCE  # the last one was refused before the journal was read
    assert "times in 30 s" in str(watch.client.failure)
    net.clock.advance(WINDOW)
    again = Watch(net, 2, 7600, host="10.0.0.70")
    again.pump()
    assert again.client.spectator is not None and len(reads) == PER_SOURCE + 1


def test_arrivals_are_bounded_in_all_and_refusals_do_not_count() -> None:
    arrivals = WatchArrivals()
    assert all(arrivals.refusal(f"10.1.0.{i}", 0.0) is None for i in range(TOTAL))
    assert "too many watchers" in (arrivals.refusal("10.2.0.1", 1.0) or "")
    for _ in range(100):  # refused: not counted, so the window still ends on time
        arrivals.refusal("10.2.0.1", 2.0)
    assert arrivals.refusal("10.2.0.1", WINDOW) is None


def test_a_seat_that_gives_its_watchers_other_names_or_rules_than_its_tables_is_refused(
        paused: MemNet) -> None:
    net, watchers = paused, paused.nodes[1].watchers
    honest = Watch(net, 1, 7701, host="10.0.0.81")
    honest.pump()
    assert honest.client.welcome is not None and honest.client.welcome.names == net.names
    watchers.names = net.names[::-1]  # who played what, told the other way round
    swapped = Watch(net, 1, 7702, host="10.0.0.82")
    swapped.pump()
    assert isinstance(swapped.client.failure, WatchError)
    assert "does not make its table id" in str(swapped.client.failure)
    watchers.names = net.names
    watchers.session.rules = Rules(players=4, throw_penalty=20)  # type: ignore[union-attr]
    other_rules = Watch(net, 1, 7703, host="10.0.0.83")
    other_rules.pump()
    assert "does not make its table id" in str(other_rules.client.failure)


def test_a_seat_that_cannot_show_what_its_table_id_binds_serves_no_watcher(
        paused: MemNet) -> None:
    paused.nodes[0].watchers.binding = None  # (a game resumed from an older journal)
    watch = Watch(paused, 0, 7801)
    watch.pump()
    assert "cannot show what its table id binds" in str(watch.client.failure)


def test_a_watcher_of_a_table_that_halts_on_an_equivocation_is_shown_the_evidence(
        paused: MemNet) -> None:
    net = paused
    watch = Watch(net, 1, 7901)
    watch.pump()
    said = net.sessions[3].say("well played")
    other = resign(said[0], net.keys[3], {"data": {"chat": "badly played"}})
    net.tamper[(3, 0)] = lambda frame: [other if frame == said[0] else frame]
    net.nodes[3].send(said)  # seat 0 is told one thing, seats 1 and 2 another

    def halted() -> bool:
        watch.pump()
        return all(node.halted is not None for node in net.nodes[:3])

    net.run(begin=False, until=halted, limit=net.clock.seconds() + 120)
    assert "seat 3" in str(net.nodes[1].halted)
    watch.pump()
    failure = watch.client.failure
    assert isinstance(failure, WatchRefused) and failure.seat == 3  # the seats' verdict
    assert "two different messages" in str(failure)


def test_a_watcher_of_a_table_halted_by_the_referee_is_shown_the_verdict() -> None:
    """Seat 1 never shuffles: the other seats vote and halt. The watchers (one there all
    along, one come after the halt) settle the same signed votes: the seats' verdict."""
    net = MemNet(seed=3, seated=True)
    for dst in (0, 2, 3):
        net.tamper[(1, dst)] = withhold("shuffle")
    watches: list[Watch] = []

    def halted() -> bool:
        if not watches:
            watches.append(Watch(net, 0, 7951))
        watches[0].pump()
        return all(node.halted is not None for node in (net.nodes[0], net.nodes[2]))

    net.run(until=halted, limit=2000)
    assert isinstance(net.nodes[0].halted, Stalled)
    late = Watch(net, 2, 7952)
    lines: list[str] = []
    follow = PlainFollowing(lines.append)  # `tractor watch --plain`
    late.client.on_change = lambda: follow.changed(late.client)
    for watch in (*watches, late):
        watch.pump()
        spectator = watch.client.spectator
        assert watch.client.failure is None and spectator is not None
        assert isinstance(spectator.halted, Stalled)
        assert (spectator.halted.seat, spectator.halted.what) == (1, "shuffle")
        assert str(spectator.halted) == str(net.nodes[0].halted)
    view = WatcherClient(late.client.spectator, net.names)  # the screens' words: the seats'
    view.changed()
    assert view.events()[-1] == verdict_text(net.nodes[0].halted, net.names)
    assert late.client.transport.disconnecting  # plain lines: the watch ends on it
    late.client.connectionLost()
    said: list[str] = []
    late.client.ended.addCallback(said.append)
    assert said == [view.events()[-1]]
    for node in net.nodes:
        node.stop()


def test_a_seat_that_sends_the_game_again_and_again_ends_the_watch(
        paused: MemNet, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watching, "MAX_COPIES", 5)
    watch = Watch(paused, 2, 8001)
    watch.pump()
    client = watch.client
    frame = paused.sessions[2].journal()[0]  # (the watcher has it: a copy)
    for _ in range(5):
        client.stringReceived(frame)
    assert client.failure is None  # a few copies are harmless
    client.stringReceived(frame)
    assert isinstance(client.failure, WatchError) and "sent before" in str(client.failure)


def test_a_frame_far_out_of_its_order_blames_the_seat_that_sent_it_not_its_signer() -> None:
    net = MemNet(seed=7)
    net.run(until=lambda: _mid_game(net))
    frame = net.sessions[2].current.deck.mine()[-1]
    h = msgpack.unpackb(frame, raw=False)[0]
    far = seal(Header(h[1], h[2], h[3], h[4] + 100_000, h[5], tuple(tuple(v) for v in h[6])),
               body_of(frame), net.keys[2])  # (signed: as if kept back that long)
    watcher = Spectator(net.rules, TABLE, [k.public_key() for k in net.keys])
    with pytest.raises(WatchRefused) as refused:
        watcher.take(far)
    assert refused.value.seat is None and "out of their order" in str(refused.value)
    for node in net.nodes:
        node.stop()


def test_watchers_and_would_be_watchers_do_not_keep_a_seat_from_reconnecting(
        paused: MemNet) -> None:
    net, node = paused, paused.nodes[3]
    node.admission.allow(f"tcp:198.18.0.{s + 1}:40000" for s in range(4))  # (the seating's)
    watches = [Watch(net, 3, 8100 + i, reads=False, host=f"10.0.1.{i}")
               for i in range(MAX_WATCHERS)]
    for watch in watches:
        watch.pump()
    assert len(node.watchers.served) == MAX_WATCHERS
    mute = [Watch(net, 3, 8200 + i, host=f"10.0.2.{i}") for i in range(12)]  # (no hello)
    assert any(w.link.closing for w in mute)  # strangers' places are few
    net.pairs[(0, 3)].close()  # seat 0's link drops: it dials again
    net.run(begin=False, until=lambda: 0 in node.links and node.links[0].up,
            limit=net.clock.seconds() + 30)
    assert node.links[0].up


def test_the_game_so_far_carries_no_key_of_a_card_still_in_the_seats_hand(
        paused: MemNet) -> None:
    net, deck = paused, paused.sessions[1].current.deck
    watch = Watch(net, 1, 8301, reads=False)
    watch.pump()
    served = b""
    while chunk := watch.link_side.take():  # (the seat writes on as its buffer drains)
        served += chunk
    assert len(served) > 100_000  # the welcome and the whole transcript so far
    held = [p for p, owner in enumerate(deck.owner) if owner == 1 and p not in deck.played]
    assert held
    for position in held:  # (a key of its own lock: with the others' it opens the card)
        assert deck._lock_key(position) not in served
    played = [p for p, owner in enumerate(deck.owner) if owner == 1 and p in deck.played]
    assert played and all(deck._lock_key(p) in served for p in played)  # (as they were shown)
