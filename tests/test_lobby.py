"""The lobby state machines without sockets (seats, ready flags, leaving, the start and its
verification, hostile messages), then the Twisted protocols over in-memory transports
(`twisted.test.iosim`) with a `task.Clock`, and the AI server's fill endpoint."""

from __future__ import annotations

import copy
import random
from typing import Any

import msgpack
import pytest
from nacl.public import PrivateKey, SealedBox
from twisted.internet.address import IPv4Address
from twisted.internet.defer import ensureDeferred
from twisted.internet.error import ConnectionRefusedError, DNSLookupError
from twisted.internet.protocol import Protocol
from twisted.internet.task import Clock
from twisted.internet.testing import MemoryReactorClock
from twisted.logger import LogLevel, capturedLogs
from twisted.python.failure import Failure
from twisted.test.iosim import FakeTransport, connect

from tractor import Rules
from tractor.net.lobby.addresses import parse_endpoint
from tractor.net.lobby.ai_fill import AiServerMachine, fill_request_frame, read_fill_reply
from tractor.net.lobby.ai_server import AiServer, FillClientLink
from tractor.net.lobby.errors import (
    BadLobbyMessage,
    BadStart,
    LobbyClosed,
    LobbyError,
    NoAiServer,
    TableFull,
    TooManyAttempts,
)
from tractor.net.lobby.guess_line import AttemptLimiter
from tractor.net.lobby.guest_protocol import LobbyGuest, join_table
from tractor.net.lobby.guest_state import GuestLobby
from tractor.net.lobby.host_protocol import LobbyHost
from tractor.net.lobby.host_state import HostLobby
from tractor.net.lobby.seating import Participant, Roster, Seating, seating_id
from tractor.net.lobby.tokens import TOKEN_TTL, token_id
from tractor.net.mesh.endpoints import endpoint_string

NAME = "Friday"


def person(i: int, kind: str = "human", seat: int | None = None) -> Participant:
    return Participant(f"player {i}", bytes([i + 1]) * 32, 41000 + i, kind, seat)


def join_msg(p: Participant) -> dict[str, Any]:
    return GuestLobby(p).join_message()


def lobby(me: Participant | None = None, players: int = 4) -> HostLobby:
    state = HostLobby(NAME, Rules(players=players), me if me is not None else person(0),
                      nonce=b"n" * 16)
    return state


def seat_guests(state: HostLobby, people: list[Participant], ip: str = "192.0.2.20"
                ) -> dict[int, GuestLobby]:
    """Connect and join every participant; returns conn -> their GuestLobby, fed every
    message the host sent them."""
    guests = {}
    for i, p in enumerate(people, start=1):
        state.connect(i, f"{ip}:{5000 + i}", ip, "192.0.2.1")
        guests[i] = GuestLobby(p)
        deliver(guests, state.receive(i, join_msg(p), 0.0))
    return guests


def deliver(guests: dict[int, GuestLobby], sends) -> list[Any]:
    out = []
    for conn, msg in sends:
        if conn in guests:
            out.append(guests[conn].receive(copy.deepcopy(msg)))
    return out


def snapshot(state: HostLobby) -> Any:
    return (repr(state.seats), repr(sorted(state.conns.items())), state.seating,
            state.tokens.reserved(0.0))


# --- participants and addresses ------------------------------------------------------------


def test_participants_are_checked_when_made():
    for bad in [dict(name=""), dict(name="x" * 33), dict(name="a\x1bb"), dict(name=" pad"),
                dict(public_key=b"k" * 31), dict(game_port=0), dict(game_port=True),
                dict(kind="robot"), dict(wanted_seat=-1)]:
        args = dict(name="Ann", public_key=b"k" * 32, game_port=4000, kind="human",
                    wanted_seat=None) | bad
        with pytest.raises(ValueError):
            Participant(**args)


def test_endpoint_strings_round_trip_and_refuse_anything_but_ip_literals():
    assert endpoint_string("192.0.2.5", 40123) == "tcp:192.0.2.5:40123"
    assert endpoint_string("::ffff:192.0.2.5", 1) == "tcp:192.0.2.5:1"
    assert parse_endpoint(endpoint_string("fe80::1", 80)) == ("fe80::1", 80)
    for bad in ["tcp:example.com:80", "unix:/tmp/x", "ssl:1.2.3.4:80:privateKey=/etc/x",
                "tcp:1.2.3.4:0", "tcp:1.2.3.4:99999", "tcp:1.2.3.4:80:timeout=1",
                "tcp:01.2.3.4:80", 5, "tcp:" + "1" * 90]:
        with pytest.raises(BadLobbyMessage):
            parse_endpoint(bad)


# --- seats ---------------------------------------------------------------------------------


def test_seats_go_to_the_wanted_seat_if_free_else_the_lowest_free_one():
    state = lobby(person(0, seat=2))
    guests = seat_guests(state, [person(1, seat=3), person(2, seat=3), person(3)])
    assert [g.roster.you for g in guests.values()] == [3, 0, 1]
    assert state.host_seat() == 2
    roster = state.roster(0.0)
    assert roster.full and not roster.all_ready
    assert [s.name for s in roster.seats if s] == ["player 2", "player 3", "player 0",
                                                   "player 1"]


