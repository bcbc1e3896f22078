"""Hostile or careless input to the public API gets a typed ValueError, never a crash, and
nothing leaks through a seat number that is not a seat."""

from __future__ import annotations

import random

import pytest
from helpers import build_deck

from tractor import (
    ActionDataError,
    Bid,
    Bury,
    Card,
    CardParseError,
    Declare,
    Draw,
    FormatError,
    Game,
    GameDataError,
    Hand,
    IllegalAction,
    NameTrump,
    Pass,
    Play,
    Rules,
    RulesError,
    Trump,
    TrumpError,
    classify,
    follow_reason,
    format_cards,
    is_legal_follow,
    resolve_throw,
    score_outcome,
    talon_multiplier,
    trick_winner,
)

T7C = Trump("7", "C")
NO_ACROSS = Rules(tractor_across_rank=False)
NO_RANK_CHAIN = Rules(rank_and_jokers_in_tractors=False)


def in_play(seed: int = 3) -> Game:
    g = Game(seed=seed)
    rng = random.Random(seed)
    while g.hand.phase != "play":
        g.apply(g.random_action(rng))
    return g


# --- the tractor options reach every public rule function ---------------------------------------

def test_trick_winner_follows_the_rules_tractor_options():
    plays = ["9S 9S 10S 10S", "6C 6C 8C 8C"]  # 6-6 8-8 of trumps connect only across the rank
    assert trick_winner(plays, T7C) == 1
    assert trick_winner(plays, T7C, rules=NO_ACROSS) == 0


def test_resolve_throw_follows_the_rules_tractor_options():
    lead, others = "AS AS 6S 6S 8S 8S", ["9S 9S 10S 10S"]
    assert format_cards(resolve_throw(lead, others, T7C)) == "8S 8S 6S 6S"
    assert format_cards(resolve_throw(lead, others, T7C, rules=NO_ACROSS)) == "6S 6S"


def test_follow_functions_follow_the_rules_options():
    hand, lead = "7H 7H 7C 7C 3C 4C", "KC KC QC QC"
    play = "7H 7C 3C 4C"
    # Default rules: a pair of trumps is owed only as pairs (two pairs held: both owed).
    assert follow_reason(hand, lead, play, T7C) == (
        "you must play 2 pairs of trumps: you hold ♣7 ♣7 ♥7 ♥7")
    # must_play_tractor from the rules: the held tractor ♥7♥7-♣7♣7 is owed.
    reason = follow_reason(hand, lead, "3C 4C 7H 7H", T7C, rules=Rules(must_play_tractor=True))
    assert reason is not None and reason.startswith("you must play a tractor of trumps")
    assert is_legal_follow(hand, lead, "7H 7H 7C 7C", T7C, rules=Rules(must_play_tractor=True))
    # Without rank cards in tractors there is no tractor to owe, only the two pairs.
    assert is_legal_follow(hand, "KC KC QC QC", "7H 7H 7C 7C", T7C, rules=NO_RANK_CHAIN)


def test_classify_takes_the_options_from_rules():
    assert classify("6S 6S 8S 8S", T7C, rules=NO_ACROSS).kind == "throw"
    assert classify("AC AC 7H 7H", T7C, rules=NO_RANK_CHAIN).kind == "throw"
    assert classify("AC AC 7H 7H", T7C).kind == "tractor"


# --- typed errors ------------------------------------------------------------------------------

