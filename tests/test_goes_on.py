"""A game that goes on at a new table (`cli.seat.goes_on.GoesOn`) keeps what its seat's
journal said of it: a practice game moved to a new table after an AI seat was gone lost
its practice mark and AI level (`tractor resume` was then not patient with it, `tractor
stats` no longer knew its AI level). The move itself is driven with stand-ins for the
sockets: the lobby, the node and the seat are not what is tested here."""

from __future__ import annotations

import argparse
from typing import Any

from twisted.internet.defer import Deferred, ensureDeferred

from tractor.cli.seat import goes_on
from tractor.cli.seat.goes_on import GoesOn
from tractor.net.lobby.seating import Seating
from tractor.rules import Rules

SEATING = Seating(b"t" * 32, "practice", Rules(), 0, tuple(bytes([s]) * 32 for s in range(4)),
                  {s: f"tcp:127.0.0.1:{41000 + s}" for s in range(4)},
                  ("Ann", "AI 1", "AI 2", "AI 3"), ("human", "ai", "ai", "ai"))


class _Node:
    grace = 2.0

    def __init__(self) -> None:
        self.done: Deferred[None] = Deferred()
        self.stopped = False
        self.session = self

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


def test_a_practice_game_gone_on_at_a_new_table_keeps_its_marks(monkeypatch) -> None:
    kept: list[dict[str, Any]] = []

    async def listen(reactor: Any, interface: str, grace: float) -> tuple[_Node, int]:
        return _Node(), 41010

    monkeypatch.setattr(goes_on, "listen_node", listen)
    monkeypatch.setattr(goes_on, "Journal", lambda path: None)
    monkeypatch.setattr(goes_on, "take_seat", lambda *a, meta: kept.append(meta))
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