def test_every_change_is_broadcast_to_every_joined_participant():
    state = lobby()
    guests = seat_guests(state, [person(1), person(2)])
    sends = state.receive(1, {"t": "ready", "ready": True}, 0.0)
    assert sorted(c for c, _ in sends) == [1, 2]
    rosters = deliver(guests, sends)
    assert all(isinstance(r, Roster) and r.seats[1].ready for r in rosters)
    assert [r.you for r in rosters] == [1, 2]


def test_a_full_table_refuses_the_next_joiner_without_changing_anything():
    state = lobby()
    seat_guests(state, [person(1), person(2), person(3)])
    state.connect(9, "192.0.2.99:1", "192.0.2.99", "192.0.2.1")
    before = snapshot(state)
    with pytest.raises(TableFull, match="192.0.2.99:1"):
        state.receive(9, join_msg(person(9)), 0.0)
    assert snapshot(state) == before


def test_start_only_when_every_seat_is_taken_and_everybody_is_ready():
    state = lobby()
    guests = seat_guests(state, [person(1), person(2)])
    for c in guests:
        assert not any(m["t"] == "start" for _, m in state.receive(
            c, guests[c].ready_message(True), 0.0))
    state.host_ready(True, 0.0)
    assert not state.started  # a seat is still empty
    state.host_ready(False, 0.0)
    guests |= seat_guests_from(state, 3, person(3))
    state.receive(3, guests[3].ready_message(True), 0.0)
    assert not state.started  # the host is not ready
    state.receive(3, guests[3].ready_message(False), 0.0)  # unready again
    sends = state.host_ready(True, 0.0)
    assert not state.started and not any(m["t"] == "start" for _, m in sends)
    sends = state.receive(3, guests[3].ready_message(True), 0.0)
    starts = [(c, m) for c, m in sends if m["t"] == "start"]
    assert sorted(c for c, _ in starts) == [1, 2, 3] and state.started
    seatings = [s for s in deliver(guests, sends) if isinstance(s, Seating)]
    host = state.seating
    assert host is not None and host.seat == 0
    assert [s.seat for s in seatings] == [1, 2, 3]
    for s in seatings:
        assert s.__class__(**{**s.__dict__, "seat": 0}) == host  # identical except the seat
    assert host.table == seating_id(NAME, host.rules, host.keys, host.addresses, host.names,
                                    host.kinds, b"n" * 16)
    # After the start the lobby takes no more messages.
    with pytest.raises(LobbyClosed):
        state.receive(1, {"t": "ready", "ready": False}, 0.0)


def test_ai_seats_say_their_level_and_every_seat_of_the_start_knows_it():
    """An AI says its level when it joins (`tractor ai --level`); the start tells every
    seat (for `tractor stats`), outside the table id. An odd level from the network is a
    level not known, never a refusal; a person's join, and a start of people only, are
    as they were."""
    state = lobby()
    hard = Participant("AI", bytes([2]) * 32, 41001, "ai", level="hard")
    assert join_msg(hard)["level"] == "hard" and "level" not in join_msg(person(3))
    guests = seat_guests(state, [hard])
    odd = join_msg(Participant("AI", bytes([9]) * 32, 41009, "ai"))
    for conn, bad in enumerate(("HARD", "x" * 500, 5, ["hard"], None, "hard\n", "hard"), 2):
        state.connect(conn, f"192.0.2.20:{5000 + conn}", "192.0.2.20", "192.0.2.1")
        state.receive(conn, odd | {"level": bad}, 0.0)  # sits: an odd level is not known
        member = state.seats[2]
        assert member is not None and member.participant.level == (
            "hard" if bad == "hard" else None)
        if bad != "hard":
            state.drop(conn, 0.0)
    guests |= seat_guests_from(state, 20, person(3))  # a person says no level
    for c in (1, 8):
        state.receive(c, {"t": "ready", "ready": True}, 0.0)
    state.receive(20, guests[20].ready_message(True), 0.0)
    sends = state.host_ready(True, 0.0)
    start = next(m for _, m in sends if m["t"] == "start")
    assert start["ai_levels"] == [None, "hard", "hard", None]
    host = state.seating
    assert host is not None and host.levels == (None, "hard", "hard", None)
    assert host.table == seating_id(NAME, host.rules, host.keys, host.addresses, host.names,
                                    host.kinds, b"n" * 16)  # the levels are not in it
    seating = guests[20].receive(copy.deepcopy(start))
    assert isinstance(seating, Seating) and seating.level_of(1) == "hard"
    assert seating.level_of(0) is None and seating.level_of(7) is None
    # A start's levels from a hostile host: only AI seats' levels of the right shape.
    for levels, said in ((["hard", "easy", "HARD", "easy"], (None, "easy", None, None)),
                         (["hard"] * 3, ()), ("hard", ()), ([None] * 4, ())):
        seating = GuestLobby(person(3)).verify_start(copy.deepcopy(start) | {"ai_levels": levels})
        assert isinstance(seating, Seating) and seating.levels == said
    with pytest.raises(ValueError):
        Participant("Ann", bytes(32), 4000, "human", level="hard")  # a person has none
    people = lobby()
    seat_guests(people, [person(1), person(2), person(3)])
    for c in (1, 2, 3):
        people.receive(c, {"t": "ready", "ready": True}, 0.0)
    start = next(m for _, m in people.host_ready(True, 0.0) if m["t"] == "start")
    assert "ai_levels" not in start and people.seating is not None
    assert people.seating.levels == ()


