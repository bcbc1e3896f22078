"""A game that goes on at a new table (`cli.seat.goes_on.GoesOn`) keeps what its seat's
journal said of it: a practice game moved to a new table after an AI seat was gone lost
its practice mark and AI level (`tractor resume` was then not patient with it, `tractor
stats` no longer knew its AI level); a LAN host's game moved to a new table opened nothing
for watchers there (no passphrase desk, no announcement, no line in the log) and its
journal kept nothing of it for `tractor resume`. The move itself is driven with stand-ins
for the sockets: the lobby, the node and the seat are not what is tested here."""

from __future__ import annotations

import argparse
from typing import Any

import pytest
from test_watch_passphrase import Multicast
from twisted.internet.defer import Deferred, ensureDeferred

from tractor.cli.seat import goes_on
from tractor.cli.seat.goes_on import GoesOn
from tractor.cli.watch_hosting import WatchHosting, hosting_meta
from tractor.net.lobby.guess_line import AttemptLimiter
from tractor.net.lobby.seating import Seating
from tractor.net.mesh.watchers import Watchers
from tractor.rules import Rules

SEATING = Seating(b"t" * 32, "practice", Rules(), 0, tuple(bytes([s]) * 32 for s in range(4)),
                  {s: f"tcp:127.0.0.1:{41000 + s}" for s in range(4)},
                  ("Ann", "AI 1", "AI 2", "AI 3"), ("human", "ai", "ai", "ai"))


class _Judging:
    patient = False

    def be_patient(self) -> None:
        self.patient = True


class _Node:
    grace = 2.0

    def __init__(self) -> None:
        self.done: Deferred[None] = Deferred()
        self.stopped = False
        self.session = self
        self.watchers = Watchers()
        self.judging = _Judging()

    def carry(self) -> tuple[Any, ...]:
        return ("2", "2", 0, 0, 0)

    def stop(self) -> None:
        self.stopped = True


class _Client:
    def __init__(self) -> None:
        self.node = _Node()
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        self.notes.append(text)

    def rebind(self, node: Any, names: list[str]) -> None:
        self.node = node


class _Journal:
    """The seat's journal: what is added to a game's meta."""

    added: dict[str, dict[str, Any]] = {}

    def add_meta(self, game: str, entries: dict[str, Any]) -> None:
        self.added.setdefault(game, {}).update(entries)


@pytest.fixture
def kept(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The journal meta of each new table's seat; its game node listens on port 41010."""
    kept: list[dict[str, Any]] = []

    async def listen(reactor: Any, interface: str, grace: float) -> tuple[_Node, int]:
        return _Node(), 41010

    monkeypatch.setattr(goes_on, "listen_node", listen)
    _Journal.added.clear()
    monkeypatch.setattr(goes_on, "Journal", lambda path: _Journal())
    monkeypatch.setattr(goes_on, "take_seat", lambda *a, meta: kept.append(meta))
    return kept


def test_a_practice_game_gone_on_at_a_new_table_keeps_its_marks(
        monkeypatch: pytest.MonkeyPatch, kept: list[dict[str, Any]]) -> None:
    marks = {"local_ai": True, "practice": True, "strategy": "search", "level": "hard"}
    client = _Client()
    goes = GoesOn(None, argparse.Namespace(player="Ann"), client,  # type: ignore[arg-type]
                  SEATING, "tcp:127.0.0.1:40000", "127.0.0.1", True,
                  fill_local=lambda count, address, tokens: None, marks=marks)

    async def new_table(me: Any, carry: Any, gone: int) -> Seating:
        return SEATING

    monkeypatch.setattr(goes, "_host", new_table)
    old = client.node
    ensureDeferred(goes._go_on(old, 2))  # type: ignore[arg-type]
    assert old.stopped and kept == [{**marks, "carried": True}]
    # Nobody to keep waiting at the new table either: the person is warned of no deadline.
    assert client.node is not old and client.node.judging.patient


def test_a_lan_hosts_new_table_takes_watchers_as_the_first_did(
        monkeypatch: pytest.MonkeyPatch, kept: list[dict[str, Any]]) -> None:
    table = Seating(b"t" * 32, "ann's table", Rules(), 0,
                    tuple(bytes([s]) * 32 for s in range(4)),
                    {s: f"tcp:192.0.2.5:{40124 + s}" for s in range(4)},
                    ("Ann", "Bo", "Cy", "Di"), ("human",) * 4, watchers=False)
    moved = Seating(b"u" * 32, table.name, table.rules, 0, table.keys,
                    {**table.addresses, 0: "tcp:192.0.2.5:41010", 2: "tcp:127.0.0.1:41020"},
                    ("Ann", "Bo", "AI 1", "Di"), ("human", "human", "ai", "human"),
                    ("3", "2", 0, 1, 1), watchers=False)
    first_lan, new_lan = Multicast(), Multicast()
    client = _Client()
    limiter = AttemptLimiter()
    first = WatchHosting(client.node.watchers, table, False, "sesame", limiter,
                         announce=True)
    first.open_on_lan(first_lan, ("0.0.0.0", 40124), "id", client.note)
    goes = GoesOn(new_lan, argparse.Namespace(player="Ann"), client,  # type: ignore[arg-type]
                  table, "tcp:192.0.2.5:40000", "0.0.0.0", True, passphrase="sesame",
                  hosting=first)

    async def new_table(me: Any, carry: Any, gone: int) -> Seating:
        return moved

    monkeypatch.setattr(goes, "_host", new_table)
    old = client.node
    ensureDeferred(goes._go_on(old, 2))  # type: ignore[arg-type]
    line = ("others may watch this game: `tractor watch {} --passphrase -` (with the "
            "table's passphrase)")
    assert client.notes == [line.format("192.0.2.5:40124"), "seat 2 is gone: the table goes "
                            "on with an AI in that seat and a new hand",
                            line.format("192.0.2.5:41010")]
    assert first_lan.announcer is None  # the first table's game is no longer announced
    heard = new_lan.heard()
    assert (heard.address, heard.passphrase, heard.seats) == ("tcp:192.0.2.5:41010", True, 8)
    desk = client.node.watchers.desk  # the new seat's: the guesses counted so far go on
    assert desk is not None and (desk.passphrase, desk.limiter) == ("sesame", limiter)
    # What `tractor resume` of the moved game opens again (`host_again`).
    assert kept == [{"carried": True, "local_ai": False,
                     **hosting_meta(False, "sesame", True)}]
    # `tractor history` says where the first table's game went on.
    assert _Journal.added == {"747474747474-0": {"went_on": "757575757575-0"}}
    goes.stop()
    assert new_lan.announcer is None
