"""The house-rule options of seeds/README.md's "House rules", each from a position a player
would recognise: the throw penalty per attempt, must-defend levels, which jokers declare no
trump, overcalling one's own declaration; the AI playing legally under each."""

from __future__ import annotations

import re

import pytest
from helpers import T, build_deck
from test_ai_strategies import drive, new_hand, seats_for
from test_hand import T_HANDS, T_TRICKS, draw, first_hand, in_play, play_trick, rejected
from test_table import omniscient
from test_table import play as play_table

from tractor import Declare, Game, Hand, Play, Rules
from tractor.ai.players.heuristic import HeuristicStrategy
from tractor.cards import RANKS
from tractor.cli.options import parse_rules
from tractor.cli.screen.friends_view import result_lines
from tractor.cli.screen.summary_view import must_defend_sentence
from tractor.cli.seat.seat_log import SeatLog
from tractor.game import after_hand
from tractor.net.table.setup import HandSetup
from tractor.phases import DONE, REDEAL
from tractor.public import PublicHand
from tractor.records import friends_forfeit, friends_result, hand_result
from tractor.rules import RulesError
from tractor.trump import Trump

# --- the throw penalty ----------------------------------------------------------------------


@pytest.mark.parametrize(("options", "lost"), [
    ({}, 20), ({"throw_penalty_per": "attempt"}, 10), ({"throw_penalty": 0}, 0),
    ({"throw_penalty": 0, "throw_penalty_per": "attempt"}, 0),
])
def test_a_failed_throw_costs_per_card_per_attempt_or_nothing(options, lost):
    # Seat 1 (a defender) throws ♦K ♦Q ♦J while seat 2 holds ♦A: the ♦J is led, two cards
    # go back. Per card (the default) the defenders lose 20; per attempt, 10; with
    # throw_penalty=0, nothing.
    h = in_play(Rules(talon_cards=84, **options), T_HANDS, "2H")
    play_trick(h, *T_TRICKS[0])
    assert h.defender_points == 5
    h.apply(Play.of(1, "KD QD JD"))
    assert h.current == [T("JD")] and h.defender_points == 5 - lost
    # A seat rebuilding the hand from what it sees counts the same penalty.
    assert PublicHand.from_observation(h.rules, h.observe(2)).current_penalty == lost
    trick = play_trick(h, *T_TRICKS[1][1:])
    assert trick.penalty == lost and h.penalties == -lost


def test_the_penalty_per_attempt_is_read_from_the_command_line():
    rules = parse_rules("throw_penalty_per=attempt")
    assert rules.throw_penalty_per == "attempt" and rules.to_data()["throw_penalty_per"] \
        == "attempt"
    assert "throw_penalty_per" not in Rules().to_data()
    with pytest.raises(RulesError, match="throw_penalty_per must be card, attempt"):
        parse_rules("throw_penalty_per=trick")


# --- must-defend levels ---------------------------------------------------------------------

MD = Rules(must_defend="5/10/K")


def teams_hand(rules: Rules, points: int, declarers: int, starter: int):
    return hand_result(rules, points, 0, 1, False, declarers, starter)


def test_must_defend_levels_are_written_with_slashes_and_read_back():
    assert parse_rules("must_defend=k/10/5").must_defend == "5/10/K"
    assert Rules.from_data(MD.to_data()) == MD
    assert parse_rules("must_defend=none").must_defend == ""
    with pytest.raises(RulesError, match="must_defend lists levels joined by '/'.*; not '1'"):
        parse_rules("must_defend=1/5")
    with pytest.raises(RulesError, match="option must_defend must be str"):
        Rules(must_defend=5)  # type: ignore[arg-type]


def test_defenders_stop_at_a_must_defend_level():
    # Team 1 defends at 8 and scores 200 points: +3 levels, 8 → J with no rule. With 10 a
    # must-defend level it stops at 10.
    for rules, after in ((Rules(), "J"), (MD, "10")):
        levels = ["3", "8"]
        after_hand(rules, levels, 0, teams_hand(rules, 200, 0, 0))
        assert levels == ["3", after]


