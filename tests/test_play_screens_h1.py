"""The new-user pass on the play screens (issue 32): the table's rules during play, the
plain help at 80 columns, the log of a hide_played table, the kitty thief's burial, the
take-back key only when a take-back can work."""

from __future__ import annotations

import random
from dataclasses import replace

from helpers import T
from local_client import LocalClient
from prompt_toolkit.utils import get_cwidth
from test_kitty_theft import EAST, NORTH, SOUTH, WEST, declared_hand, north_buries
from test_table_friends import play
from test_table_theft import ONE_THEFT, SETUP, Thief
from test_takeback import _at_play, _plain_play
from test_takeback_table import NAMES, _table, _until

from tractor import Rules
from tractor.actions import Bury, Declare, Play
from tractor.cards import format_cards
from tractor.cli.rules_text import table_rules_text
from tractor.cli.screen import frame, render
from tractor.cli.screen.frame import keys_text
from tractor.cli.screen.panel_text import panel_text
from tractor.cli.screen.panels import Panels
from tractor.cli.screen.plain import PlainSession
from tractor.cli.screen.render import to_text
from tractor.cli.screen.table_view import middle_lines
from tractor.cli.screen.trick_hold import TrickHold
from tractor.cli.screen.view import PlayView
from tractor.cli.seat.seat_log import SeatLog
from tractor.hand import Hand
from tractor.net.table.player import RandomPlayer, SeatView
from tractor.observation import Observation
from tractor.phases import Decision


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

    def observation(self) -> Observation:
        return self.hand.observe(self.seat)


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


def test_a_take_back_of_the_play_that_ended_a_trick_logs_its_winner_once() -> None:
    deal, tables, _players = _table(2)
    _until(deal, tables, lambda: all(len(t.tricks) == 1 for t in tables))
    leader = tables[0].trick.leader if tables[0].trick else 0
    taker = (leader + 3) % 4  # plays the trick's last card
    for k in range(4):
        seat = (leader + k) % 4
        _until(deal, tables, lambda seat=seat: tables[seat].waiting == Decision.PLAY)
        deal.broadcast(seat, tables[seat].decide(RandomPlayer(5 + k).play(tables[seat].view())))
    _until(deal, tables, lambda: all(len(t.tricks) == 2 for t in tables))
    log = SeatLog([], NAMES, 4)
    log.hand(tables[taker])
    played = tables[taker].tricks[1].plays[3]
    assert log.lines[-1] == f"{NAMES[taker]} plays {format_cards(played, True)}"
    deal.broadcast(taker, tables[taker].take_back())
    _until(deal, tables, lambda: tables[taker].playing.takebacks.events != [])
    deal.run()
    log.hand(tables[taker])
    assert log.lines[-1] == f"{NAMES[taker]} took back {format_cards(played, True)}"
    deal.broadcast(taker, tables[taker].decide(Play(taker, played)))  # final now
    deal.run()
    log.hand(tables[taker])
    assert [line for line in log.lines if line.startswith("trick 2 to")] == [log.lines[-1]]
    assert log.lines[-2] == f"{NAMES[taker]} plays {format_cards(played, True)}"


def _stolen() -> Hand:
    """North buried; East overcalls with a pair of 2s and takes the kitty (tests/
    test_kitty_theft.py's hand)."""
    hand = declared_hand()
    north_buries(hand)
    hand.apply(Declare(EAST, T("2S 2S")))
    return hand


def test_the_table_names_the_thief_burying_the_kitty_it_took() -> None:
    hand = _stolen()
    names = ["North", "East", "South", "West"]
    for seat in (NORTH, SOUTH, WEST):
        assert middle_lines(hand.observe(seat), names, 40)[0] == "East took the kitty and buries 8"
    assert middle_lines(hand.observe(EAST), names, 40)[0] == "you took the kitty: bury 8 cards"


def test_the_thief_sees_plus_marks_on_the_cards_it_took_and_the_starter_none() -> None:
    hand = _stolen()
    obs = hand.observe(EAST)
    assert obs.kitty is not None and sorted(obs.kitty) == sorted(T("5H 10H KH 3D 4D 6D 7D 8D"))
    assert Observation.from_data(obs.to_data()) == obs
    order = render.hand_order(obs)
    assert sorted(order[p] for p in render.talon_positions(obs)) == sorted(obs.kitty)
    assert "+" in to_text(render.hand_fragments(obs))
    starter = hand.observe(NORTH)  # it buried already: nothing of its hand is marked
    assert render.talon_positions(starter) == set()
    assert hand.observe(SOUTH).kitty is None


class _KittyWatcher(Thief):
    """A `Thief` that notes what its observation says it took, at each of its burials."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.seen: list[tuple[tuple[int, ...] | None, tuple[int, ...] | None]] = []

    def bury(self, view: SeatView, count: int) -> Bury:
        self.seen.append((view.observation.kitty, view.observation.talon))
        return super().bury(view, count)


def test_between_peers_the_thief_is_shown_the_kitty_it_took() -> None:
    players = [_KittyWatcher(ONE_THEFT * 10 + s) for s in range(4)]
    tables = play(ONE_THEFT, SETUP, players)
    table = tables[0]
    (thief, _), = table.public.thefts
    first = sorted(table.deck.deck_order()[p] % 54 for p in table.deck.burials[0])
    kitty, _talon = players[thief].seen[-1]
    assert kitty is not None and sorted(kitty) == first
    starter = table.public.starter
    assert starter is not None and players[starter].seen[0][0] is None


class _Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_a_trick_finished_as_the_next_is_led_stays_on_the_table_a_pace() -> None:
    client = LocalClient(seed=3)
    view = PlayView(client)
    clock = _Clock()
    view.trick_hold = TrickHold(1.5, clock)
    view.sync()
    for _ in range(30):  # the person's plays (the hint's) until one ends a trick that is
        before = len(client.observation().tricks)  # followed at once by the next lead
        while client.decision() not in (Decision.PLAY, None):
            hint = client.hint()
            assert hint is not None
            view.send(hint)
        hint = client.hint()
        view.trick_hold.key_starts()  # Enter plays it
        assert hint is not None and view.send(hint)
        view.key_pressed()  # the key of the play that ended a trick leaves it held
        obs = client.observation()
        if len(obs.tricks) > before and obs.current:
            break
    else:
        raise AssertionError("no trick ended with the next one led at once")
    winner = client.names[obs.tricks[-1].winner]

    def table() -> str:  # the ring of seats, without the log under it
        pane = to_text(frame.table_pane(client, 80, 14, view.trick_hold.shown))
        return pane.split("── latest")[0]
    assert "won" in table() and f"trick {len(obs.tricks)} to {winner}" in table()
    clock.t += 1.5  # the pace is over: the next trick shows, its lead marked
    assert "won" not in table() and "led" in table()
    clock.t -= 1.0
    assert view.trick_hold.shown(obs) != obs
    view.trick_hold.key_starts()
    view.key_pressed()  # the next key: the person looked, the table goes on
    assert view.trick_hold.shown(obs) == obs


def test_a_trick_held_as_the_table_moved_gives_way_at_the_persons_next_key() -> None:
    client = LocalClient(seed=3)
    while not client.observation().tricks or not client.observation().current:
        hint = client.hint()
        assert hint is not None and client.submit(hint) is None
    obs = client.observation()
    hold = TrickHold(1.5, _Clock())
    hold.look(replace(obs, tricks=obs.tricks[:-1]))
    assert hold.look(obs) and hold.shown(obs) != obs  # an AI's card ended it
    hold.key_starts()
    hold.key_pressed()
    assert hold.shown(obs) == obs
