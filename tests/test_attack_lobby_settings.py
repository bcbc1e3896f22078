"""The lobby's settings (issue 32) attacked as a hostile guest or host would
(`net/lobby/host_state.py`, `guest_state.py`, `table_settings.py`): a ``ready`` that crosses
a change of the rules or seats, a start with other rules or seats than the guest saw and
said ready to, a guest sending the host's commands, hostile rules maps and addresses in a
roster or a start. State machines in memory, as tests/test_lobby_settings.py drives them."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from test_lobby_settings import deliver, names, person, readiness, table

from tractor.net.codec import encode
from tractor.net.internet.rendezvous import internet_address
from tractor.net.lobby.discovery import BadAnnouncement, pack_announcement, parse_announcement
from tractor.net.lobby.errors import BadLobbyMessage, BadStart, LobbyError
from tractor.net.lobby.guest_state import GuestLobby
from tractor.net.lobby.host_state import MOVE_LIMIT, MOVE_WINDOW, HostLobby
from tractor.net.lobby.messages import unpack
from tractor.net.lobby.seating import Seating, seating_id
from tractor.rules import Rules

Sends = list[tuple[int, dict[str, Any]]]


def full_table() -> tuple[HostLobby, dict[int, GuestLobby]]:
    """A host at seat 0 and three guests, every guest ready, the host not yet."""
    return table(3, players=4)


def held_for(sends: Sends, conn: int) -> tuple[Sends, Sends]:
    """``sends`` split: those to ``conn`` (still on the way), and the others."""
    return [s for s in sends if s[0] == conn], [s for s in sends if s[0] != conn]


# --- a ready that crosses a change -----------------------------------------------------------

CHANGES: dict[str, Callable[[HostLobby], Sends]] = {
    "rules": lambda state: state.change_rules({"throw_penalty": 0}, 1.0),
    "seats": lambda state: state.swap(1, 2, 1.0),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_ready_that_crosses_a_change_is_not_taken_for_the_new_settings(change):
    """Guest 3 says ready at the settings it sees; on the way, the host changes them and
    everyone else says ready again: the late ``ready`` must not start the game (it was
    said to the settings before), and guest 3 starts only once it said ready to the new
    ones."""
    state, guests = full_table()
    late = guests[3].ready_message(False), guests[3].ready_message(True)
    to_three, others = held_for(CHANGES[change](state), 3)
    deliver(guests, others)
    for conn in (1, 2):
        deliver(guests, state.receive(conn, guests[conn].ready_message(True), 2.0))
    deliver(guests, state.host_ready(True, 2.0))
    sends = [s for msg in late for s in state.receive(3, msg, 2.0)]
    assert state.seating is None and readiness(state)[state.conns[3].seat] is False
    deliver(guests, to_three + sends)
    assert guests[3].seating is None and not guests[3].agreed
    deliver(guests, state.receive(3, guests[3].ready_message(True), 3.0))
    assert state.seating is not None and guests[3].seating is not None
    assert guests[3].seating.rules == state.rules and guests[3].seating.table == \
        state.seating.table


def test_settings_changed_and_changed_back_take_a_ready_said_to_them():
    """The host changes the rules and back before guest 3's ``ready`` arrives: it was said
    to the settings that stand, so the host takes it, and guest 3 (which saw both
    changes) starts too: the two sides never disagree on a start."""
    state, guests = full_table()
    ready = guests[3].ready_message(True)
    out = state.change_rules({"throw_penalty": 0}, 1.0) + \
        state.change_rules({"throw_penalty": Rules().throw_penalty}, 1.0)
    deliver(guests, out)
    assert guests[3].agreed  # (it saw the change, then the settings it said ready to)
    for conn in (1, 2):
        deliver(guests, state.receive(conn, guests[conn].ready_message(True), 2.0))
    deliver(guests, state.host_ready(True, 2.0))
    deliver(guests, state.receive(3, ready, 2.0))
    assert state.seating is not None and isinstance(guests[3].seating, Seating)


def test_someone_joining_or_leaving_leaves_a_ready_standing():
    state, guests = table(2, players=4)  # the host and guests 1, 2 ready; seat 3 empty
    state.host_ready(False, 0.5)
    ready = guests[1].ready_message(True)
    state.connect(3, "192.0.2.23:5003", "192.0.2.23", "192.0.2.1")
    guests[3] = GuestLobby(person(3))
    deliver(guests, state.receive(3, guests[3].join_message(), 1.0))
    deliver(guests, state.receive(1, ready, 1.0))
    assert readiness(state)[1] is True
    deliver(guests, state.receive(3, guests[3].ready_message(True), 1.0))
    deliver(guests, state.host_ready(True, 1.0))
    assert all(isinstance(g.seating, Seating) for g in guests.values())


# --- a hostile host's start ------------------------------------------------------------------


def honest_start() -> tuple[HostLobby, dict[int, GuestLobby], dict[str, Any]]:
    """Every seat ready: the start message guest 2 gets (the rosters before it delivered)."""
    state, guests = full_table()
    sends = state.host_ready(True, 1.0)
    deliver(guests, [s for s in sends if s[1]["t"] == "roster"])
    return state, guests, next(m for c, m in sends if c == 2 and m["t"] == "start")


def restarted(start: dict[str, Any], rules: Rules | None = None,
              order: list[int] | None = None) -> dict[str, Any]:
    """``start`` with other rules or seats (``order``: the seats' keys, names, kinds and
    addresses in that order), with a table id that hashes them: only the guest's memory
    of what it saw and said ready to can refuse it."""
    msg = copy.deepcopy(start)
    if rules is not None:
        msg["rules"] = rules.to_data()
    if order is not None:
        for key in ("keys", "names", "kinds", "addresses"):
            msg[key] = [msg[key][i] for i in order]
    msg["table"] = seating_id(msg["name"], Rules.from_data(msg["rules"]), msg["keys"],
                              dict(enumerate(msg["addresses"])), msg["names"], msg["kinds"],
                              msg["nonce"], None, True)
    return msg


def test_a_start_with_other_rules_or_seats_than_the_guest_said_ready_to_is_refused():
    state, guests, start = honest_start()
    guest = guests[2]
    for lie in (restarted(start, Rules(throw_penalty=0)),
                restarted(start, Rules(decks=3)),
                restarted(start, order=[0, 3, 2, 1])):  # its partner swapped
        with pytest.raises(BadStart, match="other rules or seats than we saw"):
            guest.receive(lie)
        assert guest.seating is None
    assert isinstance(guest.receive(copy.deepcopy(start)), Seating)


def test_a_start_the_guest_never_said_ready_to_is_refused():
    """The host shows the guest ready though it never said so (or said it before the
    last change): the guest's own memory decides."""
    state, guests, start = honest_start()
    fresh = GuestLobby(person(2))
    fresh.roster = guests[2].roster  # the same rosters, but no ready said
    with pytest.raises(BadStart, match="a start we did not say ready to"):
        fresh.receive(copy.deepcopy(start))
    # Ready, then a roster with new rules (the host un-readies it), then a start with the
    # rules it said ready to: refused (the host changed them since).
    guest = guests[2]
    changed = copy.deepcopy(state.broadcast(1.0)[1][1])
    changed["rules"] = Rules(throw_penalty=0).to_data()
    guest.receive(changed)
    with pytest.raises(BadStart, match="a start we did not say ready to"):
        guest.receive(copy.deepcopy(start))
    # An unready said after the ready: no start either.
    other = GuestLobby(person(3))
    other.roster = guests[3].roster
    other.ready_message(True)
    other.ready_message(False)
    three = restarted(start)  # (the table id is the same: the start for seat 2 and 3)
    with pytest.raises(BadStart, match="a start we did not say ready to"):
        other.receive(three)


