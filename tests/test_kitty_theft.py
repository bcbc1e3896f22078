"""Kitty theft (`Rules.kitty_theft`; seeds/README.md, "Kitty theft"), from one position:
North starts at level 2 and declared ♥2; East holds ♠2 ♠2 and North the two jokers."""

from __future__ import annotations

import random

import pytest
from helpers import T, build_deck

from tractor import Hand, Rules
from tractor.actions import Bury, Declare, Draw, Pass
from tractor.observation import Observation
from tractor.phases import PLAY, TALON, THEFT, IllegalAction
from tractor.public import PublicHand
from tractor.rules import RulesError
from tractor.scoring import points_of
from tractor.trump import Trump

THEFT_RULES = Rules(kitty_theft=True)
NORTH, EAST, SOUTH, WEST = range(4)


def declared_hand(rules: Rules = THEFT_RULES) -> Hand:
    """North (the starter of a later hand) declared ♥2 in the final window, everyone passed:
    North holds the talon and buries."""
    deck = build_deck(rules, {NORTH: "2H RJ RJ 3D 4D 6D 7D 8D", EAST: "2S 2S 10C 10C KC KC 5D",
                              SOUTH: "2C", WEST: "4C"}, talon="5H 10H KH")
    h = Hand(rules, deck, ["2", "2"], first=NORTH, starter=NORTH, declarers=0)
    while h.phase == "deal":
        h.apply(Draw(h.next_drawer()))
    h.apply(Declare(NORTH, T("2H")))
    for seat in (EAST, SOUTH, WEST, NORTH):
        h.apply(Pass(seat))
    assert h.phase == TALON and h.trump == Trump("2", "H")
    return h


def north_buries(h: Hand) -> tuple[int, ...]:
    """North buries the talon's point cards and five low diamonds."""
    buried = T("5H 10H KH 3D 4D 6D 7D 8D")
    h.apply(Bury(NORTH, buried))
    return buried


def test_the_option_is_off_by_default_and_left_out_of_the_rules_data() -> None:
    assert "kitty_theft" not in Rules().to_data()
    assert THEFT_RULES.to_data()["kitty_theft"] is True
    assert Rules.from_data(THEFT_RULES.to_data()) == THEFT_RULES
    with pytest.raises(RulesError, match="declaration=reveal"):
        Rules(kitty_theft=True, declaration="auction")


def test_without_the_option_the_play_follows_the_burial() -> None:
    h = declared_hand(Rules())
    north_buries(h)
    assert h.phase == PLAY


def test_east_overcalls_takes_the_kitty_and_buries_again() -> None:
    h = declared_hand()
    buried = north_buries(h)
    assert (h.phase, h.to_act()) == (THEFT, EAST)
    assert Declare(EAST, T("2S 2S")) in list(h.legal_actions(EAST))
    h.apply(Declare(EAST, T("2S 2S")))
    # Trump changes; East holds its cards and the kitty, and buries as many.
    assert (h.phase, h.to_act(), h.trump) == (TALON, EAST, Trump("2", "S"))
    assert len(h.hands[EAST]) == 25 + 8 and h.buried == []
    assert all(buried.count(f) <= h.hands[EAST].count(f) for f in buried)
    east_burial = T("10C 10C KC KC 5D 5H 10H KH")
    h.apply(Bury(EAST, east_burial))
    # The window opens again after East: South, West and North pass and it closes.
    assert (h.phase, h.to_act()) == (THEFT, SOUTH)
    for seat in (SOUTH, WEST, NORTH):
        h.apply(Pass(seat))
    # The starter, the leader and the declaring team stay: East only moved trump and burial.
    assert (h.phase, h.to_act(), h.starter, h.declarers) == (PLAY, NORTH, NORTH, 0)
    assert h.exchanger == EAST and h.thefts == [(EAST, T("2S 2S"))]
    assert sorted(h.buried) == sorted(east_burial)
    # Only East knows what lies buried now; North still saw the talon.
    assert h.observe(EAST).buried is not None and h.observe(NORTH).buried is None
    assert h.observe(NORTH).talon is not None and h.observe(EAST).talon is None
    # Played out: the buried points count as they always do, for the defenders when they
    # win the last trick (East is a defender: shengji's behaviour).
    rng = random.Random(3)
    while h.result is None:
        h.apply(h.random_action(rng))
    result = h.result
    assert result.talon_points == points_of(list(east_burial)) == 70
    bonus = result.talon_bonus if result.talon_turned else 0
    assert result.defender_points == h.defender_points + bonus
    assert result.talon_turned == h.is_defender(h.tricks[-1].winner)


