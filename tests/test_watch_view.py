"""The full-screen watch view (`cli.screen.watch_screen` on a `cli.seat.watcher_client`):
what a watcher sees at 80x24 of a game replayed from a seat's signed transcript (every
seat, the trick, the points, the log, the tracker; no hand, nobody "you"), its keys, and
that it can make no move."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from memnet import TABLE, MemNet
from prompt_toolkit.application import Application
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.key_binding.key_processor import KeyPress
from prompt_toolkit.keys import Keys
from prompt_toolkit.output import DummyOutput
from twisted.internet.task import Clock

from tractor.actions import Play
from tractor.cli.screen.app import capture
from tractor.cli.screen.frame import status_fragments
from tractor.cli.screen.render import to_text
from tractor.cli.screen.watch_screen import WatchView, build_watch_app
from tractor.cli.seat.watcher_client import (
    CLOSES_AFTER,
    NO_MOVES,
    WATCHING,
    WatcherClient,
    is_watching,
)
from tractor.net.table.spectator import Spectator
from tractor.phases import Phase

NAMES = ["ann", "bob", "cy", "dee"]


def _feed(net: MemNet, spectator: Spectator, client: WatcherClient) -> None:
    for frame in dict.fromkeys(net.sessions[1].journal()):
        if spectator.take(frame):
            client.changed()


@pytest.fixture(scope="module")
def game() -> dict[str, Any]:
    """A game at four seats, watched from its first hand's fifth trick (two cards on the
    table), then to the next hand's first card."""
    net = MemNet(seed=5, hands=2)
    spectator = Spectator(net.rules, TABLE, [k.public_key() for k in net.keys])
    client = WatcherClient(spectator, NAMES)

    def mid_trick() -> bool:
        hand = net.sessions[1].current
        return hand.phase == Phase.PLAY and len(hand.public.tricks) >= 4 \
            and len(hand.public.current) == 2

    net.run(until=mid_trick)
    _feed(net, spectator, client)
    seats = net.sessions[1].current
    mid = {"obs": client.observation(), "screen": _screen(client, lambda app: None),
           "tracker": _screen(client, lambda app: _keys(app, "o")),
           "hands": [seats.public.size_of(s) for s in range(4)],
           "held": [set(net.sessions[s].current.my_faces()) for s in range(4)]}
    # To the next hand's first card, the status line read after every frame.
    net.run(begin=False, until=lambda: net.sessions[1].hand_no == 1
            and net.sessions[1].current.public.drawn > 0)
    over = []
    for frame in dict.fromkeys(net.sessions[1].journal()):
        if spectator.take(frame):
            client.changed()
            over.append("hand over" in to_text(status_fragments(client, 80)))
            if over[-1]:  # the summary is due while the hand is over
                assert client.summary() is client.last_summary() is not None
    return {"net": net, "client": client, "mid": mid, "over": over}


@pytest.fixture
def app(game: dict[str, Any]) -> Iterator[Application[Any]]:
    with create_pipe_input() as pipe:
        yield build_watch_app(game["client"], input=pipe, output=DummyOutput())


def _screen(client: WatcherClient, act: Any) -> str:
    with create_pipe_input() as pipe:
        app = build_watch_app(client, input=pipe, output=DummyOutput())
        act(app)
        return capture(app, 80, 24)


def _keys(app: Application[Any], *keys: str | Keys) -> None:
    """Press ``keys`` (on an event loop: prompt_toolkit's key processor wants one)."""

    async def press() -> None:
        processor = app.key_processor
        for key in keys:
            processor.feed(KeyPress(key, key if isinstance(key, str) else ""))
        processor.process_keys()

    asyncio.run(press())


def _view(app: Application[Any]) -> WatchView:
    return app.tractor_view  # type: ignore[attr-defined,no-any-return]


def test_the_table_at_80x24_shows_every_seat_the_trick_and_the_points_and_no_hand(
        game: dict[str, Any]) -> None:
    screen, obs = game["mid"]["screen"], game["mid"]["obs"]
    lines = screen.split("\n")
    assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
    assert WATCHING in screen and "(you)" not in screen
    for name, size in zip(NAMES, game["mid"]["hands"], strict=True):
        assert name in screen
        assert obs.hand_sizes[NAMES.index(name)] == size
    assert all(f"{size} cards" in screen for size in game["mid"]["hands"])
    assert f"points {obs.defender_points}/" in screen
    assert "trick 5" in screen and "led" in screen  # the trick in play, its leader's cards
    assert "latest (g: whole log)" in screen  # the log beside the table
    assert is_watching(obs) and obs.hand == () and obs.talon is None