def test_an_ai_seat_takes_any_start_the_table_makes():
    """An AI plays any rules and seat and never says ready again after a change (the
    host keeps it ready): its start is not held to a ready it said."""
    state, guests = table(3, players=4, kinds=("human", "human", "ai"))
    deliver(guests, state.change_rules({"throw_penalty": 0}, 1.0))
    for conn in (1, 2):
        deliver(guests, state.receive(conn, guests[conn].ready_message(True), 2.0))
    deliver(guests, state.host_ready(True, 2.0))
    assert state.seating is not None and isinstance(guests[3].seating, Seating)
    assert guests[3].seating.rules == Rules(throw_penalty=0)
    # Its ready names no settings (an older host reads it as it always did); a person's
    # does.
    assert "for" not in guests[3].ready_message(True) and "for" in guests[1].ready_message(True)


# --- a hostile guest -------------------------------------------------------------------------


@pytest.mark.parametrize("msg", [
    {"t": "rules", "rules": {"decks": 3}}, {"t": "swap", "a": 0, "b": 1},
    {"t": "players", "players": 6}, {"t": "start"}, {"t": "roster"},
    {"t": "sit", "seat": 0, "as": 1}, {"t": "ready", "ready": True, "for": b"x"},
    {"t": "ready", "ready": True, "for": "0" * 16},
])
def test_a_guest_cannot_change_the_rules_or_anyone_elses_seat(msg):
    state, guests = full_table()
    before = (state.rules, names(state), readiness(state))
    with pytest.raises(BadLobbyMessage):
        state.receive(1, msg, 1.0)
    assert (state.rules, names(state), readiness(state)) == before