def test_the_starter_takes_it_back_with_jokers_and_the_window_closes() -> None:
    h = declared_hand()
    north_buries(h)
    h.apply(Declare(EAST, T("2S 2S")))
    h.apply(Bury(EAST, T("10C 10C KC KC 5D 5H 10H KH")))
    h.apply(Pass(SOUTH))
    h.apply(Pass(WEST))
    h.apply(Declare(NORTH, T("RJ RJ")))
    assert (h.phase, h.to_act(), h.trump) == (TALON, NORTH, Trump(None, None))
    h.apply(Bury(NORTH, T("5H 10H KH 10C 10C KC KC 5D")))
    # Nothing overcalls a pair of jokers: no window, the play begins.
    assert (h.phase, h.to_act(), h.exchanger) == (PLAY, NORTH, NORTH)


@pytest.mark.parametrize("action, reason", [
    (Declare(EAST, T("2S")), "only a pair or a pair of jokers can overcall"),
    (Declare(EAST, T("2D 2D")), "you do not hold"),
    (Declare(SOUTH, T("2C")), "turn"),
    (Bury(EAST, T("2S 2S 3S 3S 4S 4S 5S 5S")), "cannot bury"),
])
def test_a_wrong_move_in_the_window_is_refused_with_the_reason(action, reason) -> None:
    h = declared_hand()
    north_buries(h)
    with pytest.raises(IllegalAction, match=reason):
        h.apply(action)
    assert (h.phase, h.to_act()) == (THEFT, EAST)


def test_the_thief_buries_only_cards_it_holds() -> None:
    h = declared_hand()
    north_buries(h)
    h.apply(Declare(EAST, T("2S 2S")))
    with pytest.raises(IllegalAction, match="you do not hold"):
        h.apply(Bury(EAST, T("AH AH AS AS 5H 10H KH 5D")))


def test_the_window_survives_an_observation_round_trip() -> None:
    h = declared_hand()
    north_buries(h)
    h.apply(Declare(EAST, T("2S 2S")))
    h.apply(Bury(EAST, T("10C 10C KC KC 5D 5H 10H KH")))
    h.apply(Pass(SOUTH))
    obs = h.observe(WEST)
    assert Observation.from_data(obs.to_data()) == obs
    public = PublicHand.from_observation(THEFT_RULES, obs)
    assert public.observe_seat(WEST, obs.hand) == obs
    public.record_pass(WEST)
    public.record_theft(NORTH, T("RJ RJ"))
    assert (public.phase, public.to_act(), public.sizes[NORTH]) == (TALON, NORTH, 33)



def test_find_a_friend_calls_after_the_window_under_the_new_trump() -> None:
    from tractor.actions import Call
    from tractor.phases import CALL

    rules = Rules(players=5, mode="friends", kitty_theft=True)
    deck = build_deck(rules, {NORTH: "2H 3D 4D 6D 7D 8D", EAST: "2S 2S"}, talon="5H 10H KH")
    h = Hand(rules, deck, ["2"] * 5, first=NORTH, starter=NORTH)
    while h.phase == "deal":
        h.apply(Draw(h.next_drawer()))
    h.apply(Declare(NORTH, T("2H")))
    for seat in (1, 2, 3, 4, 0):
        h.apply(Pass(seat))
    north_buries(h)
    h.apply(Declare(EAST, T("2S 2S")))
    h.apply(Bury(EAST, T("5H 10H KH 3D 4D 6D 7D 8D")))
    for seat in (2, 3, 4):
        h.apply(Pass(seat))
    assert h.phase == THEFT  # North, the starter, may still take it back
    h.apply(Pass(NORTH))
    assert (h.phase, h.to_act(), h.trump) == (CALL, NORTH, Trump("2", "S"))
    with pytest.raises(IllegalAction):
        h.apply(Call.of(NORTH, "AS"))  # spades are trump now: no trump may be called
    h.apply(Call.of(NORTH, "AH"))
    assert h.phase == PLAY and h.leader == NORTH


