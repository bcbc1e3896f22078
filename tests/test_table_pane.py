"""The table pane's layout (`cli/screen/table_view.py`) at sizes and with names a person meets:
long names, names in wide characters (two terminal cells each), short terminals, many
seats. The trick's cards must never vanish silently, and no line may spill out."""

from __future__ import annotations

import doctest
import re

import pytest
from local_client import LocalClient
from prompt_toolkit.utils import get_cwidth

from tractor import Rules
from tractor.cards import format_cards
from tractor.cli.screen import render, table_view

LONG = ["Bartholomew Longname", "Maximilianus", "Christopherson", "Evangelinette"]
WIDE = ["我", "张伟" * 7, "李娜" * 8, "王芳王芳"]


def test_doctests() -> None:
    assert doctest.testmod(table_view).failed == 0


def follow(players: int = 4, seed: int = 1) -> LocalClient:
    """A client at its person's first follow (another seat led)."""
    rules = Rules(players=players, decks=players // 2) if players != 4 else None
    client = LocalClient(rules=rules, seed=seed)
    while client.decision() is not None and not (client.decision() == "play"
                                                 and client.observation().current):
        assert client.submit(client.hint()) is None
    assert client.observation().current
    return client


def cells(line: str) -> int:
    return sum(get_cwidth(ch) for ch in line)


@pytest.mark.parametrize("names", [LONG, WIDE, None])
@pytest.mark.parametrize("size", [(60, 16), (80, 14), (80, 24), (100, 32), (120, 40)])
def test_no_line_spills_and_the_led_cards_show(names, size) -> None:
    client = follow()
    obs = client.observation()
    names = names or client.names
    width, height = size
    text = render.to_text(table_view.table_pane(obs, names, client.events(), width, height))
    lines = text.split("\n")
    assert len(lines) <= height
    assert all(cells(line) <= width for line in lines), text
    if width >= table_view.LOG_BESIDE_FROM:  # the log's rule in one column, every row
        columns = {cells(line[:line.index("│")]) for line in lines if "│" in line}
        assert columns == {width - table_view.LOG_WIDTH - 1}, text
    led = format_cards(obs.current[0], symbols=True)
    assert led in text, text  # the leader's cards, whole


def test_a_place_short_of_room_keeps_its_cards_before_its_side_line() -> None:
    client = follow()
    obs = client.observation()
    plays = {obs.leader: (obs.current[0], "led")}
    full = table_view.seat_lines(obs, LONG, obs.leader, 18, plays)
    assert len(full) == 3  # name, side, cards
    two = table_view.seat_lines(obs, LONG, obs.leader, 18, plays, height=2)
    assert render.to_text(two[-1]).startswith(format_cards(obs.current[0], symbols=True))
    one = table_view.seat_lines(obs, LONG, obs.leader, 18, plays, height=1)
    assert len(one) == 1


def test_many_seats_and_a_long_throw_are_cut_with_a_mark_not_silently() -> None:
    client = follow()
    obs = client.observation()
    throw = tuple(range(13))  # ♠2 up to ♠A: wraps to several lines in a narrow place
    plays = {obs.leader: (throw, "led")}
    lines = table_view.seat_lines(obs, client.names, obs.leader, 12, plays, height=3)
    text = "\n".join(render.to_text(line) for line in lines)
    assert len(lines) == 3 and text.endswith("…"), text


def test_the_own_place_keeps_its_you_mark_whatever_the_name() -> None:
    client = follow()
    obs = client.observation()
    lines = table_view.seat_lines(obs, LONG, obs.seat, 18, {})
    head = render.to_text(lines[0])
    assert head.endswith("(you)") and cells(head) <= 18, head


def test_twelve_seats_sit_apart() -> None:
    client = follow(players=12, seed=3)
    obs = client.observation()
    text = render.to_text(table_view.table_pane(obs, client.names, [], 80, 24))
    lines = text.split("\n")
    assert all(cells(line) <= 80 for line in lines)
    for seat in range(12):
        assert client.names[seat] in text


@pytest.mark.parametrize("players", [4, 6, 8])
def test_every_place_takes_the_same_side_line_form(players) -> None:
    # The middle column is the widest (it takes the remainder): at 101-106 columns six
    # seats showed "def lv 2 · 17 cards" beside "decl · lv 2 · 18 cards".
    client = follow(players)
    obs = client.observation()
    forms = set()
    for width in range(60, 130):
        text = "\n".join(render.to_text(line)
                         for line in table_view.ring_lines(obs, client.names, width, 30))
        # The side line's three forms: "decl · lv 2 · 17 cards", "decl lv 2 · 17 cards",
        # "decl 2 · 17" (then cut to the place).
        found = set(re.findall(r"(?:decl|def|team \d)( · lv | lv | )\w+ · \d", text))
        assert len(found) == 1, (width, text)
        forms |= found
    assert len(forms) >= 2, forms  # the form changes over these widths
