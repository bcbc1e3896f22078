"""The attacks of "trust on the LAN" that need no real network, each with the clock:
passphrase guessing from many addresses, an AI server asked for players by anyone, a
lying start message, a stranger on the mesh port. Each failed before its fix; each ends
with the genuine players getting what they came for."""

from __future__ import annotations

import os
from typing import Any

import pytest
from twisted.internet.address import IPv4Address
from twisted.internet.defer import Deferred
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.test.iosim import FakeTransport, connect

from tractor import Rules
from tractor.ai.hosting.runner import (
    MAX_AI_PROCESSES,
    MAX_PER_REQUESTER,
    SEAT_DEADLINE,
    AiPlayers,
    prune_journals,
)
from tractor.net.journal.store import Journal
from tractor.net.lobby.ai_pool import RECLAIM_AFTER
from tractor.net.lobby.errors import AiServerBusy, BadStart, WrongPassphrase
from tractor.net.lobby.guess_line import AttemptLimiter
from tractor.net.lobby.guest_protocol import LobbyGuest
from tractor.net.lobby.guest_state import GuestLobby
from tractor.net.lobby.host_protocol import LobbyHost
from tractor.net.lobby.host_state import HostLobby
from tractor.net.lobby.pake import GuestHandshake, HostHandshake
from tractor.net.lobby.seating import Participant
from tractor.net.lobby.tokens import TokenBook
from tractor.net.mesh.gate import Gate, Refused
from tractor.net.mesh.link import PeerLink
from tractor.net.mesh.wire import PeerNode

PASS = "plum tree"


# --- passphrase guessing ----------------------------------------------------------------------


_unused: dict[str, tuple[GuestHandshake, bytes]] = {}


def guess(limiter: AttemptLimiter, ip: str, now: float, passphrase: str = "wrong") -> str:
    """One online guess from ``ip``: what the host said. (A refused guesser sends the same
    hello again: making a new one for each refusal would only slow the test.)"""
    host = HostHandshake("t", PASS, TokenBook(), limiter, ip, ip)
    if passphrase not in _unused:
        g = GuestHandshake(passphrase)
        _unused[passphrase] = (g, g.hello())
    guest, hello = _unused[passphrase]
    welcome = host.receive(hello, now)
    if welcome.error is not None:
        return type(welcome.error).__name__
    if welcome.wait is not None:
        host.abort()  # told to wait in the table's line: it leaves, to ask again later
        return "Wait"
    del _unused[passphrase]
    step = guest.receive(welcome.send)
    if step.send is None:
        host.abort()  # the guesser learned its answer from the welcome and left
        return type(step.error).__name__
    done = host.receive(step.send, now)
    return "ok" if done.error is None else type(done.error).__name__


def test_guesses_from_forty_addresses_are_bounded_per_table_and_the_right_one_still_gets_in():
    limiter = AttemptLimiter()
    answered = 0
    # A host on the LAN with 40 addresses guesses as fast as it is let, for ten minutes.
    for second in range(600):
        for k in range(40):
            if guess(limiter, f"198.18.0.{10 + k}", float(second)) == "WrongPassphrase":
                answered += 1
    # Before the table-wide budget: 5 a minute per address, 2000 in ten minutes. Now the
    # 20 free, each address's one try as a newcomer, and the shared back-off.
    assert answered <= 60, answered
    assert limiter.wrong == answered
    # The person with the passphrase waits in the line at most one turn (15 s) while the
    # forty go on, then joins.
    waited = person_joins(limiter, "198.18.0.200", 600.0, lambda t: [
        guess(limiter, f"198.18.0.{10 + k}", t) for k in range(40)])
    assert waited <= 15.0


