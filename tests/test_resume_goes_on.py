"""A seat brought back by `tractor resume` goes on at a new table when a seat is gone for
good, as the first run would (`cli.going_on`). Found at a LAN table: the host came back
with `tractor resume`, a seat left for good, and the guest's "the game could not go on at
a new table: cannot reach the lobby: Connection refused" while the host's screen stayed
at the halted hand: `resume` never made the `GoesOn` that `play`, `host` and `join`
make, and their journals did not keep the lobby, its passphrase or the AI players' set-up.

The meta goes through JSON, as the journal keeps it; the lobby, the seat and the AI
processes are stand-ins (`test_goes_on`), the reactor a `Clock`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_goes_on import _Client, _Node, kept  # noqa: F401 (kept: a fixture)
from twisted.internet.defer import Deferred, ensureDeferred
from twisted.internet.task import Clock

from tractor.cli import going_on
from tractor.cli.going_on import GOING_ON_KEY, GoingOn, LocalAi, resumed_goes_on
from tractor.cli.seat import goes_on
from tractor.net.journal.records import GameStart
from tractor.net.journal.store import Journal
from tractor.net.lobby.errors import LobbyError
from tractor.net.lobby.seating import Seating
from tractor.rules import Rules

LOBBY = "tcp:192.0.2.5:41111"  #: the host's lobby, as the first run opened it
CARRY = ["2", "2", 0, 0, 0]  #: `_Node.carry`


class _Session:
    """What `journaled_seating` reads of a resumed session."""

    def __init__(self, seat: int) -> None:
        self.table, self.rules, self.seat = b"t" * 32, Rules(), seat
        self.public_keys = [Ed25519PrivateKey.from_private_bytes(bytes([s + 1]) * 32)
                            .public_key() for s in range(4)]


class _Child:
    """An AI process this command started."""

    def __init__(self) -> None:
        self.terminated = False

    def terminate(self) -> None:
        self.terminated = True


class _Waiting:
    """A lobby (the host's reopened one, or the guest's side of it): ready, then started."""

    def __init__(self, fill_local: Any = None) -> None:
        self.fill_local, self.readied, self.filled = fill_local, False, None
        self.started: Deferred[Seating] = Deferred()
        self.closed = False
        self.state = argparse.Namespace(watchers=None)

    def ready(self, flag: bool) -> None:
        self.readied = flag

    async def request_fill(self, seats: list[int]) -> None:
        self.filled = seats
        self.fill_local(len(seats), "tcp:127.0.0.1:41111", [bytes([s]) * 16 for s in seats])

    def close(self) -> None:
        self.closed = True


def journaled(seat: int, kinds: list[str], extra: dict[str, Any]) -> dict[str, Any]:
    """A seat's meta as `take_seat` journals it, with the command's own ``extra``."""
    return json.loads(json.dumps({
        "names": ["Hana", "Gus", "AI 1", "AI 2"], "kinds": kinds,
        "addresses": {str(s): f"tcp:192.0.2.5:{40124 + s}" for s in range(4)},
        "listen": f"tcp:{40124 + seat}:interface=0.0.0.0", "table_name": "hana's table",
        "carry": None, "watchers": False, "nonce": "00" * 16,
        "ai_levels": [None, None, "easy", "easy"], **extra}))


def moved(seat: int) -> Seating:
    return Seating(b"u" * 32, "hana's table", Rules(), seat,
                   tuple(bytes([s]) * 32 for s in range(4)),
                   {s: f"tcp:192.0.2.5:{41010 + s}" for s in range(4)},
                   ("Hana", "Gus", "AI 3", "AI 4"), ("human", "human", "ai", "ai"),
                   tuple(CARRY), watchers=False)


@pytest.fixture
def spawned(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The AI processes the resumed seat starts (their arguments), as stand-ins."""
    spawned: list[dict[str, Any]] = []

    def spawn(reactor: Any, address: str, tokens: list[bytes], strategy: str, level: str,
              seed: int | None, **kw: Any) -> _Child:
        spawned.append({"address": address, "tokens": tokens, "strategy": strategy,
                        "level": level, "seed": seed, **kw})
        return _Child()

    monkeypatch.setattr(going_on, "spawn_ai_process", spawn)
    return spawned


