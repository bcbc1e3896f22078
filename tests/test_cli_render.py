"""The screens' render functions: pure text from a seat's observation."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from helpers import T, build_deck

from tractor import Bury, Hand, Play, Rules, Trump
from tractor.cards import format_cards, parse_faces
from tractor.cli.screen import card_text, render, tracker_view
from tractor.observation import GameRecord, Observation
from tractor.scoring import points_of

R = Rules()
NAMES = ["You", "AI 1", "AI 2", "AI 3"]
HAND0 = "RJ BJ 2H 2S AH 3H AS KS 10D 4C 4C"


def dealt(starter: int = 0) -> Hand:
    """A hand at the talon exchange, trump ♥2: seat 0 holds HAND0 (+ the rest in face
    order)."""
    deck = build_deck(R, {0: HAND0}, talon="5S 5S KD")
    return Hand.dealt(R, deck, ["2", "3"], 0, Trump("2", "H"), starter=starter, declarers=0)


def buried(h: Hand) -> Hand:
    """Seat 0 buries the talon's first eight cards of its hand that are not in HAND0."""
    keep = parse_faces(HAND0)
    rest = list(h.hands[0])
    for f in keep:
        rest.remove(f)
    h.apply(Bury(0, tuple(rest[:8])))
    return h


def obs_of(h: Hand, seat: int = 0, hand_no: int = 0, winner: int | None = None,
           rules: Rules = R) -> Observation:
    """The seat's observation with a game's record, as the clients give it the screens."""
    return replace(h.observe(seat), game=GameRecord(rules, hand_no, tuple(h.levels), winner, ()))


# --- hand ---------------------------------------------------------------------------------


def test_hand_sorted_trumps_first_then_by_suit() -> None:
    o = obs_of(dealt())
    order = format_cards(render.hand_order(o), symbols=True).split()
    # Jokers, trump-suit rank card, other rank cards, trump suit, then ♠ ♥ ♦ ♣ high to low.
    assert order[:9] == ["RJ", "RJ", "BJ", "BJ", "♥2", "♠2", "♠2", "♥A", "♥3"]
    suits_after = [c[0] for c in order[6:] if not c.startswith(("RJ", "BJ"))]
    plain = [c for c in suits_after if c in "♠♦♣"]
    assert plain == sorted(plain, key="♠♦♣".index)
    groups = render.hand_groups(o)
    assert [label for label, _ in groups][0] == "trumps"
    assert sum(len(f) for _, f in groups) == len(order) == 33
    assert [f for _, fs in groups for f in fs] == render.hand_order(o)


def test_hand_before_trump_is_known_sorts_rank_cards_and_jokers_first() -> None:
    h = Hand(R, build_deck(R, {0: HAND0}), ["2", "2"], first=0)
    for _ in range(44):  # 11 rounds: seat 0 has drawn HAND0
        h.apply(h.random_action(random.Random(0), declare_chance=0))
    o = obs_of(h)
    assert o.trump is None
    order = format_cards(render.hand_order(o), symbols=True).split()
    assert order[:4] == ["RJ", "BJ", "♠2", "♥2"]
    assert render.hand_groups(o)[0][0] == "trumps?"


def test_hand_fragments_mark_cursor_and_selection_without_colour() -> None:
    o = obs_of(dealt())
    frags = render.hand_fragments(o, cursor=1, selected={0, 1}, color=False)
    text = render.to_text(frags)
    first = text.splitlines()[0]
    # Seat 0 holds the talon to bury: one BJ came from it and is marked +.
    assert o.phase == "talon" and o.talon
    assert first.startswith("trumps   RJ*>RJ* BJ+ BJ  ♥2")
    marked = render.talon_positions(o)
    assert len(marked) == len(o.talon)
    assert sorted(render.hand_order(o)[p] for p in marked) == sorted(o.talon)
    assert text.count("+") == len(marked - {0, 1})
    assert not any("red" in style for style, _ in frags)
    cards = [(s, t) for s, t in frags if t in ("RJ", "BJ")]
    assert "class:selected" in cards[0][0] and "class:cursor" not in cards[0][0]
    assert "class:selected" in cards[1][0] and "class:cursor" in cards[1][0]
    assert "class:selected" not in cards[2][0]
    assert all(len(line) <= 80 for line in text.splitlines())


def test_red_suits_are_red_unless_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    o = obs_of(dealt())
    coloured = render.hand_fragments(o, color=True)
    red = {t for s, t in coloured if "card.red" in s}
    assert {"RJ", "♥2", "♥A", "♦10"} <= red
    assert not red & {"BJ", "♠2", "♠A", "♣4"}
    monkeypatch.setenv("NO_COLOR", "1")
    assert card_text.use_color() is False
    assert not any("red" in s for s, _ in render.hand_fragments(o))
    monkeypatch.setenv("NO_COLOR", "")
    assert card_text.use_color() is True
    assert card_text.use_color({"NO_COLOR": "yes"}) is False


# --- table --------------------------------------------------------------------------------