def seat_guests_from(state: HostLobby, conn: int, p: Participant) -> dict[int, GuestLobby]:
    state.connect(conn, f"192.0.2.30:{conn}", "192.0.2.30", "192.0.2.1")
    guest = GuestLobby(p)
    deliver({conn: guest}, state.receive(conn, join_msg(p), 0.0))
    return {conn: guest}


def test_leaving_or_dropping_frees_the_seat_for_the_next_joiner():
    state = lobby()
    guests = seat_guests(state, [person(1), person(2)])
    sends = state.receive(1, {"t": "leave"}, 0.0)
    assert state.seats[1] is None and sorted(c for c, _ in sends) == [2]
    deliver(guests, sends)
    assert guests[2].roster is not None and guests[2].roster.seats[1] is None
    state.drop(2, 0.0)
    assert state.seats[2] is None and state.joined() == []
    seat_guests_from(state, 7, person(7))
    assert state.seats[1] is not None and state.seats[1].participant.name == "player 7"


def test_a_key_already_seated_is_refused():
    state = lobby()
    seat_guests(state, [person(1)])
    state.connect(5, "x:1", "192.0.2.5", "192.0.2.1")
    twin = Participant("twin", person(1).public_key, 4000)
    with pytest.raises(BadLobbyMessage, match="already holds a seat"):
        state.receive(5, join_msg(twin), 0.0)


def test_a_host_that_only_hosts_ai_has_no_seat_and_starts_with_seat_minus_one():
    state = HostLobby(NAME, Rules(), None, nonce=b"n" * 16)
    guests = seat_guests(state, [person(i, "ai") for i in range(1, 5)])
    with pytest.raises(LobbyError, match="does not hold a seat"):
        state.host_ready(True, 0.0)
    for c in guests:
        deliver(guests, state.receive(c, {"t": "ready", "ready": True}, 0.0))
    assert state.seating is not None and state.seating.seat == -1
    assert [g.seating.seat for g in guests.values()] == [0, 1, 2, 3]


def test_game_addresses_use_the_lan_address_for_the_host_and_same_machine_joiners():
    state = lobby()
    state.connect(1, "a", "192.0.2.20", "192.0.2.1")  # a LAN player
    state.connect(2, "b", "127.0.0.1", "127.0.0.1")  # an AI on the host's machine
    state.connect(3, "c", "::ffff:192.0.2.21", "::ffff:192.0.2.1")  # IPv4 on a v6 socket
    for c, p in [(1, person(1)), (2, person(2, "ai")), (3, person(3))]:
        state.receive(c, join_msg(p), 0.0)
    assert state.game_addresses() == {0: "tcp:192.0.2.1:41000", 1: "tcp:192.0.2.20:41001",
                                      2: "tcp:192.0.2.1:41002", 3: "tcp:192.0.2.21:41003"}
    # Everybody on one machine: loopback everywhere.
    local = lobby()
    for c in (1, 2, 3):
        local.connect(c, "l", "127.0.0.1", "127.0.0.1")
        local.receive(c, join_msg(person(c)), 0.0)
    assert set(local.game_addresses().values()) == {f"tcp:127.0.0.1:{41000 + i}"
                                                     for i in range(4)}


def test_ai_tokens_reserve_their_seats_until_used_or_expired():
    state = lobby()
    seat_guests(state, [person(1)])
    tokens = state.issue_tokens(0.0)
    assert len(tokens) == 2 and state.roster(0.0).reserved == (2, 3)
    assert state.issue_tokens(0.0) == []  # nothing left to ask for
    # A human asking for a reserved seat is turned away from it, and the table counts as full.
    state.connect(5, "h:5", "192.0.2.5", "192.0.2.1")
    with pytest.raises(TableFull):
        state.receive(5, join_msg(person(5, seat=3)), 0.0)
    # The token holder gets its seat.
    tid = token_id(tokens[1])
    state.tokens.begin(tid, 1.0, "ai")
    state.tokens.succeed(tid)
    state.connect(6, "ai:6", "127.0.0.1", "127.0.0.1", token=tid)
    state.receive(6, join_msg(person(6, "ai")), 1.0)
    assert state.seats[3] is not None and state.seats[3].participant.kind == "ai"
    assert state.roster(1.0).reserved == (2,)
    # The other reservation lapses after TOKEN_TTL; the seat opens to anyone.
    state.receive(5, join_msg(person(5)), TOKEN_TTL + 1)
    assert state.seats[2] is not None and state.seats[2].participant.name == "player 5"


def hostile_messages(rng: random.Random, count: int):
    good = join_msg(person(4))
    mutations = [
        lambda m: {**m, "name": ""}, lambda m: {**m, "name": "x" * 33},
        lambda m: {**m, "name": "evil\x1b[2J"}, lambda m: {**m, "name": 5},
        lambda m: {**m, "key": b"k" * 31}, lambda m: {**m, "key": "k" * 32},
        lambda m: {**m, "port": True}, lambda m: {**m, "port": 0}, lambda m: {**m, "port": 70000},
        lambda m: {**m, "port": 4.5}, lambda m: {**m, "kind": "god"},
        lambda m: {**m, "seat": -1}, lambda m: {**m, "seat": 99}, lambda m: {**m, "seat": "0"},
        lambda m: {**m, "extra": 1}, lambda m: {k: v for k, v in m.items() if k != "key"},
        lambda m: {**m, "t": "ready"}, lambda m: {**m, "t": "start"},
        lambda m: {**m, "t": 7}, lambda m: [m], lambda m: None, lambda m: "join",
        lambda m: {**m, "key": person(1).public_key},  # a seated key
    ]
    for i in range(count):
        yield mutations[i % len(mutations)](dict(good)) if i % 3 else rng.choice(
            [rng.randbytes(8), rng.random(), {rng.randbytes(2).hex(): 1}, [None] * 5])


