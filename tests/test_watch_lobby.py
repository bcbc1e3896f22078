"""`tractor host --no-watchers`: the start says so, the table id binds it and every seat's
node refuses watchers; a table that takes them (the default) starts as it always did."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet.testing import MemoryReactorClock

from tractor import Rules
from tractor.net.lobby.errors import BadStart
from tractor.net.lobby.guest_state import GuestLobby
from tractor.net.lobby.host_state import HostLobby
from tractor.net.lobby.seating import Participant, Seating, seating_id
from tractor.net.mesh.watchers import watch_hello
from tractor.net.mesh.wire import PeerNode
from tractor.net.table.player import RandomPlayer
from tractor.net.table.seat import take_seat


def person(i: int) -> Participant:
    return Participant(f"player {i}", bytes([i + 1]) * 32, 41000 + i)


def start(watchers: bool) -> tuple[dict[str, Any], GuestLobby, HostLobby]:
    """A lobby of four, every seat ready: the start message seat 2 gets, and its guest."""
    state = HostLobby("Friday", Rules(), person(0), nonce=b"n" * 16)
    state.watchers = watchers
    guests = {}
    for conn in (1, 2, 3):
        state.connect(conn, f"192.0.2.20:{5000 + conn}", "192.0.2.20", "192.0.2.1")
        guests[conn] = GuestLobby(person(conn))
        for c, msg in state.receive(conn, guests[conn].join_message(), 0.0):
            guests[c].receive(copy.deepcopy(msg))
    for conn in guests:
        state.receive(conn, guests[conn].ready_message(True), 0.0)
    message = next(m for c, m in state.host_ready(True, 0.0) if c == 2 and m["t"] == "start")
    return message, guests[2], state


def test_a_table_that_takes_watchers_starts_as_tables_always_did() -> None:
    message, guest, state = start(True)
    assert "watchers" not in message  # the start of today's tables, byte for byte
    seating = guest.receive(copy.deepcopy(message))
    assert isinstance(seating, Seating) and seating.watchers
    s = state.seating
    assert s is not None and s.watchers and s.table == seating_id(
        s.name, s.rules, s.keys, s.addresses, s.names, s.kinds, b"n" * 16)


def test_a_table_without_watchers_tells_every_seat_and_binds_it_in_the_table_id() -> None:
    message, guest, state = start(False)
    assert message["watchers"] is False
    seating = guest.receive(copy.deepcopy(message))
    assert isinstance(seating, Seating) and not seating.watchers
    assert state.seating is not None and state.seating.table == seating.table
    opened, _, _ = start(True)
    assert opened["table"] != message["table"]
    for forged in ({**message, "watchers": True}, {**message, "watchers": 0},
                   {k: v for k, v in message.items() if k != "watchers"}):
        with pytest.raises(BadStart):  # (the last: the table id says no watchers)
            start(False)[1].receive(copy.deepcopy(forged))


def test_every_seat_of_a_table_without_watchers_refuses_them() -> None:
    keys = [Ed25519PrivateKey.from_private_bytes(bytes([s + 1]) * 32) for s in range(4)]
    seating = Seating(b"t" * 32, "Friday", Rules(), 1,
                      tuple(k.public_key().public_bytes_raw() for k in keys),
                      {s: f"tcp:127.0.0.1:{41000 + s}" for s in range(4)},
                      ("a", "b", "c", "d"), ("human",) * 4, None, False)
    node = PeerNode(MemoryReactorClock())
    take_seat(node, seating, keys[1], RandomPlayer(1))
    link = Link()
    assert not node.watchers.arrived(link, watch_hello())
    assert link.closed and b"takes no watchers" in link.written[0]
    node.stop()


class Link:
    """A watcher's connection that keeps what it is sent."""

    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.closed = False

    def write_frame(self, frame: bytes) -> None:
        self.written.append(frame)

    def close(self) -> None:
        self.closed = True


def test_a_seat_resumed_from_its_journal_shows_its_watchers_what_the_table_id_binds(
        tmp_path: Any) -> None:
    from tractor.net.journal.store import Journal
    from tractor.net.table.seat import game_id, journaled_binding

    keys = [Ed25519PrivateKey.from_private_bytes(bytes([s + 1]) * 32) for s in range(4)]
    raw = tuple(k.public_key().public_bytes_raw() for k in keys)
    addresses = {s: f"tcp:127.0.0.1:{41000 + s}" for s in range(4)}
    names, kinds, nonce = ("a", "b", "c", "d"), ("human",) * 4, bytes(range(16))
    table = seating_id("Friday", Rules(), raw, addresses, names, kinds, nonce)
    seating = Seating(table, "Friday", Rules(), 1, raw, addresses, names, kinds, nonce=nonce)
    journal = Journal(str(tmp_path / "journal.sqlite"))
    node = PeerNode(MemoryReactorClock())
    take_seat(node, seating, keys[1], RandomPlayer(1), journal=journal)
    node.stop()
    binding = journaled_binding(journal.meta(game_id(seating)), 4)
    assert binding == seating.binding() == node.watchers.binding
    assert binding is not None and binding.table_id(Rules(), raw, names, None) == table