def test_a_side_stuck_at_a_must_defend_level_passes_it_only_as_declarers():
    # Team 1 sits at 10 (must defend). Defending again with 160 points (+2): it stays.
    levels = ["3", "10"]
    after_hand(MD, levels, 0, teams_hand(MD, 160, 0, 0))
    assert levels == ["3", "10"]
    # It declares at 10 and its opponents score 30 (+2): 10 → J → Q.
    after_hand(MD, levels, 1, teams_hand(MD, 30, 1, 1))
    assert levels == ["3", "Q"]
    # Declaring at Q and winning with +3 (opponents score nothing): Q → K, then K stops it.
    after_hand(MD, levels, 1, teams_hand(MD, 0, 1, 1))
    assert levels == ["3", "K"]


def test_must_defend_ace_makes_a_side_win_the_game_as_declarers():
    rules = Rules(must_defend="A")
    # A defending team at A gains 1 (120 points): without the option it passes Ace and wins.
    assert after_hand(Rules(), ["2", "A"], 0, teams_hand(Rules(), 120, 0, 0))[3] == (1, 3)
    levels = ["2", "A"]
    assert after_hand(rules, levels, 0, teams_hand(rules, 120, 0, 0))[3] == ()
    assert levels == ["2", "A"]
    # Declaring at A and holding the defenders to 40 points: it passes Ace and wins.
    assert after_hand(rules, levels, 1, teams_hand(rules, 40, 1, 1))[3] == (1, 3)


def test_find_a_friend_stops_each_player_at_its_own_must_defend_level():
    rules = Rules(players=5, mode="friends", must_defend="5/10/K")
    # Starter 0 and its friend 2 win with the defenders at 0 points (+3 each). Seat 0 at 4
    # stops at 5; seat 2, at 10 and declaring, passes it: 10 → J → Q → K? K stops it at K.
    levels = ["4", "2", "10", "2", "3"]
    after_hand(rules, levels, 0, friends_result(rules, 0, 0, 1, False, 0, (0, 2)))
    assert levels == ["5", "2", "K", "2", "3"]
    # Now the defenders 1, 3, 4 score 200 (+3): 2 → 5, 2 → 5, 3 → 5.
    after_hand(rules, levels, 0, friends_result(rules, 200, 0, 1, False, 0, (0, 2)))
    assert levels == ["5", "5", "K", "5", "5"]


def test_the_summary_says_where_a_must_defend_level_stopped_the_gain():
    res = teams_hand(MD, 200, 0, 0)
    summary = {"result": res.to_data()}
    assert must_defend_sentence(MD, "8", summary) == (
        "The gain stops at 10, a must-defend level: it is passed only by winning a hand as "
        "declarers at it.")
    assert must_defend_sentence(MD, "2", summary) == ""  # it reaches 5, does not pass it
    assert must_defend_sentence(Rules(), "8", summary) == ""


# --- which jokers declare no trump ------------------------------------------------------------

JOKERS = {0: "2H 2H", 1: "2S 2S", 2: "BJ BJ 2D", 3: "RJ 2D"}


def test_no_trump_cannot_be_declared_with_joker_declare_none():
    h = first_hand(JOKERS, "2C 2C RJ", rules=Rules(joker_declare="none"))
    draw(h, 12)
    h.apply(Declare.of(1, "2S 2S"))
    assert h.legal_declarations(2) == []
    rejected(h, Declare.of(2, "BJ BJ"), re.escape("a declaration is one 2 or a pair of "
                                                  "identical 2s, not BJ BJ"))