def test_hostile_join_messages_raise_typed_errors_and_change_nothing():
    rng = random.Random(11)
    state = lobby()
    seat_guests(state, [person(1)])
    state.connect(9, "192.0.2.66:6666", "192.0.2.66", "192.0.2.1")
    before = snapshot(state)
    for msg in hostile_messages(rng, 600):
        with pytest.raises(LobbyError) as info:
            state.receive(9, msg, 0.0)
        assert "192.0.2.66:6666" in str(info.value)
        assert snapshot(state) == before
    state.receive(9, join_msg(person(4)), 0.0)  # an honest join still works afterwards
    assert state.seats[2] is not None


def test_hostile_messages_from_a_seated_participant_change_nothing():
    state = lobby()
    seat_guests(state, [person(1)])
    before = snapshot(state)
    for msg in [{"t": "ready"}, {"t": "ready", "ready": 1}, {"t": "ready", "ready": True, "x": 1},
                {"t": "leave", "now": True}, {"t": "join"}, join_msg(person(1)), {"t": "fill"},
                {"t": "start"}, {}]:
        with pytest.raises(BadLobbyMessage, match="seat 1"):
            state.receive(1, msg, 0.0)
        assert snapshot(state) == before
    with pytest.raises(BadLobbyMessage):
        state.receive(42, {"t": "ready", "ready": True}, 0.0)  # never authenticated


# --- the guest's checks --------------------------------------------------------------------


def started_lobby() -> tuple[HostLobby, dict[int, GuestLobby], dict[str, Any]]:
    state = lobby()
    guests = seat_guests(state, [person(1), person(2), person(3)])
    for c in guests:
        state.receive(c, guests[c].ready_message(True), 0.0)
    sends = state.host_ready(True, 0.0)
    start = next(m for c, m in sends if c == 2 and m["t"] == "start")
    for conn, msg in sends:  # every guest sees the rosters, not the start yet
        if msg["t"] == "roster":
            guests[conn].receive(msg)
    return state, guests, start


def test_each_guest_verifies_the_start_and_a_tampered_start_is_refused():
    state, guests, start = started_lobby()
    guest = guests[2]
    tampered = [
        lambda m: m["addresses"].__setitem__(1, "tcp:203.0.113.9:41001"),
        lambda m: m["names"].__setitem__(0, "mallory"),
        lambda m: m["kinds"].__setitem__(3, "ai"),
        lambda m: m.__setitem__("nonce", b"m" * 16),
        lambda m: m.__setitem__("table", bytes(32)),
        lambda m: m.__setitem__("name", "Saturday"),
        lambda m: m["rules"].__setitem__("decks", 3),
        lambda m: m["keys"].reverse(),
        lambda m: m["keys"].__setitem__(0, m["keys"][1]),
        lambda m: m["keys"].__setitem__(2, b"z" * 32),  # our key gone
        lambda m: m["keys"].pop(),
        lambda m: m["addresses"].__setitem__(2, "tcp:192.0.2.20:1"),  # not our port
        lambda m: m["addresses"].__setitem__(1, "unix:/tmp/sock"),
        lambda m: m.__setitem__("extra", 1),
        lambda m: m["rules"].__setitem__("players", 5),
    ]
    for change in tampered:
        msg = copy.deepcopy(start)
        change(msg)
        with pytest.raises(BadStart):
            guest.receive(msg)
        assert guest.seating is None
    seating = guest.receive(copy.deepcopy(start))
    assert isinstance(seating, Seating) and seating.seat == 2
    assert seating.keys[2] == person(2).public_key
    assert seating.addresses[2] == "tcp:192.0.2.20:41002"


def test_a_start_moving_us_to_another_seat_than_the_roster_said_is_refused():
    state, guests, start = started_lobby()
    guest = GuestLobby(person(2))
    guest.roster = Roster(NAME, Rules(), guests[2].roster.seats, (), 1)
    with pytest.raises(BadStart, match="seat 1"):
        guest.receive(start)


def test_hostile_rosters_and_refusals_from_the_host():
    state = lobby()
    guests = seat_guests(state, [person(1)])
    guest = guests[1]
    good = state.broadcast(0.0)[0][1]
    kept = guest.roster
    for change in [lambda m: m["seats"].pop(), lambda m: m.__setitem__("you", 0),
                   lambda m: m.__setitem__("you", 9), lambda m: m["seats"].__setitem__(
                       1, ["x", "human", b"\0" * 8, True]),
                   lambda m: m["seats"].__setitem__(2, ["x", "cyborg", b"\0" * 8, True]),
                   lambda m: m["seats"].__setitem__(2, "x"),
                   lambda m: m.__setitem__("reserved", [1, 1]),
                   lambda m: m.__setitem__("rules", {"players": "4"}),
                   lambda m: m.__setitem__("t", "rooster")]:
        msg = copy.deepcopy(good)
        change(msg)
        with pytest.raises(BadLobbyMessage):
            guest.receive(msg)
        assert guest.roster == kept
    with pytest.raises(TableFull, match="refused: full"):
        guest.receive({"t": "refused", "code": "table-full", "why": "full"})
    with pytest.raises(LobbyError, match="refused"):
        guest.receive({"t": "refused", "code": "made-up", "why": "\x1b[31m"})


