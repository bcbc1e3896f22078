"""Issue 28, item 8: every seat at a table has its own readable name. The host's own AI and
an AI server's first player both called themselves "AI 1", and the screens showed
"AI 1" and "AI 1 2"; the lobby now names an AI when it seats it (`net.lobby.seat_names`), and
each AI takes the name the start gives it."""

from __future__ import annotations

import copy
from typing import Any

from tractor import Rules
from tractor.net.lobby.guest_state import GuestLobby
from tractor.net.lobby.host_state import HostLobby
from tractor.net.lobby.seat_names import ai_seat_name
from tractor.net.lobby.seating import Participant, Seating
from tractor.net.lobby.tokens import token_id


def participant(i: int, name: str, kind: str = "human") -> Participant:
    return Participant(name, bytes([i + 1]) * 32, 41000 + i, kind)


def seat_ai(state: HostLobby, conn: int, token: bytes, who: Participant,
            guests: dict[int, GuestLobby]) -> None:
    """An AI proves its seat token and joins, as the wire does."""
    tid = token_id(token)
    state.tokens.begin(tid, 0.0, f"ai {conn}")
    state.tokens.succeed(tid)
    state.connect(conn, f"127.0.0.1:{5000 + conn}", "127.0.0.1", "127.0.0.1", token=tid)
    guests[conn] = GuestLobby(who)
    deliver(guests, state.receive(conn, guests[conn].join_message(), 0.0))


def deliver(guests: dict[int, GuestLobby], sends: list[tuple[int, Any]]) -> list[Any]:
    return [guests[conn].receive(copy.deepcopy(msg)) for conn, msg in sends if conn in guests]


def test_ais_that_share_a_name_sit_under_distinct_numbers_and_accept_them() -> None:
    # The host's `--ai 1` seat, then an AI server's players (numbered by that server:
    # its first, and its 17th of the day).
    state = HostLobby("Friday", Rules(players=4), participant(0, "ann"), nonce=b"n" * 16)
    tokens = state.issue_tokens(0.0)
    guests: dict[int, GuestLobby] = {}
    asked = ["AI 1", "AI 1", "AI 17"]
    for conn, (token, name) in enumerate(zip(tokens, asked, strict=True), start=1):
        seat_ai(state, conn, token, participant(conn, name, "ai"), guests)
    roster = state.roster(0.0)
    assert [s.name for s in roster.seats if s is not None] == ["ann", "AI 1", "AI 2", "AI 3"]
    seatings = []
    for conn in guests:
        seatings += deliver(guests, state.receive(conn, {"t": "ready", "ready": True}, 0.0))
    seatings += deliver(guests, state.host_ready(True, 0.0))
    started = [s for s in seatings if isinstance(s, Seating)]
    assert len(started) == 3  # every AI took the start with its new name
    assert state.seating is not None
    assert state.seating.names == ("ann", "AI 1", "AI 2", "AI 3")
    assert all(s.names == state.seating.names for s in started)


def test_a_person_keeps_the_name_they_chose() -> None:
    state = HostLobby("Friday", Rules(players=4), participant(0, "AI 1"), nonce=b"n" * 16)
    state.connect(1, "192.0.2.5:5001", "192.0.2.5", "192.0.2.1")
    guest = GuestLobby(participant(1, "AI 1"))
    state.receive(1, guest.join_message(), 0.0)
    assert [s.name for s in state.roster(0.0).seats if s is not None] == ["AI 1", "AI 1"]


def test_an_ai_keeps_its_own_name_when_it_is_free_and_readable() -> None:
    assert ai_seat_name("AI 3", ["ann", "AI 1"], 4) == "AI 3"  # a practice table's seat 3
    assert ai_seat_name("Robo 2", ["ann", "Robo 1"], 6) == "Robo 2"  # tractor ai --name
    assert ai_seat_name("AI 5", ["ann"], 4) == "AI 1"  # past the seats: means nothing here
    assert ai_seat_name("ann", ["ann", "AI 1", "AI 3"], 4) == "AI 2"