def person_joins(limiter: AttemptLimiter, ip: str, now: float,
                 strangers: Any = lambda t: None) -> float:
    """A person with the passphrase says hello at ``now`` and keeps the connection open
    while ``strangers(t)`` go on each second; the seconds until the person is in."""
    host = HostHandshake("t", PASS, TokenBook(), limiter, ip, ip)
    guest = GuestHandshake(PASS)
    t = now
    turn = [host.receive(guest.hello(), t)]
    if turn[0].wait is not None:  # no turn free: it waits in the line for the next one
        assert host.place is not None
        host.place.go = lambda: turn.append(host.proceed(t))
        while len(turn) == 1:
            t += 1.0
            assert t - now <= 600.0, "never had a turn"
            strangers(t)
            while (place := limiter.due(t)) is not None:
                place.go()
    step = guest.receive(turn[-1].send)
    assert host.receive(step.send, t).channel is not None
    return t - now


def test_the_host_is_told_of_every_wrong_guess_and_from_where():
    clock = Clock()
    host = LobbyHost(clock, "t", Rules(), None, PASS, clock=clock)
    told: list[str] = []
    host.on_warning = told.append
    for k in range(3):
        guest = LobbyGuest(clock, Participant(f"g{k}", bytes([k + 1]) * 32, 4000), "wrong",
                           clock=clock)
        client, server = guest.protocol(), host.protocol()
        pump = connect(server, FakeTransport(server, False, peerAddress=IPv4Address(
            "TCP", f"198.18.0.{20 + k}", 5000)), client, FakeTransport(client, True))
        pump.flush()
        guest.joined.addErrback(lambda f: None)
    assert host.limiter.wrong == 3
    assert told[-1] == "3 wrong passphrase guesses at this table, the last from 198.18.0.22"


def test_a_budget_exhausted_says_how_long_the_table_waits():
    limiter = AttemptLimiter(budget=2)
    for k in range(2):
        assert guess(limiter, f"10.0.0.{k}", 0.0) == "WrongPassphrase"
    host = HostHandshake("t", PASS, TokenBook(), limiter, "10.0.0.1", "x")  # tried before
    step = host.receive(GuestHandshake("x").hello(), 1.0)
    # A joiner waits in the table's line (it is told how long at most)...
    assert step.error is None and step.wait == limiter.hold and b"wait" in (step.send or b"")
    # ...and where there is no line (an AI server's fill requests) the refusal says when.
    assert limiter.why_not("10.0.0.5", 1.0) == \
        "too many wrong guesses at this table: try again in 14 s"


@pytest.mark.slow
def test_one_guessing_address_locks_out_neither_a_person_nor_the_ai_seats():
    # Before: past the budget the table took one attempt a minute from anyone, and the
    # guesser, retrying the moment the wait ended, took them all; seat-token handshakes
    # went through the same gate, so the AI players `fill` sent were refused too.
    limiter = AttemptLimiter()
    book = TokenBook()
    for second in range(1200):
        guess(limiter, "198.18.0.66", float(second))
    assert limiter.wrong <= 100  # 20 minutes: the 20 free, then one each 15 s
    # The person: the next turn is theirs, though the guesser asks every second.
    assert person_joins(limiter, "198.18.0.20", 1200.0,
                        lambda t: guess(limiter, "198.18.0.66", t)) <= 15.0
    (token,) = book.issue([3], 1200.0)
    host = HostHandshake("t", PASS, book, limiter, "198.18.0.66", "ai")  # even from there
    g = GuestHandshake(token=token)
    welcome = host.receive(g.hello(), 1200.0)
    step = g.receive(welcome.send)
    assert host.receive(step.send, 1200.0).channel is not None


# --- the AI server protects itself -------------------------------------------------------------