# --- over the wire (in memory) -------------------------------------------------------------


class Table:
    """A `LobbyHost` and its guests on in-memory transports sharing one clock."""

    def __init__(self, passphrase: str | None = "owl", me: Participant | None = None) -> None:
        self.clock = Clock()
        self.host = LobbyHost(self.clock, NAME, Rules(), me or person(0), passphrase,
                              clock=self.clock)
        self.host.local_address = "tcp:127.0.0.1:4999"
        self.pumps: list[Any] = []
        self.port = 50000

    def join(self, p: Participant, passphrase: str | None = "owl", token: bytes | None = None,
             ip: str = "192.0.2.20") -> LobbyGuest:
        guest = LobbyGuest(self.clock, p, passphrase, token, clock=self.clock)
        self.attach(guest.protocol(), ip)
        return guest

    def attach(self, client: Any, ip: str = "192.0.2.20") -> Any:
        self.port += 1
        server = self.host.protocol()
        ct = FakeTransport(client, False, IPv4Address("TCP", ip, self.port),
                           IPv4Address("TCP", "192.0.2.1", 5000))
        st = FakeTransport(server, True, IPv4Address("TCP", "192.0.2.1", 5000),
                           IPv4Address("TCP", ip, self.port))
        self.pumps.append(connect(server, st, client, ct, greet=False, clock=self.clock))
        self.flush()
        return server

    def flush(self) -> None:
        for _ in range(50):
            if not any([p.pump() for p in self.pumps]):
                return


def test_a_whole_lobby_in_memory_with_a_local_ai_fill():
    table = Table()
    changes: list[Roster] = []
    table.host.on_change = changes.append
    asked: list[tuple[int, str, list[bytes]]] = []
    table.host.fill_local = lambda n, address, tokens: asked.append((n, address, tokens))
    ann = table.join(person(1))
    assert ann.joined.called and ann.roster().you == 1
    got: list[int] = []
    table.host.request_fill().addCallback(got.append)
    assert got == [2] and asked[0][:2] == (2, "tcp:127.0.0.1:4999")
    assert table.host.roster().reserved == (2, 3)
    ais = [table.join(person(5 + i, "ai"), None, token=t, ip="127.0.0.1")
           for i, t in enumerate(asked[0][2])]
    table.flush()
    assert all(a.joined.called and a.error is None for a in ais)
    seatings: list[Seating] = []
    for g in [ann, *ais]:
        g.started.addCallback(seatings.append)
        g.ready(True)
    table.flush()
    assert not seatings and changes[-1].seats[3].ready
    table.host.started.addCallback(seatings.append)
    table.host.ready(True)
    table.flush()
    assert len(seatings) == 4
    assert sorted(s.seat for s in seatings) == [0, 1, 2, 3]
    assert all({**s.__dict__, "seat": 0} == {**seatings[0].__dict__, "seat": 0}
               for s in seatings)
    assert seatings[0].kinds == ("human", "human", "ai", "ai")
    assert seatings[0].addresses[2] == "tcp:192.0.2.1:41005"  # local AI: the host's LAN IP
    assert table.host.closed and not table.host.links


def test_a_full_table_refuses_over_the_wire_with_the_typed_error():
    table = Table()
    for i in (1, 2, 3):
        assert table.join(person(i)).joined.called
    late = table.join(person(4), ip="192.0.2.77")
    errors: list[LobbyError] = []
    late.joined.addErrback(lambda f: errors.append(f.value))
    assert len(errors) == 1 and isinstance(errors[0], TableFull)
    assert "is full" in str(errors[0]) and "192.0.2.1:5000" in str(errors[0])
    assert isinstance(table.host.errors[-1], TableFull)
    assert "192.0.2.77" in str(table.host.errors[-1])


def test_a_seat_token_works_once_over_the_wire_too():
    table = Table()
    tokens: list[bytes] = []
    table.host.fill_local = lambda n, a, t: tokens.extend(t)
    table.host.request_fill()
    first = table.join(person(5, "ai"), None, token=tokens[0], ip="127.0.0.1")
    again = table.join(person(6, "ai"), None, token=tokens[0], ip="127.0.0.1")
    errors: list[LobbyError] = []
    again.joined.addErrback(lambda f: errors.append(f.value))
    assert first.joined.called and first.roster().you == 1
    assert len(errors) == 1 and errors[0].code == "bad-token"


def test_a_guest_leaving_frees_its_seat_and_fails_its_own_start():
    table = Table()
    ann = table.join(person(1))
    bob = table.join(person(2))
    closed: list[LobbyError] = []
    ann.started.addErrback(lambda f: closed.append(f.value))
    ann.leave()
    table.flush()
    assert isinstance(closed[0], LobbyClosed)
    assert table.host.roster().seats[1] is None and bob.roster().seats[1] is None


def test_the_host_closing_the_lobby_fails_every_guest():
    table = Table()
    ann = table.join(person(1))
    failures: list[Any] = []
    ann.started.addErrback(lambda f: failures.append(f.value))
    table.host.started.addErrback(lambda f: failures.append(f.value))
    table.host.close()
    table.flush()
    assert [type(f) for f in failures] == [LobbyClosed, LobbyClosed]