def test_a_resumed_host_reopens_its_lobby_on_its_port_with_the_carry_and_its_ai(
        monkeypatch: pytest.MonkeyPatch, kept: list[dict[str, Any]],  # noqa: F811
        spawned: list[dict[str, Any]], tmp_path: Path) -> None:
    ai = LocalAi("heuristic", "easy", 0.0, "0.0.0.0")
    meta = journaled(0, ["human", "human", "ai", "ai"], {
        "local_ai": True, **GoingOn(LOBBY, "0.0.0.0", True, "Hana", ai).kept("sesame")})
    opened: list[dict[str, Any]] = []

    async def host_table(reactor: Any, name: str, rules: Rules, me: Any,
                         passphrase: str | None, **kw: Any) -> _Waiting:
        lobby = _Waiting(kw["fill_local"])
        opened.append({"name": name, "me": me, "passphrase": passphrase, "lobby": lobby,
                       **kw})
        return lobby

    monkeypatch.setattr(goes_on, "host_table", host_table)
    resumed = [_Child(), _Child()]  # the AI seats `tractor resume` brought back
    children: list[Any] = list(resumed)
    client, clock = _Client(), Clock()
    # The person typed `tractor resume` (their login name, another --grace).
    args = argparse.Namespace(player="hana-login", grace=3.0, deal_pace=0.0)
    goes = resumed_goes_on(clock, args, client, _Session(0), meta,  # type: ignore[arg-type]
                           children, tmp_path, None)
    assert goes is not None
    old = client.node
    ensureDeferred(goes._go_on(old, 3))  # type: ignore[arg-type]
    (lobby,) = opened
    assert (lobby["listen"], lobby["passphrase"], lobby["carry"], lobby["name"]) == (
        "tcp:41111:interface=0.0.0.0", "sesame", tuple(CARRY), "hana's table")
    assert (lobby["me"].name, lobby["me"].wanted_seat) == ("Hana", 0)  # as it sat
    assert lobby["lobby"].readied and lobby["lobby"].filled == [2, 3]
    # The resumed AI processes are retired; new ones fill the AI seats, numbered on.
    assert all(c.terminated for c in resumed) and len(children) == 2
    assert [(s["name"], s["strategy"], s["level"], s["interface"], s["patient"],
             s["grace"]) for s in spawned] == [
        (f"AI {n}", "heuristic", "easy", "0.0.0.0", False, 3.0) for n in (3, 4)]
    lobby["lobby"].started.callback(moved(0))
    assert old.stopped and client.node is not old and lobby["lobby"].closed
    # The new table's journal keeps the same, for a resume there.
    (again,) = kept
    assert GoingOn.from_meta(again) == GoingOn(LOBBY, "0.0.0.0", True, "Hana", ai)
    assert again["lobby_passphrase"] == "sesame" and again["local_ai"] is True


def test_a_resumed_guest_rejoins_the_hosts_reopened_lobby(
        monkeypatch: pytest.MonkeyPatch, kept: list[dict[str, Any]],  # noqa: F811
        tmp_path: Path) -> None:
    meta = journaled(1, ["human", "human", "ai", "ai"],
                     GoingOn(LOBBY, "0.0.0.0", False, "Gus").kept("sesame"))
    knocks: list[dict[str, Any]] = []
    guest = _Waiting()

    async def join_table(reactor: Any, address: str, me: Any, passphrase: str | None,
                         expect_carry: Any) -> _Waiting:
        knocks.append({"address": address, "me": me, "passphrase": passphrase,
                       "carry": expect_carry})
        if len(knocks) == 1:  # the host has not reopened it yet
            raise LobbyError("cannot reach the lobby: Connection refused", address)
        return guest

    monkeypatch.setattr(goes_on, "join_table", join_table)
    client, clock = _Client(), Clock()
    args = argparse.Namespace(player="gus-login", grace=120.0, deal_pace=0.0)
    goes = resumed_goes_on(clock, args, client, _Session(1), meta,  # type: ignore[arg-type]
                           [], tmp_path, None)
    assert goes is not None and goes.fill_local is None
    ensureDeferred(goes._go_on(client.node, 3))  # type: ignore[arg-type]
    clock.advance(2.0)
    assert [(k["address"], k["passphrase"], k["carry"], k["me"].name, k["me"].wanted_seat)
            for k in knocks] == [(LOBBY, "sesame", tuple(CARRY), "Gus", 1)] * 2
    assert guest.readied
    guest.started.callback(moved(1))
    (again,) = kept
    assert GoingOn.from_meta(again) == GoingOn(LOBBY, "0.0.0.0", False, "Gus")
    assert again["lobby_passphrase"] == "sesame" and again["local_ai"] is False