def test_the_watchers_observation_holds_no_card_a_seat_holds(game: dict[str, Any]) -> None:
    obs = game["mid"]["obs"]
    assert obs.buried is None  # the burial stays shut until the table opens it
    assert obs.seat == 4 and obs.players == 4


def test_the_tracker_counts_the_cards_out_without_a_hand_of_its_own(
        game: dict[str, Any]) -> None:
    tracker = game["mid"]["tracker"]
    assert "Still out (not played; 8 of them buried):" in tracker
    assert "your hand" not in tracker and "you hold" not in tracker
    assert "Points still out" in tracker


def test_a_hands_summary_opens_by_itself_and_esc_goes_back_to_the_table(
        app: Application[Any]) -> None:
    view = _view(app)
    assert view.panel == "summary"
    text = capture(app, 80, 24)
    assert "Hand 1 is over." in text and "peers verified the hand" in text
    _keys(app, Keys.Escape)
    assert view.panel is None
    _keys(app, "s")
    assert view.panel == "summary"


def test_the_keys_open_the_panels_a_seat_has_and_q_quits(app: Application[Any]) -> None:
    view = _view(app)
    _keys(app, Keys.Escape, "g")
    assert view.panel == "log"
    assert "hand 1 over" in capture(app, 80, 24)
    _keys(app, "l")
    assert view.panel == "last"
    _keys(app, "?")
    assert view.panel == "help" and "stop watching" in capture(app, 80, 24)
    _keys(app, Keys.Escape)
    assert view.panel is None
    exited: list[bool] = []
    app.exit = lambda *a, **k: exited.append(True)  # type: ignore[method-assign]
    _keys(app, "q")
    assert exited == [True]


def test_a_watcher_makes_no_move(game: dict[str, Any]) -> None:
    client = game["client"]
    assert client.decision() is None and client.hint() is None
    assert client.submit(Play(0, (0,))) == NO_MOVES
    assert client.declaration_options() == []


def test_a_watch_that_ended_says_why_and_how_to_leave_and_closes_by_itself() -> None:
    from tractor.cli.watch import ScreenFollowing

    net = MemNet(seed=5, hands=1)
    client = WatcherClient(Spectator(net.rules, TABLE, [k.public_key() for k in net.keys]),
                           NAMES)
    clock = Clock()
    follow = ScreenFollowing(clock)
    follow.view = client
    follow._ended("ann, whose seat you watch through, left the table")
    assert client.banner() == (
        "The watch ended: ann, whose seat you watch through, left the table · press q to "
        f"leave (it closes by itself in {CLOSES_AFTER} s)")
    closed: list[bool] = []
    with create_pipe_input() as pipe:
        app = build_watch_app(client, input=pipe, output=DummyOutput())
        app.exit = lambda *a, **k: closed.append(True)  # type: ignore[method-assign]
        screen = capture(app, 80, 24)
        assert "left the table" in screen and "press q" in screen
        assert all(len(line) <= 80 for line in screen.split("\n"))
        clock.advance(CLOSES_AFTER - 1)
        assert closed == []
        clock.advance(1)
        assert closed == [True]



def test_the_status_says_hand_over_only_until_the_next_hand_deals(
        game: dict[str, Any]) -> None:
    # The watcher keeps the last hand's summary (s shows it again): the status line said
    # "hand over: read the summary" for the whole next hand, even after Esc.
    client, over = game["client"], game["over"]
    assert True in over and not over[-1]  # said at the hand's end, not once it deals on
    assert client.summary() is None and client.last_summary() is not None
    assert client.session.hand_no == 1 and client.observation().cards_dealt > 0
    with create_pipe_input() as pipe:
        app = build_watch_app(client, input=pipe, output=DummyOutput())
        _keys(app, Keys.Escape, "s")  # (a new screen opens it by itself: closed first)
        assert _view(app).panel == "summary" and "Hand 1 is over." in capture(app, 80, 24)