def test_garbage_on_the_wire_drops_the_peer_with_a_log_line_and_no_seat():
    table = Table()
    table.join(person(1))
    before = table.host.roster()
    with capturedLogs() as events:
        for junk in [b"\xff\xff\xff\xff" + b"x" * 20,  # a frame over the size limit
                     b"\x00\x00\x00\x03abc",  # unreadable hello
                     b"\x00\x00\x00\x01\xc0"]:  # nil as hello
            client = Protocol()
            server = table.attach(client, ip="203.0.113.7")
            client.transport.write(junk)
            table.flush()
            assert server.closing and server.channel is None
    texts = [e["log_format"].format(**e) for e in events if e["log_level"] == LogLevel.warn]
    assert len(texts) == 3 and all("203.0.113.7" in t for t in texts)
    assert table.host.roster() == before


def test_forged_lobby_frames_after_the_handshake_drop_only_the_forger():
    table = Table()
    ann = table.join(person(1))
    link = next(iter(table.host.links.values()))
    with capturedLogs() as events:
        link.dataReceived(b"\x00\x00\x00\x05" + msgpack.packb([b"", b""]))
    assert link.closing and table.host.errors and "192.0.2.20" in str(table.host.errors[-1])
    assert any("not authenticated" in e["log_format"].format(**e) for e in events)
    table.flush()
    assert table.host.roster().seats[1] is None  # its seat freed when it went
    assert isinstance(ann.error, LobbyError)


def test_a_silent_connection_times_out_on_the_clock():
    table = Table()
    server = table.attach(Protocol(), ip="203.0.113.8")
    table.clock.advance(9.0)
    assert not server.closing
    table.clock.advance(1.5)
    assert server.closing


def refuse_the_dial(reactor: MemoryReactorClock, why: Exception) -> None:
    """The one TCP connection ``reactor`` was asked for fails with ``why``, as Twisted's
    connector reports a refused connection or a name that does not resolve."""
    (_host, _port, factory, _timeout, _bind) = reactor.tcpClients[-1]
    factory.clientConnectionFailed(reactor.connectors[-1], Failure(why))


@pytest.mark.parametrize("why", [ConnectionRefusedError(), DNSLookupError("no such host")])
def test_a_lobby_out_of_reach_is_a_lobby_closed_error(why):
    reactor = MemoryReactorClock()
    errors: list[Exception] = []
    joining = ensureDeferred(join_table(reactor, "tcp:192.0.2.5:40123", person(1)))
    joining.addErrback(lambda f: errors.append(f.value))
    refuse_the_dial(reactor, why)
    assert isinstance(errors[0], LobbyClosed), errors
    assert "cannot reach the lobby" in str(errors[0]) and "192.0.2.5:40123" in str(errors[0])


@pytest.mark.parametrize("why", [ConnectionRefusedError(), DNSLookupError("no such host")])
def test_an_ai_server_out_of_reach_frees_the_seats_asked_for_and_says_why(why):
    reactor = MemoryReactorClock()
    host = LobbyHost(reactor, NAME, Rules(), person(0), None, clock=reactor)
    errors: list[Exception] = []
    host.request_fill(ai_server="tcp:192.0.2.9:4242").addErrback(lambda f: errors.append(f.value))
    assert host.roster().reserved == (1, 2, 3)
    refuse_the_dial(reactor, why)
    assert isinstance(errors[0], NoAiServer) and "AI fill failed" in str(errors[0]), errors
    assert host.roster().reserved == ()


def test_a_local_ai_provider_that_cannot_start_frees_the_seats_and_a_bug_in_it_goes_up():
    table = Table()

    def no_program(count: int, address: str, tokens: list[bytes]) -> None:
        raise FileNotFoundError(2, "No such file or directory", "tractor")

    table.host.fill_local = no_program
    errors: list[Exception] = []
    table.host.request_fill().addErrback(lambda f: errors.append(f.value))
    assert isinstance(errors[0], NoAiServer), errors
    assert "the local AI provider failed" in str(errors[0]) and "No such file" in str(errors[0])
    assert table.host.roster().reserved == ()

    def broken(count: int, address: str, tokens: list[bytes]) -> None:
        raise TypeError("a bug in the AI layer")

    table.host.fill_local = broken
    with pytest.raises(TypeError):  # not passed off as a provider that could not start
        table.host.request_fill()


# --- the AI server --------------------------------------------------------------------------


def fill_frame(machine: AiServerMachine, count: int = 2, lobby_address: str =
               "tcp:10.9.9.9:4242", tokens: list[bytes] | None = None) -> bytes:
    tokens = tokens if tokens is not None else [bytes([i]) * 32 for i in range(count)]
    return fill_request_frame(machine.greeting(), count, lobby_address, tokens, NAME, "ai")[0]


def test_the_ai_server_spawns_one_player_per_token_dialling_back_the_asking_host():
    spawned: list[tuple[str, bytes, str]] = []
    machine = AiServerMachine(lambda *a: spawned.append(a), "192.0.2.1", "192.0.2.1:777",
                              AttemptLimiter())
    reply = machine.receive(fill_frame(machine), 0.0)
    assert read_fill_reply(reply, "ai") == 2
    # The IP in the request is ignored: only the host that asked is dialled.
    assert spawned == [("tcp:192.0.2.1:4242", bytes([0]) * 32, NAME),
                       ("tcp:192.0.2.1:4242", bytes([1]) * 32, NAME)]
    with pytest.raises(BadLobbyMessage):
        machine.receive(fill_frame(machine), 0.0)  # one request per connection