def test_three_decks_need_three_identical_jokers_with_joker_declare_decks():
    rules = Rules(decks=3, talon_cards=150, joker_declare="decks")  # 3 cards each
    hands = {0: "2H 2H 3S", 1: "BJ BJ 3S", 2: "RJ RJ RJ", 3: "3S 4S 4S"}
    h = Hand(rules, build_deck(rules, hands, "", 0), ["2", "2"], 0)
    draw(h, 8)
    assert h.legal_declarations(1) == [] and h.legal_declarations(2) == []
    rejected(h, Declare.of(1, "BJ BJ"), "a declaration is one 2, a pair of identical 2s or "
                                        "3 identical jokers, not BJ BJ")
    h.apply(Declare.of(0, "2H 2H"))
    draw(h, 3)  # seat 2 draws its third red joker
    assert h.legal_declarations(2) == [Declare(2, T("RJ RJ RJ"))]
    h.apply(Declare.of(2, "RJ RJ RJ"))
    rejected(h, Declare.of(0, "2H"), "3 identical jokers cannot be overcalled")
    while h.phase != "talon":
        h.apply(h.legal_actions(h.to_act()).__next__())
    assert h.trump == Trump(None, None) and h.starter == 2
    # With the default, two of the three jokers declare.
    h = Hand(Rules(decks=3, talon_cards=150), build_deck(rules, hands, "", 0), ["2", "2"], 0)
    draw(h, 8)
    assert h.legal_declarations(1) == [Declare(1, T("BJ BJ"))]


def test_one_deck_declares_no_trump_with_one_joker_under_joker_declare_decks():
    rules = Rules(decks=1, talon_cards=50, joker_declare="decks")  # 1 card each
    h = Hand(rules, build_deck(rules, {0: "2H", 1: "RJ"}, "", 0), ["2", "2"], 0)
    draw(h, 4)
    h.apply(Declare.of(0, "2H"))
    assert h.legal_declarations(1) == [Declare(1, T("RJ"))]


# --- overcalling one's own declaration -----------------------------------------------------------


def test_a_player_may_not_reinforce_their_own_declaration_when_the_table_says_so():
    # Seat 0 shows ♥2, then draws the second ♥2: by default it may make the pair; with
    # reinforce_own=false only another player may overcall its ♥2.
    for rules, allowed in ((Rules(), True), (Rules(reinforce_own=False), False)):
        h = first_hand(JOKERS, "2C 2C RJ", rules=rules)
        draw(h, 4)
        h.apply(Declare.of(0, "2H"))
        draw(h, 4)
        assert (Declare(0, T("2H 2H")) in h.legal_declarations(0)) is allowed
        if not allowed:
            rejected(h, Declare.of(0, "2H 2H"), "your own declaration stands")
            h.apply(Declare.of(1, "2S 2S"))  # another seat overcalls
            draw(h, 4)
            assert h.legal_declarations(1) == []
            assert h.legal_declarations(2) == [Declare(2, T("BJ BJ"))]


# --- the AI plays legally under each option ---------------------------------------------------

OPTIONS = [
    {"throw_penalty_per": "attempt"}, {"throw_penalty": 0}, {"must_defend": "5/10/K/A"},
    {"joker_declare": "none"}, {"joker_declare": "decks", "decks": 3, "players": 6},
    {"reinforce_own": False}, {"hide_played": True}, {"show_talon": True},
]


@pytest.mark.parametrize("options", OPTIONS)
def test_the_ai_plays_whole_hands_legally_under_each_option(options):
    rules = Rules(**options)
    for seed in range(3):
        hand = drive(new_hand(rules, seed, later=seed > 0), seats_for(seed, rules.players))
        assert hand.phase in (DONE, REDEAL)
        if seed:  # a later hand is played to its end
            assert hand.phase == DONE and hand.result is not None and not any(hand.hands)


# --- between peers ------------------------------------------------------------------------------


@pytest.mark.slow  # a real deck between four peers: about 2 s
def test_peers_agree_under_the_house_rules_and_match_the_rules_core():
    # A table of in-process peers with every option that changes a hand set otherwise:
    # they agree with each other and with the rules core's own play of the same deal.
    rules = Rules(throw_penalty_per="attempt", joker_declare="none", reinforce_own=False,
                  hide_played=True, show_talon=True, must_defend="5",
                  talon_cards=68)  # hands of 10 cards: a short hand
    tables = play_table(3, HandSetup(rules, ("4", "4"), first=3))
    assert [t.phase for t in tables] == ["done"] * 4
    assert all(t.result == tables[0].result and t.violations == [] for t in tables)
    hand = omniscient(tables[0])
    assert hand.result.defender_points == tables[0].result.defender_points
    assert hand.penalties == tables[0].penalties
    declared = tables[0].public.declarations
    assert declared and not any(f >= 52 for _, faces in declared for f in faces)
    # show_talon: every peer's end-of-hand view has the buried cards (the audit opened them).
    buried = [t.observation().buried for t in tables]
    assert all(b is not None and sorted(b) == sorted(buried[0]) for b in buried)
    # hide_played: the seat's log has the declarations and the burial, not the plays.
    lines: list[str] = []
    SeatLog(lines, ["N", "E", "S", "W"], 4).hand(tables[1])
    assert any(" buries " in line for line in lines)
    assert not any(" plays " in line or " leads " in line or "trick" in line
                   for line in lines), lines
    # must_defend: the defenders' 265 points (+4) from 4 stop at 5, and the log says so.
    assert tables[0].result.levels_gained == 4
    assert "gain 4 levels (stopped at 5: a must-defend level)" in SeatLog(
        [], ["N", "E", "S", "W"], 4).over_line(1, tables[0])
    # Nobody overcalled their own declaration.
    assert all(a[0] != b[0] for a, b in zip(declared, declared[1:], strict=False))