def test_table_shows_every_seat_trump_and_the_talon_to_its_owner() -> None:
    h = dealt(starter=0)
    text = render.table_text(obs_of(h), NAMES)
    assert "Trump  rank 2, suit ♥" in text
    assert "Declarers: team 0 (You, AI 2), level 2" in text
    assert "Defenders: team 1 (AI 1, AI 3), level 3" in text
    assert "Defender points: 0" in text
    rows = [line for line in text.splitlines() if line[2:].startswith(tuple(NAMES))]
    assert len(rows) == 4
    assert rows[0].startswith("▶ You") and "decl*" in rows[0] and " 33" in rows[0]
    assert "def " in rows[1] and " 3 " in rows[1] and " 25" in rows[1]
    assert "Talon: ♠5 ♠5 ♦K" in text
    other = render.table_text(obs_of(h, seat=1), NAMES)
    assert "Talon" not in other
    # Your own row says so (in the seat's own view only).
    assert rows[0].startswith("▶ You (you) ") and not any("(you)" in r for r in rows[1:])
    theirs = [line for line in other.splitlines() if line[2:].startswith(tuple(NAMES))]
    assert theirs[1].startswith("  AI 1 (you) ") and "(you)" not in theirs[0]
    assert all(len(line) <= 48 for line in text.splitlines())


def test_table_shows_the_current_trick_then_the_last_one() -> None:
    h = buried(dealt())
    h.apply(Play(0, T("AS")))
    h.apply(next(iter(h.legal_actions(1))))
    text = render.table_text(obs_of(h), NAMES)
    you = next(line for line in text.splitlines() if line.startswith("  You"))
    assert you.endswith("♠A  led")
    assert "▶ AI 2" in text and "trick 1" in text
    while len(h.tricks) < 1:
        seat = h.to_act()
        h.apply(next(iter(h.legal_actions(seat))))
    text = render.table_text(obs_of(h), NAMES)
    assert "trick 1 (done)" in text
    assert "won" in text
    assert "Buried:" in text  # the starter sees what it buried


def test_deal_line_and_declarations() -> None:
    h = Hand(R, build_deck(R, {0: HAND0}), ["2", "2"], first=0)
    for _ in range(12):  # seat 0 has drawn RJ BJ 2H
        h.apply(h.random_action(random.Random(0), declare_chance=0))
    h.apply(next(a for a in h.legal_actions(0) if a.kind == "declare"))
    text = render.table_text(obs_of(h), NAMES)
    # The trump line agrees with the declaration beside it (it said "suit not declared
    # yet" beside "declared ♥2").
    assert "Trump  rank 2, suit ♥ so far" in text and "not declared" not in text
    assert "Dealing: 12 cards drawn · declared ♥2 by You" in text
    assert "Team 0 (You, AI 2): level 2" in text


def test_status_and_prompts() -> None:
    h = dealt()
    o = obs_of(h)
    assert render.status_text(o, NAMES, "bury") == \
        "Tractor · hand 1 · trump ♥2 · your turn: bury cards from the talon"
    assert render.trump_short(replace(o, trump=None, trump_rank="5")) == "5?"
    assert render.trump_short(replace(o, trump=Trump(None, None))) == "jokers only"
    assert render.trump_short(replace(o, trump=Trump("J", None))) == "J no suit"
    assert render.decision_prompt("bury", o, NAMES) == "Choose 8 cards to bury, then Enter."
    buried(h)
    o = obs_of(h, 1)
    assert render.status_text(o, NAMES, None).endswith("playing: waiting for You")
    h.apply(Play(0, T("AS")))
    o = obs_of(h, 1)
    assert render.decision_prompt("play", o, NAMES) == \
        "You led ♠A: follow with 1 card, then Enter."
    assert render.decision_prompt("declare", o, NAMES, [T("2H"), T("2H 2H")]) == \
        "Declare trumps? 1) ♥2; 2) ♥2 ♥2; or pass."
    assert render.talon_size(obs_of(h, rules=Rules(talon_cards=12))) == 12
    assert render.talon_size(replace(o, game=None)) == 8  # no rules: the talon shown


# --- on demand ------------------------------------------------------------------------------


def test_last_trick_text() -> None:
    h = buried(dealt())
    assert "No trick" in render.last_trick_text(obs_of(h), NAMES)
    while not h.tricks:
        h.apply(next(iter(h.legal_actions(h.to_act()))))
    text = render.last_trick_text(obs_of(h), NAMES)
    lines = text.splitlines()
    assert lines[0] == "Trick 1, led by You:"
    assert len(lines) == 6 and lines[-1].endswith("points.")
    assert sum("won" in line for line in lines) == 1