@pytest.mark.parametrize("call, error", [
    (lambda: trick_winner([], T7C), FormatError),
    (lambda: trick_winner(["", "AS"], T7C), FormatError),
    (lambda: score_outcome(50, step=0), ValueError),
    (lambda: score_outcome(50, decks=0), ValueError),
    (lambda: talon_multiplier(3, "bogus"), ValueError),
    (lambda: Card.from_face(99), CardParseError),
    (lambda: Card.from_face(-1), CardParseError),
    (lambda: format_cards([54]), CardParseError),
    (lambda: Trump("X"), TrumpError),
    (lambda: Trump.from_data("x"), TrumpError),
    (lambda: T7C.effective_suit("AS KS"), TrumpError),
    (lambda: Rules.from_data({1: 2}), RulesError),
    (lambda: Rules.from_data(None), RulesError),
    (lambda: Rules.from_data({"decks": "2"}), RulesError),
    (lambda: Rules.from_data({"decks": 2.0}), RulesError),
    (lambda: Rules.from_data({"tractor_across_rank": "False"}), RulesError),
    (lambda: Rules.from_data({"decks": 10**6}), RulesError),
    (lambda: Rules.from_data({"players": 14}), RulesError),
    (lambda: Rules.from_data({"throw_penalty": True}), RulesError),
    (lambda: Game.from_data({}), GameDataError),
    (lambda: Game.from_data({"rules": {}, "seed": 0, "actions": None}), GameDataError),
    (lambda: Game.from_data({"rules": {}, "seed": 1.5, "actions": []}), GameDataError),
    (lambda: Game.from_data({"rules": {}, "seed": 0, "actions": [["bid", 0, 10.0]]}),
     ActionDataError),
    (lambda: Declare(0, (99,)), ActionDataError),
    (lambda: Play(0, [12]), ActionDataError),
    (lambda: Bury(0, "ASAS"), ActionDataError),
    (lambda: Draw(0.0), ActionDataError),
    (lambda: Draw("0"), ActionDataError),
    (lambda: Pass(True), ActionDataError),
    (lambda: NameTrump(0, "X"), ActionDataError),
    (lambda: Bid(0, 10.0), ActionDataError),
])
def test_bad_input_raises_a_typed_value_error(call, error):
    with pytest.raises(error):
        call()
    assert issubclass(error, ValueError)


# --- seats that are not seats ------------------------------------------------------------------

@pytest.mark.parametrize("seat", [-1, 4, 99, True, "0", 0.0])
def test_no_view_or_action_list_for_a_seat_that_does_not_exist(seat):
    g = in_play()
    with pytest.raises(IllegalAction):
        g.observation(seat)
    with pytest.raises(IllegalAction):
        g.legal_actions(seat)


def test_negative_seat_cannot_declare_with_another_seats_cards():
    g = Game(seed=3)
    rng = random.Random(2)
    for _ in range(60):
        g.apply(g.random_action(rng))
    with pytest.raises(IllegalAction):
        g.hand.legal_declarations(-1)
    held = g.hand.hands[3]
    with pytest.raises(IllegalAction):
        g.apply(Declare(-1, (held[0],)))


def test_a_rejected_action_leaves_the_game_unchanged():
    g = in_play()
    before = [g.observation(s) for s in range(4)]
    seat = g.to_act()
    other = (seat + 1) % 4
    for bad in (Play(other, (g.hand.hands[other][0],)), Bury(seat, (0,) * 8), Draw(seat),
                Play(seat, ()), Declare(seat, ())):
        with pytest.raises(IllegalAction):
            g.apply(bad)
    assert [g.observation(s) for s in range(4)] == before


# --- a talon with no suited card ---------------------------------------------------------------

def test_a_talon_of_jokers_only_leaves_the_rank_as_the_only_trumps():
    rules = Rules(decks=1, talon_cards=2)
    deck = build_deck(rules, {}, talon="BJ RJ")
    h = Hand(rules, deck, ["5", "2"], first=0, starter=0, declarers=0)
    while h.phase in ("deal", "declare"):
        seat = h.to_act()
        h.apply(Draw(seat) if h.phase == "deal" else Pass(seat))
    assert h.talon_revealed == [52, 53]
    assert h.trump == Trump("5", None)
    assert h.phase == "talon" and h.to_act() == 0


def test_no_talon_and_no_declaration_leaves_the_rank_as_the_only_trumps():
    rules = Rules(talon_cards=0)
    deck = build_deck(rules, {})
    h = Hand(rules, deck, ["9", "2"], first=1, starter=1, declarers=1)
    while h.phase in ("deal", "declare"):
        seat = h.to_act()
        h.apply(Draw(seat) if h.phase == "deal" else Pass(seat))
    assert h.trump == Trump("2", None)
    h.apply(Bury(1, ()))
    assert h.phase == "play"