def test_a_ready_naming_made_up_settings_is_not_taken():
    state, guests = table(2, players=4)
    deliver(guests, state.receive(1, guests[1].ready_message(False), 1.0))
    assert state.receive(1, {"t": "ready", "ready": True, "for": bytes(16)}, 1.0) == []
    assert readiness(state)[1] is False


# --- hostile rules maps and addresses from the host --------------------------------------------

#: Rules maps a host may send: unknown options (one named with terminal escapes), values of
#: every wrong type, numbers far out of range, a map over the size a lobby message allows.
HOSTILE_RULES: list[Any] = [
    {"\x1b]0;owned\x07\x1b[2J": 1}, {"decks\x00": 2}, {"players": 2**64 - 1},
    {"throw_penalty": -2**63}, {"decks": 2.5}, {"decks": float("nan")}, {"mode": "\x1b[31m"},
    {"declaration": "x" * 900}, {"start_level": ["2"]}, {"talon_cards": {"a": 1}},
    {"must_defend": "\x1b[2J" * 10}, {"players": True}, {1: 2}, [], "rules", None,
    {f"o{i}": i for i in range(60)},
]


def hostile(base: dict[str, Any], value: Any) -> dict[str, Any]:
    msg = copy.deepcopy(base)
    msg["rules"] = value
    return msg


def check_refused(guest: GuestLobby, msg: dict[str, Any]) -> None:
    """The guest refuses ``msg`` with a `LobbyError` whose words a terminal can show."""
    with pytest.raises(LobbyError) as caught:
        guest.receive(unpack(encode(msg), "host"))  # as it comes off the wire
    why = caught.value.why
    assert why.isprintable() and len(why) <= 200, why


@pytest.mark.parametrize("rules", HOSTILE_RULES, ids=range(len(HOSTILE_RULES)))
def test_hostile_rules_in_a_roster_or_a_start_are_refused_in_printable_words(rules):
    state, guests, start = honest_start()
    roster = state.broadcast(1.0)[1][1]
    assert guests[2].roster is not None
    kept = guests[2].roster
    check_refused(guests[2], hostile(roster, rules))
    check_refused(guests[2], hostile(start, rules))
    assert guests[2].roster == kept and guests[2].seating is None