def test_the_ai_server_serves_several_tables_and_refuses_bad_requests_without_spawning():
    spawned: list[Any] = []
    limiter = AttemptLimiter(limit=3)
    for host_ip in ("192.0.2.1", "192.0.2.2"):
        m = AiServerMachine(lambda *a: spawned.append(a), host_ip, host_ip, limiter)
        m.receive(fill_frame(m, 1), 0.0)
    assert [s[0] for s in spawned] == ["tcp:192.0.2.1:4242", "tcp:192.0.2.2:4242"]
    spawned.clear()
    other_key = PrivateKey.generate().public_key
    for make in [lambda m: SealedBox(other_key).encrypt(b"\x80"),  # sealed to someone else
                 lambda m: b"plain text",
                 lambda m: SealedBox(m.box_key.public_key).encrypt(msgpack.packb(
                     {"fill": 2, "lobby": "tcp:1.2.3.4:1", "tokens": [b"t" * 32], "table": "x"})),
                 lambda m: SealedBox(m.box_key.public_key).encrypt(msgpack.packb(
                     {"fill": 99, "lobby": "tcp:1.2.3.4:1", "tokens": [], "table": "x"})),
                 lambda m: SealedBox(m.box_key.public_key).encrypt(msgpack.packb(
                     {"fill": 1, "lobby": "unix:/x", "tokens": [b"t" * 32], "table": "x"})),
                 lambda m: b"\x00" * 10_000]:
        m = AiServerMachine(lambda *a: spawned.append(a), "192.0.2.3", "192.0.2.3:1", limiter)
        with pytest.raises(LobbyError):
            m.receive(make(m), 0.0)
    assert spawned == []
    # Requests are limited per address.
    for _ in range(3):
        m = AiServerMachine(lambda *a: spawned.append(a), "192.0.2.4", "x", limiter)
        m.receive(fill_frame(m, 1), 0.0)
    m = AiServerMachine(lambda *a: spawned.append(a), "192.0.2.4", "x", limiter)
    with pytest.raises(TooManyAttempts):
        m.receive(fill_frame(m, 1), 0.0)


def test_a_failing_spawn_is_reported_not_raised():
    def spawn(*a: Any) -> None:
        raise RuntimeError("no model loaded")
    m = AiServerMachine(spawn, "192.0.2.1", "x", AttemptLimiter())
    assert read_fill_reply(m.receive(fill_frame(m), 0.0), "ai") == 0
    assert "no model loaded" in m.spawn_errors[0]


def test_fill_request_over_in_memory_transports_seals_the_tokens():
    clock = Clock()
    spawned: list[Any] = []
    server = AiServer(clock, lambda *a: spawned.append(a), clock=clock)
    tokens = [bytes([9]) * 32, bytes([8]) * 32]
    client = FillClientLink(clock, 2, 4242, tokens, NAME)
    proto = server.protocol()
    sent: list[bytes] = []

    class Rec(FakeTransport):
        def write(self, data: bytes) -> None:
            sent.append(data)
            super().write(data)

    ct = Rec(client, False, IPv4Address("TCP", "192.0.2.1", 6000),
             IPv4Address("TCP", "192.0.2.50", 7000))
    st = Rec(proto, True, IPv4Address("TCP", "192.0.2.50", 7000),
             IPv4Address("TCP", "192.0.2.1", 6000))
    pump = connect(proto, st, client, ct, greet=False, clock=clock)
    for _ in range(10):
        pump.pump()
    got: list[int] = []
    client.result.addCallback(got.append)
    assert got == [2]
    assert [s[0] for s in spawned] == ["tcp:192.0.2.1:4242"] * 2
    blob = b"".join(sent)
    assert all(t not in blob for t in tokens)  # sealed to the server's one-time key


def test_a_fill_for_some_seats_reserves_the_highest_empty_ones():
    state = lobby()
    seat_guests(state, [])
    assert state.issue_tokens(0.0, count=0) == []
    one = state.issue_tokens(0.0, count=1)
    assert len(one) == 1 and state.roster(0.0).reserved == (3,)
    rest = state.issue_tokens(0.0, count=5)
    assert len(rest) == 2 and state.roster(0.0).reserved == (1, 2, 3)


FRIENDS5 = Rules(players=5, mode="friends")