class FakeChild:
    """Stands for one spawned `tractor ai` process."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.alive = True
        self.ended: Deferred[Any] = Deferred()
        self.on_seated: Any = None
        self.stopping = False

    def seat(self) -> None:
        self.on_seated(self)

    def terminate(self) -> None:
        if self.alive:
            self.alive = False
            self.stopping = True
            self.ended.callback(self)

    def kill(self) -> None:
        self.terminate()


def players(tmp_path: Any = None) -> tuple[AiPlayers, Clock, list[tuple[str, FakeChild]]]:
    clock = Clock()
    started: list[tuple[str, FakeChild]] = []

    def spawn_one(lobby: str, token: bytes, table: str, name: str) -> FakeChild:
        child = FakeChild(name)
        started.append((lobby, child))
        return child

    return AiPlayers(clock, spawn_one, str(tmp_path) if tmp_path else None), clock, started


def test_one_requester_gets_a_table_of_ai_players_and_no_more():
    ai, clock, started = players()
    for _ in range(MAX_PER_REQUESTER):
        ai.spawn("tcp:198.18.0.66:4000", bytes(32), "t")
    with pytest.raises(RuntimeError, match=f"at most {MAX_PER_REQUESTER} players for one addr"):
        ai.spawn("tcp:198.18.0.66:4000", bytes(32), "t")
    for _, child in started:  # seated: still theirs, still counted
        child.seat()
    with pytest.raises(RuntimeError):
        ai.spawn("tcp:198.18.0.66:4000", bytes(32), "t")
    assert len(ai.children) == MAX_PER_REQUESTER


def test_an_ai_server_tells_a_host_of_players_its_ai_layer_refused_and_a_bug_goes_up():
    from tractor.net.lobby.ai_fill import AiServerMachine, fill_request_frame, read_fill_reply

    ai, _clock, _started = players()
    limiter = AttemptLimiter()

    def ask(spawn: Any, count: int) -> tuple[int, list[str]]:
        m = AiServerMachine(spawn, "198.18.0.66", "198.18.0.66:4000", limiter)
        frame, _ = fill_request_frame(m.greeting(), count, "tcp:10.0.0.1:4242",
                                      [bytes([k]) * 32 for k in range(count)], "t", "ai")
        return read_fill_reply(m.receive(frame, 0.0), "ai"), m.spawn_errors

    assert ask(ai.spawn, MAX_PER_REQUESTER) == (MAX_PER_REQUESTER, [])
    started, errors = ask(ai.spawn, 2)  # that address has its share: the AI layer refuses
    assert started == 0 and len(errors) == 1 and "at most" in errors[0]
    assert len(ai.children) == MAX_PER_REQUESTER

    def broken(*_args: Any) -> None:
        raise TypeError("a bug in the AI layer")

    with pytest.raises(TypeError):  # not passed off as a player that could not start
        ask(broken, 1)


def test_players_whose_lobby_never_starts_are_stopped_and_their_places_freed():
    ai, clock, started = players()
    for _ in range(3):
        ai.spawn("tcp:198.18.0.66:4000", bytes(32), "never starts")
    ai.spawn("tcp:198.18.0.5:4000", bytes(32), "real")
    real = started[-1][1]
    real.seat()
    for _ in range(int(SEAT_DEADLINE // 60) + 1):
        clock.advance(60)
        real.on_progress(real)  # its table plays on
    assert [c.alive for _, c in started] == [False, False, False, True]
    assert len(ai.children) == 1
    assert len(ai.pool) == 1


def test_a_full_server_makes_room_for_a_new_host_from_the_busiest_stranger():
    ai, clock, started = players()
    # Strangers from four addresses take every place with lobbies that never start
    # (before: eight requests of three filled the 24-process cap for everyone).
    share = MAX_AI_PROCESSES // 4
    for k in range(4):
        ai.admit(f"tcp:198.18.0.{60 + k}:4000", share)
        for _ in range(share):
            ai.spawn(f"tcp:198.18.0.{60 + k}:4000", bytes(32), "t")
        clock.advance(1)
    assert len(ai.children) == MAX_AI_PROCESSES
    clock.advance(RECLAIM_AFTER)  # none of their lobbies started meanwhile
    ai.admit("tcp:198.18.0.5:4000", 3)  # a genuine host asks for three
    for _ in range(3):
        ai.spawn("tcp:198.18.0.5:4000", bytes(32), "friday")
    mine = [c for lobby, c in started if "198.18.0.5:" in lobby]
    assert len(mine) == 3 and all(c.alive for c in mine)
    gone = [lobby for lobby, c in started if not c.alive]
    assert gone == ["tcp:198.18.0.60:4000"] * share  # the table idle the longest
    # Players whose table plays on are never stopped for a newcomer.
    for c in mine:
        c.seat()
    for _ in range(3):
        clock.advance(RECLAIM_AFTER / 2)
        for _, c in started:
            if c.alive:
                c.on_progress(c)
    with pytest.raises(AiServerBusy, match="busy: 21 of 24 players are at other tables"):
        ai.admit("tcp:198.18.0.7:4000", 6)
    assert all(c.alive for c in mine)


def test_journals_of_finished_or_abandoned_games_are_pruned(tmp_path):
    def journal(name: str, finished: bool | None) -> Any:
        path = tmp_path / name
        j = Journal(str(path))
        if finished is not None:
            j.db.execute("INSERT INTO games (id, seat, identity, master_seed, rules, table_id,"
                         " public_keys, first, shuffle_proof, created, finished) VALUES "
                         "(?,?,?,?,?,?,?,?,?,?,?)",
                         ("g", 0, b"", b"", "{}", b"", b"", 0, "linear", 0.0, int(finished)))
            j.db.commit()
        j.close()
        return path

    now = 100 * 86400.0
    over = journal("ai-over.sqlite", True)
    just_over = journal("ai-just-over.sqlite", True)
    going = journal("ai-going.sqlite", False)
    old = journal("ai-old.sqlite", False)
    for path, age_days in [(over, 2), (just_over, 0.5), (going, 3), (old, 15)]:
        os.utime(path, (now - age_days * 86400, now - age_days * 86400))
    other = tmp_path / "notes.txt"
    other.write_text("not ours")
    deleted = prune_journals(str(tmp_path), now)
    assert sorted(deleted) == ["ai-old.sqlite", "ai-over.sqlite"]
    assert going.exists() and just_over.exists() and other.exists()


# --- a lying start message ----------------------------------------------------------------------


def started(addresses: list[str], lobby_ip: str) -> Any:
    rules = Rules()
    host = HostLobby("t", rules, None)
    me = Participant("me", b"\x01" * 32, 5001)
    guest = GuestLobby(me)
    guest.lobby_ip = lobby_ip
    keys = [bytes([s + 1]) * 32 for s in range(4)]
    from tractor.net.lobby.seating import seating_id

    names, kinds = ["me", "b", "c", "d"], ["human"] * 4
    addrs = dict(enumerate(addresses))
    nonce = b"\x07" * 16
    table = seating_id("t", rules, keys, addrs, names, kinds, nonce, None)
    del host
    return guest.verify_start({"t": "start", "name": "t", "rules": rules.to_data(),
                               "keys": keys, "addresses": addresses, "names": names,
                               "kinds": kinds, "nonce": nonce, "table": table,
                               "carry": None})


@pytest.mark.parametrize("bad", ["tcp:8.8.8.8:53", "tcp:127.0.0.1:22", "tcp:224.0.0.1:9",
                                 "tcp:0.0.0.0:9", "tcp:255.255.255.255:9"])
def test_a_start_pointing_guests_at_a_third_host_is_refused(bad):
    good = ["tcp:198.18.0.2:5001", "tcp:198.18.0.3:5002", "tcp:198.18.0.4:5003"]
    assert started([*good, "tcp:198.18.0.5:5004"], "198.18.0.9").seat == 0
    with pytest.raises(BadStart, match="the start names"):
        started([*good, bad], "198.18.0.9")


# --- the mesh port ---------------------------------------------------------------------------


def mesh_node(seat: int) -> tuple[PeerNode, Any]:
    from test_wire_hostile import seated_game  # the same seated four-peer game

    from tractor.net.mesh.loopback import raw_public

    d, sessions = seated_game()
    clock = Clock()
    node = PeerNode(clock, sessions[seat], [raw_public(k) for k in d.signing_keys])
    node.clock = clock
    node.admission.allowed_ips = {"198.18.0.2", "198.18.0.3"}  # what `dial` learns from the seating
    return node, d


def incoming(node: PeerNode, ip: str) -> tuple[PeerLink, StringTransport]:
    link = PeerLink(node)
    transport = StringTransport(peerAddress=IPv4Address("TCP", ip, 4000))
    link.makeConnection(transport)
    return link, transport


def test_the_mesh_gives_strangers_a_small_share_and_a_short_deadline():
    node, _ = mesh_node(0)
    strangers = [incoming(node, "198.18.0.66") for _ in range(3)]
    assert [t.disconnecting for _, t in strangers] == [False, False, True]
    held = [incoming(node, "198.18.0.2") for _ in range(4)]
    assert all(not t.disconnecting for _, t in held)
    _, fifth = incoming(node, "198.18.0.2")
    assert fifth.disconnecting  # four unproven from one address at most (4 seats)
    node.clock.advance(3.0)  # a stranger has 3 s to prove a seat, a named address 10 s
    assert [t.disconnecting for _, t in strangers[:2]] == [True, True]
    assert not any(t.disconnecting for _, t in held)
    assert node.admission.strangers == {"198.18.0.66": 1, "198.18.0.2": 1}


def test_a_seat_dialing_from_an_address_the_seating_does_not_name_still_links():
    # A machine with two networks: the seating names its wired address, its connection
    # to this seat leaves from the other one. Before, the mesh refused it for ever.
    import random

    from test_wire_hostile import TABLE, sent_frames

    from tractor.net.mesh.handshake import open_hello, pack_hello, pack_proof

    node, d = mesh_node(3)
    link, transport = incoming(node, "192.168.1.10")
    theirs = open_hello(sent_frames(transport)[0], TABLE, node.raw_keys, 1)
    mine = random.Random(1).randbytes(32)
    link.stringReceived(pack_hello(TABLE, 1, node.raw_keys[1], mine))
    link.stringReceived(pack_proof(d.signing_keys[1], TABLE, 1, 3, theirs.nonce, mine))
    assert link.up and node.links[1] is link
    assert "192.168.1.10" in node.admission.allowed_ips  # its reconnections count as known now
    node.clock.advance(5.0)
    assert not transport.disconnecting


def test_the_gate_evicts_only_from_a_source_holding_more_than_the_newcomer():
    gate = Gate(per_source=4, total=4)
    for key, ip, t in [("a", "10.0.0.1", 0.0), ("b", "10.0.0.1", 1.0), ("c", "10.0.0.2", 2.0),
                       ("d", "10.0.0.2", 3.0)]:
        assert gate.admit(key, ip, t) == []
    with pytest.raises(Refused):
        gate.admit("e", "10.0.0.2", 4.0)  # as many as anyone: it may not push one out
    gate.settle("c")
    assert gate.admit("f", "10.0.0.3", 5.0) == ["a"]  # the oldest of the busiest
    assert gate.admit("g", "10.0.0.4", 6.0) == ["b"]
    assert gate.admit("h", "10.0.0.5", 7.0) == ["d"]
    with pytest.raises(Refused):  # one each now, and c proved itself
        gate.admit("i", "10.0.0.5", 8.0)
    assert gate.turned_away == {"10.0.0.2": 2, "10.0.0.1": 2, "10.0.0.5": 1}


# --- an AI server with a passphrase ----------------------------------------------------------


def test_an_ai_server_passphrase_is_proven_before_anything_is_spawned():
    from tractor.net.lobby.ai_fill import AiServerMachine, fill_request_frame, read_fill_reply
    from tractor.net.lobby.errors import PassphraseRequired
    from tractor.net.lobby.seating import fingerprint

    spawned: list[Any] = []
    limiter = AttemptLimiter()

    def machine(ip: str = "198.18.0.5") -> AiServerMachine:
        return AiServerMachine(lambda *a: spawned.append(a), ip, ip, limiter,
                               passphrase="orchard at noon")

    def ask(m: AiServerMachine, passphrase: str | None) -> Any:
        frame, identity = fill_request_frame(m.greeting(), 1, "tcp:10.0.0.1:4242",
                                             [b"t" * 32], "t", "ai", passphrase=passphrase)
        assert fingerprint(identity) == fingerprint(
            m.identity.public_key().public_bytes_raw())  # type: ignore[union-attr]
        return m.receive(frame, 0.0)

    with pytest.raises(PassphraseRequired):  # the host side stops: no token leaves
        ask(machine(), None)
    with pytest.raises(WrongPassphrase):
        ask(machine(), "orchard at dusk")
    assert spawned == [] and limiter.wrong == 1
    assert read_fill_reply(ask(machine(), "orchard at noon"), "ai") == 1
    assert spawned == [("tcp:198.18.0.5:4242", b"t" * 32, "t")]
    # A request that skips the proof (a hostile host) is refused and counted too.
    m = machine("198.18.0.66")
    m.greeting()
    from nacl.public import SealedBox
    bare = SealedBox(m.box_key.public_key).encrypt(msgpack_request())
    with pytest.raises(PassphraseRequired):
        m.receive(bare, 0.0)
    assert len(spawned) == 1 and limiter.wrong == 2


def test_a_key_exchange_message_spake2_refuses_is_refused_by_the_ai_server_and_its_host():
    import msgpack
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from nacl.public import PrivateKey, SealedBox

    from tractor.net.lobby.ai_fill import (
        FILL_VERSION,
        GREETING_CONTEXT,
        AiServerMachine,
        fill_request_frame,
    )
    from tractor.net.lobby.errors import BadLobbyMessage

    # One of each kind `pake.KEY_EXCHANGE_REFUSALS` names: a point not on the curve, the
    # zero point (each from the other side), a message from the same side.
    def refused(other: bytes, same: bytes) -> list[tuple[str, bytes]]:
        return [("NotOnCurve", other + bytes([2]) + bytes(31)),
                ("ValueError", other + bytes([1]) + bytes(31)), ("OffSides", same + bytes(32))]

    spawned: list[Any] = []
    limiter = AttemptLimiter()
    for kind, message in refused(b"A", b"B"):  # to the server, SPAKE2's side B
        m = AiServerMachine(lambda *a: spawned.append(a), "198.18.0.7", "198.18.0.7", limiter,
                            passphrase="orchard at noon")
        m.greeting()
        request = msgpack.packb({"fill": 1, "lobby": "tcp:10.0.0.1:4242", "tokens": [b"t" * 32],
                                 "table": "t", "pake": message, "confirm": bytes(32)})
        with pytest.raises(BadLobbyMessage, match=f"bad key exchange message: {kind}"):
            m.receive(SealedBox(m.box_key.public_key).encrypt(request), 0.0)
    assert spawned == [] and limiter.wrong == 3  # each one a wrong guess
    identity = Ed25519PrivateKey.generate()
    box = bytes(PrivateKey.generate().public_key)
    for kind, message in refused(b"B", b"A"):  # to the host, side A, in a signed greeting
        greeting = msgpack.packb({"v": FILL_VERSION, "box": box, "pake": message,
                                  "id": identity.public_key().public_bytes_raw(),
                                  "sig": identity.sign(GREETING_CONTEXT + box + message)})
        with pytest.raises(BadLobbyMessage, match=f"bad key exchange message: {kind}"):
            fill_request_frame(greeting, 1, "tcp:10.0.0.1:4242", [b"t" * 32], "t", "ai",
                               passphrase="orchard at noon")


def msgpack_request() -> bytes:
    import msgpack
    return msgpack.packb({"fill": 1, "lobby": "tcp:10.0.0.1:4242", "tokens": [b"t" * 32],
                          "table": "t"})


def test_an_ai_server_bounds_open_requests_per_address():
    from tractor.net.lobby.ai_server import AiServer

    clock = Clock()
    server = AiServer(clock, lambda *a: None, clock=clock)
    links = []
    for _ in range(6):
        proto = server.protocol()
        transport = StringTransport(peerAddress=IPv4Address("TCP", "198.18.0.66", 4000))
        proto.makeConnection(transport)
        links.append(transport)
    # Four silent requests held from one address; the fifth and sixth are closed at once.
    assert [t.disconnecting for t in links] == [False] * 4 + [True] * 2
    proto = server.protocol()
    other = StringTransport(peerAddress=IPv4Address("TCP", "198.18.0.5", 4000))
    proto.makeConnection(other)
    assert not other.disconnecting and other.value()  # a genuine host is greeted


def test_a_stranger_is_refused_when_only_the_reserve_of_descriptors_is_left(monkeypatch):
    import tractor.net.mesh.gate as gate
    from tractor.net.lobby.host_protocol import LobbyHost

    clock = Clock()
    host = LobbyHost(clock, "t", Rules(), None, clock=clock)
    left = [gate.DESCRIPTOR_RESERVE + 1]
    monkeypatch.setattr(gate, "descriptors_left", lambda: left[0])
    ok = StringTransport(peerAddress=IPv4Address("TCP", "198.18.0.5", 4000))
    host.protocol().makeConnection(ok)
    left[0] = gate.DESCRIPTOR_RESERVE
    refused = StringTransport(peerAddress=IPv4Address("TCP", "198.18.0.6", 4000))
    host.protocol().makeConnection(refused)
    assert not ok.disconnecting and refused.disconnecting


def test_descriptors_left_counts_this_process():
    from tractor.net.mesh.gate import descriptors_left

    before = descriptors_left()
    if before is None:
        pytest.skip("no /proc here")
    files = [open(os.devnull) for _ in range(10)]
    try:
        assert descriptors_left() == before - 10
    finally:
        for f in files:
            f.close()


def test_a_fast_flood_from_many_addresses_cannot_push_out_a_joiner_before_its_first_word():
    # Before: the oldest stranger was evicted for each newcomer, so a flood re-opening
    # thousands of connections a second pushed a joiner out before its hello was read.
    gate = Gate(per_source=8, total=16, min_age=2.0)
    for k in range(16):
        gate.admit(("stranger", k), f"10.0.1.{k}", 0.0)
    assert gate.admit("joiner", "10.0.0.5", 5.0) == [("stranger", 0)]
    evicted: list[Any] = []
    refused = 0
    for k in range(16, 1016):  # a thousand more within the next millisecond
        try:
            evicted += gate.admit(("stranger", k), f"10.0.1.{k % 250}", 5.0 + k * 1e-6)
        except Refused:
            refused += 1
    assert "joiner" in gate and "joiner" not in evicted
    assert len(evicted) == 15 and refused == 985  # only strangers older than 2 s went
    gate.settle("joiner")  # its hello came: a handshake under way is never evicted
    assert gate.admit(("stranger", 9999), "10.0.1.1", 60.0) != ["joiner"]


# --- what the outside review found ----------------------------------------------------------


def test_refusals_from_one_address_keep_neither_memory_nor_the_log_growing():
    from twisted.logger import LogLevel, capturedLogs

    from tractor.net.lobby.framing import MAX_ERRORS

    clock = Clock()
    host = LobbyHost(clock, "t", Rules(), None, PASS, clock=clock)
    hello = GuestHandshake(None).hello()  # "none" at a passphrase table: refused, free
    with capturedLogs() as events:
        for k in range(2000):
            link = host.protocol()
            transport = StringTransport(peerAddress=IPv4Address("TCP", "198.18.0.66", k))
            link.makeConnection(transport)
            link.stringReceived(hello)
            assert transport.disconnecting
            link.connectionLost(None)
    assert len(host.errors) == MAX_ERRORS
    assert all(e.__traceback__ is None for e in host.errors)
    warnings = [e for e in events if e["log_level"] == LogLevel.warn]
    assert len(warnings) <= 6, len(warnings)  # 5 a minute, then one line saying so
    assert len(host.gate) == 0 and host.limiter.wrong == 0


def test_an_open_tables_handshake_does_not_make_a_connection_unevictable():
    clock = Clock()
    host = LobbyHost(clock, "t", Rules(), None, None, clock=clock)
    link = host.protocol()
    link.makeConnection(StringTransport(peerAddress=IPv4Address("TCP", "198.18.0.66", 1)))
    link.stringReceived(GuestHandshake(None).hello())
    assert link.handshake.mode == "none" and not link.closing  # an open table asks nothing
    assert host.gate.pending() == 1  # so it is a stranger, evictable, until it holds a seat


def test_an_ai_server_protects_a_new_request_and_rations_passphrase_greetings():
    from tractor.net.lobby.ai_server import GREETINGS_PER_MINUTE, AiServer
    from tractor.net.lobby.framing import SILENT_GRACE

    clock = Clock()
    server = AiServer(clock, lambda *a: None, clock=clock, passphrase="orchard at noon")
    assert server.gate.min_age == SILENT_GRACE
    greeted = 0
    for k in range(GREETINGS_PER_MINUTE + 5):  # connect, read the greeting, leave
        proto = server.protocol()
        transport = StringTransport(peerAddress=IPv4Address("TCP", "198.18.0.66", k))
        proto.makeConnection(transport)
        greeted += bool(transport.value())
        proto.connectionLost(None)
    assert greeted == GREETINGS_PER_MINUTE
    clock.advance(61)
    proto = server.protocol()
    transport = StringTransport(peerAddress=IPv4Address("TCP", "198.18.0.66", 99))
    proto.makeConnection(transport)
    assert transport.value()


# --- what the second review found -------------------------------------------------------------


def test_a_newcomer_past_the_budget_waits_in_the_line_instead_of_being_refused():
    limiter = AttemptLimiter(budget=2, interval=4.0)
    for ip in ("10.0.0.1", "10.0.0.2"):  # the budget
        limiter.fail(limiter.start(ip, 0.0))
    place = limiter.enter("10.0.0.9", 1.0)
    assert not isinstance(place, str) and not limiter.take(place, 1.0)  # it waits...
    assert limiter.due(3.9) is None and limiter.due(4.0) is place  # ...for the next turn


def test_seat_token_handshakes_are_rationed_per_address():
    import msgpack

    from tractor.net.lobby.guess_line import TOKEN_HANDSHAKES
    from tractor.net.lobby.tokens import token_id

    book = TokenBook()
    (token,) = book.issue([3], 0.0)
    limiter = AttemptLimiter()
    hello = msgpack.unpackb(GuestHandshake(token=bytes(32)).hello(), raw=False)
    hello["tid"] = token_id(token)  # a sniffer with the live id, over and over
    answered = 0
    for _ in range(TOKEN_HANDSHAKES + 10):
        host = HostHandshake("t", PASS, book, limiter, "198.18.0.66", "x")
        answered += host.receive(msgpack.packb(hello), 0.0).error is None
        host.abort()
    assert answered == TOKEN_HANDSHAKES and limiter.wrong == 0
    g = GuestHandshake(token=token)  # the AI itself, from its own address
    host = HostHandshake("t", PASS, book, limiter, "198.18.0.5", "ai")
    step = g.receive(host.receive(g.hello(), 0.0).send)
    assert host.receive(step.send, 0.0).channel is not None


def test_a_flood_that_closes_its_own_connections_young_evicts_nobody():
    gate = Gate(per_source=4, total=4, min_age=2.0)
    for k in range(4):
        gate.admit(("old", k), f"10.0.1.{k}", 0.0)
    # One address opens and closes its own connections before they age: never refused,
    # but past twice its share in 5 s it may not push anyone out.
    for k in range(8):
        gate.release(("old", 0)) if k == 0 else None
        try:
            gate.admit(("churn", k), "10.0.9.9", 3.0 + k * 0.1)
        except Refused:
            pass
        gate.release(("churn", k))
    gate.admit(("old", 0), "10.0.1.0", 3.9)
    with pytest.raises(Refused, match="by an address this busy"):
        gate.admit(("churn", 99), "10.0.9.9", 4.0)
    assert gate.admit("person", "10.0.0.5", 4.0) == [("old", 1)]