@pytest.mark.parametrize("bad", [[], {}, ["x"], 7, None, b"wormhole:"])
def test_a_start_mixing_an_internet_address_with_junk_is_refused_not_a_crash(bad):
    """An internet table's address beside a value that is no address at all (a list, a
    map: no text to compare) is a bad start, as a mix of addresses is (it was a TypeError
    out of the guest's link)."""
    internet = internet_address("ws://198.18.0.1:4000/v1", "tcp:198.18.0.1:4001")
    state, guests, start = honest_start()
    msg = copy.deepcopy(start)
    msg["addresses"] = [internet, bad, internet, internet]
    guest = guests[2]
    guest.mailbox = "ws://198.18.0.1:4000/v1"
    with pytest.raises(BadStart):
        guest.receive(msg)


# --- a flood of seat requests ----------------------------------------------------------------


def test_a_guest_that_leaves_and_joins_again_gets_no_new_seat_requests_for_it():
    """`MOVE_LIMIT` moves a `MOVE_WINDOW` per guest: one that leaves and joins again (a new
    connection, or a new key) from the same address does not start a new count, else
    it could un-ready every person at will."""
    state, guests = table(1, players=6)
    moves, conn = 0, 1
    for round_ in range(4):
        for _ in range(MOVE_LIMIT + 1):
            seat = state.conns[conn].seat
            free = next(s for s in range(6) if state.seats[s] is None and s != seat)
            if state.receive(conn, GuestLobby.sit_message(free), 1.0 + round_):
                moves += 1
        state.receive(conn, GuestLobby.leave_message(), 1.0 + round_)
        conn += 1
        state.connect(conn, f"192.0.2.20:{6000 + conn}", "192.0.2.20", "192.0.2.1")
        guests[conn] = GuestLobby(person(10 + conn))
        deliver(guests, state.receive(conn, guests[conn].join_message(), 1.0 + round_))
    assert moves == MOVE_LIMIT
    # Another address has its own count; and after the window this one may move again.
    state.connect(99, "192.0.2.77:7000", "192.0.2.77", "192.0.2.1")
    guests[99] = GuestLobby(person(30))
    deliver(guests, state.receive(99, guests[99].join_message(), 5.0))
    assert state.receive(99, GuestLobby.sit_message(5), 5.0) != []
    free = next(s for s in range(6) if state.seats[s] is None)
    assert state.receive(conn, GuestLobby.sit_message(free), 1.0 + MOVE_WINDOW + 1) != []


# --- names a terminal would act on -----------------------------------------------------------

ESCAPES = ["\x1b[2J", "Ann\x07", "Bo\u202eb", "\x9b31m", "a\nb", "tab\there"]


@pytest.mark.parametrize("name", ESCAPES, ids=range(len(ESCAPES)))
def test_a_name_a_terminal_would_act_on_never_reaches_a_listing(name):
    """A joiner's name (a person's or an AI's), a seat's or the table's name in a roster,
    a table's name or rules summary heard on the LAN: each is refused where it comes in,
    so `roster_lines` and `table_line` only ever print checked words."""
    state, guests = table(1, players=4)
    state.connect(7, "192.0.2.27:5007", "192.0.2.27", "192.0.2.1")
    for kind in ("human", "ai"):
        join = {**GuestLobby(person(7)).join_message(), "name": name, "kind": kind}
        with pytest.raises(BadLobbyMessage):
            state.receive(7, join, 1.0)
    roster = state.broadcast(1.0)[0][1]
    for change in (lambda m: m["seats"][0].__setitem__(0, name),
                   lambda m: m.__setitem__("name", name)):
        msg = copy.deepcopy(roster)
        change(msg)
        with pytest.raises(BadLobbyMessage):
            guests[1].receive(msg)
    good = pack_announcement("table", "Ann", "tcp:0.0.0.0:40123", 4, 1, "2 decks")

    def forged(field: bytes, text: str) -> bytes:  # the field's msgpack string replaced
        out = good.replace(bytes([0xa0 | len(field)]) + field,
                           bytes([0xd9, len(text.encode())]) + text.encode())
        assert out != good
        return out

    for field in (b"Ann", b"2 decks"):
        assert parse_announcement(forged(field, "Zed"), "192.0.2.5", 0.0)  # (the forgery)
        with pytest.raises(BadAnnouncement):
            parse_announcement(forged(field, name), "192.0.2.5", 0.0)