@pytest.mark.parametrize("rules, carry, changes", [
    (Rules(), ("5", "3", 1, 3, 3),
     (["5", "3", 0, 3, 3], ["5", "3", 1, 3], ["Z", "3", 1, 3, 3], ["5", "3", 1, 9, 3], None)),
    # Find-a-friend: every player's level, no declaring team.
    (FRIENDS5, ("5", "3", "2", "A", "2", None, 3, 3),
     (["5", "3", "2", "A", "2", 0, 3, 3], ["5", "3", 1, 3, 3], ["5", "3", "2", "A", None, 3, 3],
      ["5", "3", "2", "A", "Z", None, 3, 3], ["5", "3", "2", "A", "2", None, 9, 3], None)),
])
def test_a_game_that_goes_on_carries_its_place_and_each_guest_checks_it(rules, carry, changes):
    state = HostLobby(NAME, rules, person(0, seat=0), nonce=b"n" * 16, carry=carry)
    guests = {}
    for i in range(1, rules.players):
        state.connect(i, f"192.0.2.20:{5000 + i}", "192.0.2.20", "192.0.2.1")
        guests[i] = GuestLobby(person(i, seat=i), expect_carry=carry)
        deliver(guests, state.receive(i, GuestLobby(person(i, seat=i)).join_message(), 0.0))
    for c in guests:
        state.receive(c, guests[c].ready_message(True), 0.0)
    sends = state.host_ready(True, 0.0)
    start = next(m for c, m in sends if c == 2 and m["t"] == "start")
    for conn, msg in sends:
        if msg["t"] == "roster":
            guests[conn].receive(msg)
    assert state.seating.carry == carry and start["carry"] == list(carry)
    # Another place in the game, a malformed carry, or none: refused.
    for change in changes:
        msg = copy.deepcopy(start)
        msg["carry"] = change
        with pytest.raises(BadStart):
            guests[2].receive(msg)
    # A guest that does not expect a carry still checks the table id covers it.
    plain = GuestLobby(person(2, seat=2))
    plain.roster = guests[2].roster
    plain.ready_message(True)
    seating = plain.receive(copy.deepcopy(start))
    assert seating.carry == carry
    assert seating.table != seating_id(NAME, rules, seating.keys, seating.addresses,
                                       seating.names, seating.kinds, b"n" * 16)
    seating = guests[2].receive(copy.deepcopy(start))
    assert isinstance(seating, Seating) and seating.seat == 2 and seating.carry == carry


def test_seat_tokens_go_only_to_the_ai_server_the_host_chose():
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tractor.net.lobby.ai_fill import read_greeting
    from tractor.net.lobby.errors import WrongServerKey
    from tractor.net.lobby.seating import fingerprint

    chosen = Ed25519PrivateKey.generate()
    real = AiServerMachine(lambda *a: None, "192.0.2.1", "x", AttemptLimiter(), chosen)
    key = fingerprint(chosen.public_key().public_bytes_raw())
    frame, identity = fill_request_frame(real.greeting(), 1, "tcp:10.0.0.1:1", [b"t" * 32],
                                         NAME, "ai", expect=key)
    assert identity == chosen.public_key().public_bytes_raw()
    assert read_fill_reply(real.receive(frame, 0.0), "ai") == 1
    # A stranger announcing itself (with its own key) gets nothing sealed to it ...
    stranger = AiServerMachine(lambda *a: None, "192.0.2.9", "x", AttemptLimiter())
    with pytest.raises(WrongServerKey, match="no seat token was sent"):
        fill_request_frame(stranger.greeting(), 1, "tcp:10.0.0.1:1", [b"t" * 32], NAME,
                           "ai", expect=key)
    # ... nor one that shows the chosen server's key without its signature.
    forged = msgpack.unpackb(stranger.greeting())
    forged["id"] = chosen.public_key().public_bytes_raw()
    with pytest.raises(BadLobbyMessage, match="not signed by its key"):
        read_greeting(msgpack.packb(forged), "ai")


def test_an_internet_table_gives_every_seat_its_address_and_guests_follow_it_with_care():
    from tractor.net.internet.rendezvous import internet_address
    from tractor.net.lobby.errors import WrongCode, error_for

    internet = internet_address("ws://198.18.0.1:4000/v1", "tcp:198.18.0.1:4001")
    state = HostLobby(NAME, Rules(), person(0), nonce=b"n" * 16, internet=internet)
    guests = seat_guests(state, [person(1), person(2), person(3)])
    for c in guests:
        state.receive(c, guests[c].ready_message(True), 0.0)
    sends = state.host_ready(True, 0.0)
    start = next(m for c, m in sends if c == 2 and m["t"] == "start")
    assert start["addresses"] == [internet] * 4
    assert state.seating is not None and state.seating.addresses == dict.fromkeys(
        range(4), internet)
    # A guest that came through that mailbox, or is on the host's machine, follows it.
    came = GuestLobby(person(2))
    came.mailbox = "ws://198.18.0.1:4000/v1"
    local = GuestLobby(person(2))
    local.lobby_ip = "127.0.0.1"
    for guest in (came, local):
        seating = guest.verify_start(copy.deepcopy(start))
        assert seating.seat == 2 and seating.addresses[1] == internet
    # One that came over the LAN, or through another mailbox, is never sent outside.
    lan = GuestLobby(person(2))
    lan.lobby_ip = "192.0.2.1"
    elsewhere = GuestLobby(person(2))
    elsewhere.mailbox = "ws://203.0.113.5:4000/v1"
    for guest, why in ((lan, "came over the LAN"), (elsewhere, "not the one we came")):
        with pytest.raises(BadStart, match=why):
            guest.verify_start(copy.deepcopy(start))
    # A mix of addresses, or a bad one, is refused whoever reads it.
    for change in (lambda m: m["addresses"].__setitem__(1, "tcp:192.0.2.20:41001"),
                   lambda m: m["addresses"].__setitem__(1, internet.replace("4001", "4002")),
                   lambda m: m.__setitem__("addresses", ["wormhole:ftp://x tcp:a:1"] * 4)):
        msg = copy.deepcopy(start)
        change(msg)
        with pytest.raises(BadStart):
            came.verify_start(msg)
    # A wrong seat code is a typed error, as every lobby error is.
    assert isinstance(error_for("wrong-code", "typed wrong", "mailbox"), WrongCode)