def test_a_game_with_a_theft_replays_from_its_record() -> None:
    from tractor.game import Game

    game, rng = Game(THEFT_RULES, seed=3), random.Random(3)
    while not game.hand.thefts or game.hand.phase != PLAY:
        game.apply(game.random_action(rng))
    again = Game.from_data(game.to_data())
    assert again.observation(0) == game.observation(0) and again.hand.thefts


def test_a_table_of_peers_takes_kitty_theft_at_setup() -> None:
    """Peers play it (`net.table.theft`; tests/test_table_theft.py): no longer refused by
    the host's command, a guest reading the host's rules, or a game session."""
    from tractor.net.lobby.guest_state import _read_rules
    from tractor.net.table.unplayed import refuse_unplayed

    refuse_unplayed(THEFT_RULES)
    assert _read_rules(THEFT_RULES.to_data(), "host") == THEFT_RULES


def test_the_demo_logs_the_theft() -> None:
    from tractor.cli.demo import demo

    lines: list[str] = []
    demo(3, THEFT_RULES, lines.append)
    assert "  seat 0 overcalls with BJBJ and takes the kitty" in lines


# --- the AI -------------------------------------------------------------------------------

def test_every_strategy_answers_the_window_and_the_thief_buries() -> None:
    from test_ai_strategies import drive, new_hand

    from tractor.ai.players.heuristic import HeuristicStrategy
    from tractor.ai.players.random_ai import RandomStrategy
    from tractor.ai.players.search import SearchStrategy

    thieves: list[str] = []
    searched = 0
    for seed in range(20):  # seed 15: the heuristic steals
        seats = [HeuristicStrategy(seed * 10 + s) if (seed + s) % 3 else
                 RandomStrategy(seed * 10 + s) for s in range(4)]

        def probe(hand: Hand, seat: int, seats: list = seats, seed: int = seed) -> None:
            nonlocal searched
            if hand.phase == TALON and hand.thefts and seat == hand.exchanger:
                thieves.append(type(seats[seat]).__name__)
            if hand.phase == PLAY and hand.thefts and not hand.tricks and searched < 4:
                # The search samples worlds where the kitty lies with the thief's burial.
                searched += 1
                action = SearchStrategy("easy", seed=seed).act(hand, seat)
                hand.clone().apply(action)  # refused if illegal

        # Every action goes through Hand.apply, which refuses an illegal one.
        hand = drive(new_hand(THEFT_RULES, seed, later=True), seats, probe)
        assert hand.phase == "done" and all(not h for h in hand.hands)
    assert "HeuristicStrategy" in thieves and searched


def test_the_screens_ask_for_the_overcall_in_the_window() -> None:
    from tractor.cli.screen.render import decision_prompt, status_text
    from tractor.phases import Decision

    h = declared_hand()
    north_buries(h)
    names = ["North", "East", "South", "West"]
    obs = h.observe(EAST)
    options = [d.faces for d in h.legal_declarations(EAST)]
    assert decision_prompt(Decision.DECLARE, obs, names, options) == \
        "Overcall ♥2 to take North's kitty? 1) ♠2♠2; or pass."
    assert status_text(obs, names, Decision.DECLARE).endswith(
        "your turn: overcall to take the kitty, or pass")
    assert status_text(h.observe(SOUTH), names, None).endswith(
        "kitty theft window: waiting for East")


def test_the_declare_panel_says_what_an_overcall_does_in_the_window() -> None:
    from types import SimpleNamespace

    from tractor.cli.screen.panel_text import declare_text

    h = declared_hand()
    north_buries(h)
    client = SimpleNamespace(
        observation=lambda: h.observe(EAST), names=["North", "East", "South", "West"],
        declaration_options=lambda: [d.faces for d in h.legal_declarations(EAST)],
        rules=h.rules)
    text = declare_text(client)  # type: ignore[arg-type]
    assert text.startswith("Take the kitty?") and "Declare trumps" not in text
    assert "take the buried cards" in text and "1) ♠2 ♠2" in text