# --- the buried cards at the end --------------------------------------------------------------


@pytest.mark.parametrize("show", [False, True])
def test_show_talon_shows_every_seat_the_buried_cards_when_the_hand_ends(show):
    # A hand the declarers end by winning the last trick, so the talon is not turned over:
    # by default only the starter sees what it buried, at the end too; with show_talon,
    # every seat does once the hand is over (and nobody else before).
    rules = Rules(show_talon=show)
    for seed in range(1, 30):
        hand = new_hand(rules, seed, later=True)
        starter = hand.starter
        seen_in_play: list[bool] = []

        def probe(h: Hand, seat: int, seen: list[bool] = seen_in_play,
                  starter: int | None = starter) -> None:
            if h.phase == "play":
                seen.append(any(h.observe(s).buried is not None for s in range(4)
                                if s != starter))

        drive(hand, seats_for(seed, 4), probe)
        if not hand.result.talon_turned:
            break
    else:
        pytest.fail("no hand the declarers end in 30 seeds")
    assert seen_in_play and not any(seen_in_play)
    seen = [hand.observe(s).buried is not None for s in range(4)]
    assert seen == [True if show else s == starter for s in range(4)]


def test_a_forfeit_in_find_a_friend_lets_only_the_starters_side_pass_its_level():
    # Seat 3, a defender, walks out: every other seat gains 3. The starter (seat 0, at 5)
    # declared and passes 5; seat 1, a defender at 5 too, stops there.
    rules = Rules(players=5, mode="friends", must_defend="5")
    levels = ["5", "5", "2", "2", "2"]
    after_hand(rules, levels, 0, friends_forfeit(rules, 3, 0, (0,)))
    assert levels == ["8", "5", "5", "2", "5"]


def test_the_find_a_friend_summary_shows_the_levels_a_must_defend_level_stopped():
    rules = Rules(players=5, mode="friends", must_defend="5")
    lines = result_lines(rules, ["2", "4", "2", "4", "2"], (0, 2), (1, 3, 4), 3, 1,
                         lambda s: f"P{s}")
    assert lines[-2] == "Levels: P0 2, P1 4 → 5, P2 2, P3 4 → 5, P4 2 → 5"


def test_a_whole_game_of_ai_players_never_passes_a_must_defend_level_undeclared():
    rules = Rules(must_defend="5/10/K/A")
    game = Game(rules, seed=11)
    seats = [HeuristicStrategy(s) for s in range(4)]
    hands = 0
    while not game.over and hands < 25:  # a gain is cut several times by then
        before, number = list(game.levels), game.hand_no
        while game.hand_no == number and not game.over:
            seat = game.to_act()
            assert seat is not None
            game.apply(seats[seat].decide(game.observe(seat), rules))
        hands += 1
        declarers = game.hands_played[-1].declarers
        for team in (0, 1):
            start, end = RANKS.index(before[team]), RANKS.index(game.levels[team])
            passed = [r for r in RANKS[start:end] if r in rules.must_defend_levels]
            # Only the declarers pass a must-defend level, and only the one they were at.
            assert passed in ([], [before[team]] if team == declarers else []), (
                before, game.levels, declarers)
    assert hands >= 5
