"""The new-user pass on the play screens (issue 32): the table's rules during play, the
plain help at 80 columns, the log of a hide_played table, the kitty thief's burial, the
take-back key only when a take-back can work."""

from __future__ import annotations

import random

from local_client import LocalClient
from prompt_toolkit.utils import get_cwidth
from test_takeback import _at_play, _plain_play

from tractor import Rules
from tractor.cli.rules_text import table_rules_text
from tractor.cli.screen.frame import keys_text
from tractor.cli.screen.panel_text import panel_text
from tractor.cli.screen.panels import Panels
from tractor.cli.screen.plain import PlainSession
from tractor.cli.screen.render import to_text
from tractor.hand import Hand


def _plain(rules: Rules | None = None) -> tuple[PlainSession, list[str]]:
    said: list[str] = []
    return PlainSession(LocalClient(rules, seed=1), said.append), said


def test_plain_help_fits_80_columns_line_by_line() -> None:
    session, said = _plain(Rules(mode="friends", players=5))
    session.handle("help")
    lines = "".join(said).splitlines()
    assert any(line.lstrip().startswith("undo") for line in lines)
    assert any(line.lstrip().startswith("rules") for line in lines)
    too_wide = [line for line in lines if get_cwidth(line) > 80]
    assert not too_wide, too_wide


def test_the_table_rules_that_differ_show_in_plain_and_in_the_help_panel() -> None:
    rules = Rules(kitty_theft=True, takebacks=True)
    text = table_rules_text(rules)
    assert "kitty_theft=true" in text and "takebacks=true" in text
    assert "hide_played" not in text and "decks" not in text
    session, said = _plain(rules)
    session.handle("rules")
    assert text in "".join(said)
    assert text in panel_text("help", LocalClient(rules, seed=1))


def test_a_table_at_the_defaults_says_so() -> None:
    assert "every option at its default" in table_rules_text(Rules())
    session, said = _plain()
    session.handle("rules")
    assert "every option at its default" in "".join(said)


def test_the_whole_log_of_a_hide_played_table_says_why_it_has_no_plays() -> None:
    hidden = LocalClient(Rules(hide_played=True), seed=1)
    assert "hide_played" in panel_text("log", hidden)
    assert "hide_played" not in panel_text("log", LocalClient(seed=1))
    said: list[str] = []
    PlainSession(hidden, said.append).handle("log")
    assert "hide_played" in "".join(said)


def test_the_note_under_the_log_title_leaves_the_page_its_rows() -> None:
    hidden = LocalClient(Rules(hide_played=True), seed=1)
    panels = Panels(hidden)
    panels.log_drawn(80, 10)
    page = to_text(panels.log_fragments(80, 10)).split("\n")
    assert len(page) <= 10 and "hide_played" in page[1]


class _Waiting:
    """A seat that waits for the others (no decision) at a hand of the rules core."""

    def __init__(self, hand: Hand, seat: int) -> None:
        self.hand, self.seat, self.rules = hand, seat, hand.rules

    def decision(self) -> None:
        return None

    def takeback_refusal(self) -> str | None:
        return self.hand.takeback_refusal(self.seat)


def test_the_take_back_key_shows_only_while_the_rules_core_allows_one() -> None:
    hand = _at_play(Rules(takebacks=True), 4)
    rng = random.Random(4)
    seat = hand.to_act()
    assert seat is not None
    waiting = _Waiting(hand, seat)
    assert "u take back" not in keys_text(waiting, None, False)  # nothing played yet
    hand.apply(_plain_play(hand, rng))
    assert "u take back" in keys_text(waiting, None, False)
    hand.apply(_plain_play(hand, rng))  # the next seat played: too late
    assert "u take back" not in keys_text(waiting, None, False)
    off = _at_play(Rules(), 4)
    seat = off.to_act()
    assert seat is not None
    off.apply(_plain_play(off, rng))
    assert "u take back" not in keys_text(_Waiting(off, seat), None, False)