def test_a_resumed_practice_game_asks_its_own_ai_seats_again(
        monkeypatch: pytest.MonkeyPatch, kept: list[dict[str, Any]],  # noqa: F811
        spawned: list[dict[str, Any]], tmp_path: Path) -> None:
    ai = LocalAi("search", "hard", 1.5, "127.0.0.1", seed=7, practice=True)
    marks = {"local_ai": True, "practice": True, "strategy": "search", "level": "hard"}
    meta = journaled(0, ["human", "ai", "ai", "ai"], {
        **marks, **GoingOn("tcp:127.0.0.1:41111", "127.0.0.1", True, "You", ai).kept(None)})

    async def host_table(reactor: Any, name: str, rules: Rules, me: Any,
                         passphrase: str | None, **kw: Any) -> _Waiting:
        lobby = _Waiting(kw["fill_local"])
        reactor.callLater(0, lobby.started.callback, moved(0))
        return lobby

    monkeypatch.setattr(goes_on, "host_table", host_table)
    client, clock = _Client(), Clock()
    args = argparse.Namespace(player="login", grace=120.0, deal_pace=0.0)
    goes = resumed_goes_on(clock, args, client, _Session(0), meta,  # type: ignore[arg-type]
                           [], tmp_path, None)
    assert goes is not None
    ensureDeferred(goes._go_on(client.node, 2))  # type: ignore[arg-type]
    clock.advance(0)
    assert [(s["name"], s["seed"], s["patient"], s["interface"], s["takeback_wait"])
            for s in spawned] == [("AI 1", 7, True, "127.0.0.1", 1.5),
                                  ("AI 2", 1007, True, "127.0.0.1", 1.5),
                                  ("AI 3", 2007, True, "127.0.0.1", 1.5)]
    (again,) = kept
    assert {k: again[k] for k in marks} == marks and again["carried"] is True
    assert GoingOn.from_meta(again) is not None and "lobby_passphrase" not in again
    assert isinstance(client.node, _Node) and client.node.judging.patient


@pytest.mark.parametrize("record", [
    None,  # an internet table's seat, or a game journaled by an older tractor
    {"lobby": LOBBY, "interface": "0.0.0.0", "host": "yes", "player": "Gus", "ai": None},
    {"lobby": LOBBY, "interface": "0.0.0.0", "host": True, "player": "Hana",
     "ai": {"strategy": "easy", "level": "easy", "takeback_wait": True,
            "interface": "0.0.0.0"}},
    [LOBBY]])
def test_a_seat_whose_journal_keeps_no_sound_record_gets_no_new_table(
        record: Any, tmp_path: Path) -> None:
    meta = journaled(1, ["human"] * 4, {} if record is None else {GOING_ON_KEY: record})
    args = argparse.Namespace(player="gus", grace=120.0, deal_pace=0.0)
    assert resumed_goes_on(Clock(), args, _Client(), _Session(1),  # type: ignore[arg-type]
                           meta, [], tmp_path, None) is None


def test_the_journal_forgets_the_lobbys_passphrase_once_the_game_is_over(
        tmp_path: Path) -> None:
    journal = Journal(str(tmp_path / "j.sqlite"))
    journal.add_game("g-1", GameStart(1, bytes(32), bytes(32), Rules(), b"t" * 32,
                                      tuple(bytes([s]) * 32 for s in range(4)), 0))
    journal.set_meta("g-1", journaled(1, ["human"] * 4,
                                      GoingOn(LOBBY, "0.0.0.0", False, "Gus").kept("sesame")))
    assert journal.meta("g-1")["lobby_passphrase"] == "sesame"
    journal.mark_finished("g-1")  # its table halted, or it moved on
    meta = journal.meta("g-1")
    assert "lobby_passphrase" not in meta and GoingOn.from_meta(meta) is not None