def test_tracker_counts_what_is_still_out() -> None:
    h = buried(dealt())
    while len(h.tricks) < 2:
        h.apply(next(iter(h.legal_actions(h.to_act()))))
    o = obs_of(h)
    out = tracker_view.out_counts(o)
    played = [f for t in h.tricks for p in t.plays for f in p]
    for face in range(54):
        expected = 2 - h.hands[0].count(face) - played.count(face) - h.buried.count(face)
        assert out[face] == expected
    assert sum(out.values()) == 108 - len(h.hands[0]) - len(played) - 8
    text = render.tracker_text(o)
    assert "Jokers:  none" in text  # seat 0 holds all four
    assert "Rank 2:" in text and "Trumps:" in text
    assert text.splitlines()[-2].startswith("Points still out: ")
    assert text.splitlines()[-1] == "You buried: " + render.cards_label(h.buried) + (
        " (no points)" if not points_of(h.buried) else f" ({points_of(h.buried)} points)")
    # A seat that did not bury counts the talon as out.
    other = tracker_view.out_counts(obs_of(h, 1))
    assert sum(other.values()) == 108 - len(h.hands[1]) - len(played)
    jokers = render.cards_label([f for f in (53, 52) for _ in range(other[f])])
    assert f"Jokers:  {jokers}".replace("RJ RJ", "RJ×2").replace("BJ BJ", "BJ×2") in \
        render.tracker_text(obs_of(h, 1))
    assert all(len(line) <= 80 for line in text.splitlines())


def test_summary_text_with_talon_bonus_and_level_change() -> None:
    summary = {
        "result": {"defender_points": 130, "talon_turned": True, "talon_points": 15,
                   "talon_bonus": 30, "next_declarers": 1, "levels_gained": 1,
                   "gaining_team": 1, "next_starter": 1},
        "buried": "5S 5S KD 3C 3C 4D 6D 7D", "levels": ["2", "4"],
        "audit": "4 of 4 peers verified the hand: no rule broken", "game_over": False,
    }
    o = obs_of(dealt(), hand_no=2)
    text = render.summary_text(summary, o, NAMES)
    assert text.splitlines()[0] == "Hand 3 is over."
    assert "Defenders (team 1: AI 1, AI 3) scored 130 points." in text
    assert "Talon ♠5 ♠5 ♦K ♣3 ♣3 ♦4 ♦6 ♦7: 15 points, turned over by the defenders ×2 = " \
        "bonus 30." in text
    assert "Team 1 (defenders) goes up 1 level." in text
    assert "Levels: team 0 2, team 1 3 → 4" in text
    assert "Next starter: AI 1 (seat 1); team 1 declares." in text
    assert "Audit: 4 of 4 peers verified the hand: no rule broken" in text


def test_summary_text_declarers_keep_the_talon_and_game_over() -> None:
    summary = {
        "result": {"defender_points": 0, "talon_turned": False, "talon_points": None,
                   "talon_bonus": 0, "next_declarers": 0, "levels_gained": 3,
                   "gaining_team": 0, "next_starter": 2},
        "buried": None, "levels": ["A", "5"], "audit": "", "game_over": True,
    }
    o = replace(obs_of(dealt(), winner=0), levels=("Q", "5"))
    text = render.summary_text(summary, o, NAMES)
    assert "talon stays buried" in text
    assert "Team 0 (declarers) goes up 3 levels, past Ace: that wins the game." in text
    assert "Levels: team 0 Q → past A, team 1 5" in text
    assert text.splitlines()[-1] == "Game over: team 0 wins!"
    assert "Next starter" not in text  # the game has no next hand
    # Passing Ace from A: it read "Levels: team 0 A, team 1 A", no change to be seen.
    o = replace(obs_of(dealt(), winner=0), levels=("A", "A"))
    summary = {**summary, "levels": ["A", "A"],
               "result": {**summary["result"], "levels_gained": 1}}
    text = render.summary_text(summary, o, NAMES)
    assert "Team 0 (declarers) goes up 1 level, past Ace: that wins the game." in text
    assert "Levels: team 0 A → past A, team 1 A" in text
    # With win=reach_ace, reaching A is the win: no "past" to say.
    reach = Rules(win="reach_ace")
    o = replace(obs_of(dealt(), winner=0, rules=reach), levels=("Q", "5"))
    summary = {**summary, "levels": ["A", "5"],
               "result": {**summary["result"], "levels_gained": 2}}
    text = render.summary_text(summary, o, NAMES)
    assert "Team 0 (declarers) goes up 2 levels." in text
    assert "Levels: team 0 Q → A, team 1 5" in text


def test_events_text_keeps_whole_latest_events() -> None:
    events = [f"event number {i} " + "x" * 30 for i in range(10)]
    text = render.events_text(events, width=30, height=5)
    lines = text.splitlines()
    assert len(lines) <= 5 and all(len(line) <= 30 for line in lines)
    assert lines[0].startswith("event number")  # no half event at the top
    assert "event number 9" in text


def test_help_text_two_columns_fits() -> None:
    from tractor.cli.screen.panel_text import KEYS

    text = render.help_text(KEYS, columns=2)
    assert len(text.splitlines()) == (len(KEYS) + 1) // 2
    assert all(len(line) <= 80 for line in text.splitlines())
    for key, what in KEYS:
        assert key in text and what in text
