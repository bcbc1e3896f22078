"""The `Hand` state machine: dealing, declaring, the talon, play, throws, scoring, observations.

Decks are built so that chosen seats hold chosen cards (``build_deck``). Small hands come from
``Rules(talon_cards=...)`` (a bigger talon leaves fewer cards per seat), so a whole hand can be
scripted trick by trick with every card known.
"""

from __future__ import annotations

import copy
import random
import re
from collections import Counter
from itertools import islice

import pytest
from helpers import F, T, build_deck, conserved

from tractor import (
    Bid,
    Bury,
    Declare,
    Draw,
    Game,
    Hand,
    IllegalAction,
    NameTrump,
    Pass,
    Play,
    Rules,
    Show,
    Trump,
)
from tractor.cards import format_cards
from tractor.rules import team_of
from tractor.scoring import points_of

R = Rules()
R6 = Rules(talon_cards=84)  # 4 hands of 6 cards


# --- helpers ------------------------------------------------------------------------------------

def rotate(hands: dict[int, str], k: int, n: int = 4) -> dict[int, str]:
    return {(s + k) % n: cards for s, cards in hands.items()}


def draw(h: Hand, k: int) -> None:
    for _ in range(k):
        h.apply(Draw(h.to_act()))


def draw_all(h: Hand) -> None:
    while h.phase == "deal":
        h.apply(Draw(h.to_act()))


def pass_window(h: Hand) -> None:
    while h.phase == "declare":
        h.apply(Pass(h.to_act()))


def first_hand(hands: dict[int, str], talon: str = "", first: int = 0, rules: Rules = R) -> Hand:
    return Hand(rules, build_deck(rules, hands, talon, first), ["2", "2"], first)


def later_hand(rules: Rules, hands: dict[int, str], talon: str, starter: int,
               levels: tuple[str, str] = ("2", "2")) -> Hand:
    deck = build_deck(rules, hands, talon, first=starter)
    return Hand(rules, deck, list(levels), first=starter, starter=starter,
                declarers=team_of(starter))


def in_play(rules: Rules, hands: dict[int, str], talon: str, starter: int = 0) -> Hand:
    """A later hand, nobody declaring (the talon decides trump), the talon buried back."""
    h = later_hand(rules, hands, talon, starter)
    draw_all(h)
    pass_window(h)
    assert h.phase == "talon"
    h.apply(Bury(starter, tuple(h.talon)))
    assert h.phase == "play"
    return h


def play_trick(h: Hand, *plays: str):
    """Plays in order from the current leader; returns the finished trick."""
    leader = h.to_act()
    for i, cards in enumerate(plays):
        h.apply(Play.of((leader + i) % h.players, cards))
    return h.tricks[-1]


def snapshot(h: Hand):
    return (copy.deepcopy(h.hands), list(h.current), h.phase, h.drawn, h.declaration,
            h.defender_points, h.penalties, len(h.log), list(h.buried), h.to_act(),
            [h.observation(s) for s in range(h.players)])


def rejected(h: Hand, action, reason: str) -> None:
    """``action`` is refused with exactly ``reason`` (a regex) and leaves the state unchanged."""
    before = snapshot(h)
    with pytest.raises(IllegalAction, match=reason):
        h.apply(action)
    assert snapshot(h) == before





# --- dealing ------------------------------------------------------------------------------------

def test_draw_order_starts_with_first_and_goes_round():
    deck = [f for f in range(54) for _ in range(2)]  # 2S 2S 3S 3S ...
    h = Hand(R, deck, ["2", "2"], first=1)
    order = []
    for _ in range(8):
        order.append(h.to_act())
        h.apply(Draw(h.to_act()))
    assert order == [1, 2, 3, 0, 1, 2, 3, 0]
    assert h.hands == [[deck[3], deck[7]], [deck[0], deck[4]], [deck[1], deck[5]],
                       [deck[2], deck[6]]]
    assert h.hands[1] == F("2S 4S") and h.hands[0] == F("3S 5S")
    assert h.drawn == 8


def test_wrong_seat_drawing_is_rejected():
    h = Hand(R, [f for f in range(54) for _ in range(2)], ["2", "2"], first=2)
    rejected(h, Draw(0), "cannot draw: it is seat 2's turn, not seat 0's")
    rejected(h, Draw(4), "there is no seat 4")
    rejected(h, Draw(-1), "there is no seat -1")
    h.apply(Draw(2))
    rejected(h, Draw(2), "seat 3's turn")
    assert h.drawn == 1 and h.log == [Draw(2)]


@pytest.mark.parametrize("rules,size,talon", [
    (R, 25, 8), (Rules(players=6, decks=3), 26, 6), (Rules(players=6), 17, 6),
    (Rules(decks=3), 39, 6),
])
def test_dealing_fills_hands_and_leaves_the_talon(rules, size, talon):
    deck = [f for f in range(54) for _ in range(rules.decks)]
    random.Random(5).shuffle(deck)
    h = Hand(rules, deck, ["2", "2"], first=1)
    draw_all(h)
    assert [len(x) for x in h.hands] == [size] * rules.players
    assert h.talon == deck[size * rules.players:] and len(h.talon) == talon
    assert h.drawn == size * rules.players == len(deck) - talon
    assert h.phase == "declare" and h.to_act() == 1
    rejected(h, Draw(1), "cannot draw now: the hand is in the declare phase")


def test_the_deck_must_be_complete():
    with pytest.raises(ValueError, match="every card"):
        Hand(R, list(range(54)) * 2 + [0], ["2", "2"], 0)
    with pytest.raises(ValueError, match="every card"):
        Hand(R, [0] * 108, ["2", "2"], 0)


# --- declaring (reveal style) ---------------------------------------------------------------------

# Every 2 and joker placed: seat 0 2H 2H, seat 1 2S 2S, seat 2 BJ BJ 2D, seat 3 RJ 2D.
DECL = {0: "2H 2H", 1: "2S 2S", 2: "BJ BJ 2D", 3: "RJ 2D"}
DECL_TALON = "2C 2C RJ"


def test_single_rank_card_sets_the_suit_and_the_first_declarer_starts():
    h = first_hand(DECL, DECL_TALON)
    draw(h, 12)  # seat 3 now holds RJ 2D
    h.apply(Declare.of(3, "2D"))
    assert h.declaration == (3, T("2D"))
    assert h.to_act() == 0  # declaring does not disturb the drawing order
    draw_all(h)
    talon = list(h.talon)
    assert talon[:3] == F("2C 2C RJ")
    pass_window(h)
    assert h.phase == "talon"
    assert h.trump == Trump("2", "D")
    assert h.starter == 3 and h.declarers == 1 and h.leader == 3 and h.to_act() == 3
    assert [len(x) for x in h.hands] == [25, 25, 25, 33]
    assert not Counter(talon) - Counter(h.hands[3])
    h.apply(Bury(3, tuple(talon)))
    assert [len(x) for x in h.hands] == [25] * 4 and h.phase == "play"


def test_a_pair_overcalls_a_single():
    h = first_hand(DECL, DECL_TALON)
    draw(h, 8)
    h.apply(Declare.of(1, "2S"))
    h.apply(Declare.of(0, "2H 2H"))
    assert h.declarations == [(1, T("2S")), (0, T("2H 2H"))]
    draw_all(h)
    pass_window(h)
    assert h.trump == Trump("2", "H") and h.starter == 0 and h.declarers == 0


def test_a_single_cannot_overcall_a_single():
    h = first_hand(DECL, DECL_TALON)
    draw(h, 12)
    h.apply(Declare.of(2, "2D"))
    rejected(h, Declare.of(3, "2D"), re.escape("only a pair or a pair of jokers can overcall ♦2"))
    rejected(h, Declare.of(2, "2D"), "only a pair or a pair of jokers can overcall")
    assert h.legal_declarations(3) == []
    assert h.legal_declarations(0) == [Declare(0, T("2H 2H"))]


def test_a_rank_pair_cannot_overcall_a_pair():
    h = first_hand(DECL, DECL_TALON)
    draw(h, 12)
    h.apply(Declare.of(1, "2S 2S"))
    rejected(h, Declare.of(0, "2H 2H"), re.escape("only a pair of jokers can overcall ♠2 ♠2"))
    rejected(h, Declare.of(2, "2D"), "only a pair of jokers can overcall")
    assert h.legal_declarations(0) == []
    assert h.legal_declarations(2) == [Declare(2, T("BJ BJ"))]
    assert list(h.legal_actions(0)) == [Draw(0)]


@pytest.mark.parametrize("before", [None, (1, "2S"), (1, "2S 2S")])
def test_a_joker_pair_overcalls_anything_and_stands(before):
    h = first_hand(DECL, DECL_TALON)
    draw(h, 12)
    if before:
        h.apply(Declare.of(*before))
    h.apply(Declare.of(2, "BJ BJ"))
    rejected(h, Declare.of(0, "2H 2H"), "a pair of jokers cannot be overcalled")
    rejected(h, Declare.of(3, "2D"), "a pair of jokers cannot be overcalled")
    assert [h.legal_declarations(s) for s in range(4)] == [[], [], [], []]
    draw_all(h)
    assert list(h.legal_actions(0)) == [Pass(0)]
    pass_window(h)
    assert h.trump == Trump(None, None)
    assert h.starter == 2 and h.declarers == 0 and len(h.hands[2]) == 33


def test_red_joker_pair_cannot_overcall_black_joker_pair():
    h = first_hand({0: "2H 2H", 1: "2S 2S", 2: "BJ BJ", 3: "RJ RJ"}, "2D 2D 2C 2C")
    draw(h, 8)
    assert h.legal_declarations(3) == [Declare(3, T("RJ RJ"))]
    h.apply(Declare.of(2, "BJ BJ"))
    rejected(h, Declare.of(3, "RJ RJ"), "a pair of jokers cannot be overcalled")
    assert h.legal_declarations(3) == []


def test_a_player_may_overcall_their_own_declaration():
    h = first_hand(DECL, DECL_TALON)
    draw(h, 4)
    h.apply(Declare.of(0, "2H"))
    draw(h, 4)
    h.apply(Declare.of(0, "2H 2H"))
    assert h.declaration == (0, T("2H 2H"))


def test_declaring_cards_not_held_is_rejected():
    h = first_hand(DECL, DECL_TALON)
    rejected(h, Declare.of(0, "2H"), re.escape("you do not hold ♥2"))
    draw(h, 4)  # each seat has drawn one card: 2H, 2S, BJ, RJ
    rejected(h, Declare.of(1, "2S 2S"), re.escape("you do not hold ♠2 ♠2"))
    rejected(h, Declare.of(2, "BJ BJ"), "you do not hold")
    rejected(h, Declare.of(0, "2S"), re.escape("you do not hold ♠2"))
    h.apply(Declare.of(1, "2S"))
    assert h.declaration == (1, T("2S"))


@pytest.mark.parametrize("cards", ["3H", "2H 2S", "BJ", "BJ RJ", "2H 2H 2H", "AS"])
def test_declaring_something_else_than_rank_cards_or_a_joker_pair_is_rejected(cards):
    h = first_hand(DECL, DECL_TALON)
    draw(h, 12)
    rejected(h, Declare.of(0, cards),
             re.escape("a declaration is one 2, a pair of identical 2s or a pair of identical "
                       "jokers, not"))


def test_the_final_window_goes_by_turn():
    h = first_hand(DECL, DECL_TALON, first=0)
    draw_all(h)
    assert h.phase == "declare" and h.to_act() == 0
    rejected(h, Declare.of(1, "2S"), "it is seat 0's turn to declare or pass")
    rejected(h, Pass(2), "cannot pass: it is seat 0's turn, not seat 2's")
    assert list(h.legal_actions(1)) == []
    assert list(h.legal_actions(0)) == [Pass(0), Declare(0, T("2H")), Declare(0, T("2H 2H"))]
    h.apply(Pass(0))
    assert h.to_act() == 1
    rejected(h, Declare.of(0, "2H"), "it is seat 1's turn to declare or pass")
    h.apply(Declare.of(1, "2S"))
    assert h.to_act() == 2 and h.declaration == (1, T("2S"))


def test_the_window_closes_when_every_seat_has_passed_since_the_last_declaration():
    h = first_hand(DECL, DECL_TALON, first=0)
    draw_all(h)
    for a in (Pass(0), Pass(1), Declare.of(2, "2D"), Pass(3), Pass(0), Pass(1)):
        h.apply(a)
    assert h.phase == "declare" and h.to_act() == 2  # the declarer's own turn comes again
    h.apply(Declare.of(2, "BJ BJ"))  # overcalling itself in the window
    for s in (3, 0, 1):
        h.apply(Pass(s))
    assert h.phase == "declare"
    h.apply(Pass(2))
    assert h.phase == "talon" and h.trump == Trump(None, None) and h.starter == 2
    rejected(h, Declare.of(0, "2H 2H"), "trump can only be declared while the cards are dealt")
    rejected(h, Pass(2), "cannot pass now: the hand is in the talon phase")


def test_first_hand_without_declaration_asks_for_a_redeal():
    h = first_hand(DECL, DECL_TALON, first=3)
    draw_all(h)
    for s in (3, 0, 1):
        h.apply(Pass(s))
    assert h.phase == "declare"
    h.apply(Pass(2))
    assert h.phase == "redeal"
    assert h.trump is None and h.starter is None and h.declarers is None
    assert h.to_act() is None
    assert [list(h.legal_actions(s)) for s in range(4)] == [[], [], [], []]
    rejected(h, Pass(3), "cannot pass now: the hand is in the redeal phase")
    with pytest.raises(IllegalAction, match="over"):
        h.random_action(random.Random(0))


def test_later_hand_declaration_fixes_only_the_suit():
    h = later_hand(R, {2: "5D 2H", 0: "2H"}, "", starter=1, levels=("2", "5"))
    assert h.trump_rank() == "5"
    draw(h, 8)
    rejected(h, Declare.of(2, "2H"), "a declaration is one 5")
    h.apply(Declare.of(2, "5D"))
    draw_all(h)
    pass_window(h)
    assert h.trump == Trump("5", "D")
    assert h.starter == 1 and h.declarers == 1 and h.leader == 1
    assert [len(x) for x in h.hands] == [25, 33, 25, 25]


def test_later_hand_joker_pair_makes_jokers_only_trumps():
    h = later_hand(R, {0: "BJ BJ"}, "", starter=3, levels=("9", "4"))
    draw(h, 8)
    h.apply(Declare.of(0, "BJ BJ"))
    draw_all(h)
    pass_window(h)
    assert h.trump == Trump(None, None)
    assert h.starter == 3 and h.declarers == 1 and len(h.hands[3]) == 33


# --- no declaration in a later hand: the talon decides ------------------------------------------

@pytest.mark.parametrize("talon,revealed,suit", [
    ("3S BJ 9D 7C 4H", "3S BJ 9D 7C", "C"),                # stops at the first 7
    ("7H 7S", "7H", "H"),
    ("3S BJ QD 9H QC RJ 4S 6D", "3S BJ QD 9H QC RJ 4S 6D", "D"),   # highest: first Q
    ("KS RJ 2C AH 3D AS 4C 5D", "KS RJ 2C AH 3D AS 4C 5D", "H"),   # the first ace
    ("RJ 2C 2D 2S 2H 3S 3C BJ", "RJ 2C 2D 2S 2H 3S 3C BJ", "S"),   # jokers skipped
    ("RJ RJ BJ BJ 3C 4C 3C 4H", "RJ RJ BJ BJ 3C 4C 3C 4H", "C"),
])
def test_no_declaration_in_a_later_hand_turns_the_talon_over(talon, revealed, suit):
    # Declarers are team 1 at level 7: the trump rank is 7.
    h = later_hand(R, {}, talon, starter=1, levels=("5", "7"))
    draw_all(h)
    full_talon = list(h.talon)
    assert full_talon[:len(F(talon))] == F(talon)
    pass_window(h)
    assert h.trump == Trump("7", suit)
    assert h.talon_revealed == F(revealed)
    assert h.starter == 1 and h.declarers == 1 and h.phase == "talon"
    assert not Counter(full_talon) - Counter(h.hands[1]) and len(h.hands[1]) == 33
    for s in range(4):
        assert h.observation(s)["talon_revealed"] == format_cards(F(revealed))


# --- talon -------------------------------------------------------------------------------------

def talon_phase() -> Hand:
    h = later_hand(R, {0: "KH 10S 5C", 1: "AS AS KH"}, "QD 3C 4C", starter=0)
    draw_all(h)
    pass_window(h)
    assert h.phase == "talon" and len(h.hands[0]) == 33
    return h


def test_bury_must_be_exactly_the_talon_size():
    h = talon_phase()
    rejected(h, Bury(0, tuple(h.talon[:7])), "bury exactly 8 cards")
    rejected(h, Bury(0, tuple(h.hands[0][:9])), "bury exactly 8 cards")
    rejected(h, Bury(0, ()), "bury exactly 8 cards")


def test_bury_only_cards_the_starter_holds():
    h = talon_phase()
    rejected(h, Bury(0, tuple(h.talon[:7]) + T("AS")), "you do not hold")
    rejected(h, Bury(0, T("KH KH") + tuple(h.talon[:6])), "you do not hold")
    rejected(h, Bury(1, tuple(h.hands[1][:8])), "cannot bury the talon: it is seat 0's turn")
    rejected(h, Play.of(0, "KH"), "cannot play now: the hand is in the talon phase")


def test_buried_cards_leave_the_hand():
    h = talon_phase()
    before = Counter(h.hands[0])
    buried = T("KH 10S 5C QD 3C 4C") + (h.hands[0][3], h.hands[0][3])  # point cards allowed
    assert before[h.hands[0][3]] == 2
    h.apply(Bury(0, buried))
    assert Counter(h.hands[0]) == before - Counter(buried)
    assert len(h.hands[0]) == 25 and h.buried == list(buried)
    assert h.phase == "play" and h.to_act() == 0 and h.leader == 0
    assert h.observation(0)["buried"] == format_cards(buried)
    assert [h.observation(s)["buried"] for s in (1, 2, 3)] == [None] * 3
    rejected(h, Bury(0, buried), "cannot bury the talon now: the hand is in the play phase")


# --- play: a fully scripted 6-card hand ---------------------------------------------------------

# Trump 2H (the talon's first card), starter seat 0, declarers team 0.
P_HANDS = {0: "AS KS QS QS 10D 3C", 1: "AS 9S 9S 4S 5D KC",
           2: "KD KD 5S 3S 6C 7C", 3: "2H 10S JS 8D 9D 4C"}
P_TRICKS = [("QS QS", "9S 9S", "5S 3S", "10S JS"), ("KS", "AS", "6C", "2H"),
            ("8D", "10D", "5D", "KD"), ("KD", "9D", "3C", "KC"), ("7C", "4C", "AS", "4S")]
P_WINNERS = [0, 3, 2, 2, 2]
P_POINTS = [15, 10, 25, 20, 0]
P_DEFENDERS = [0, 10, 10, 10, 10]


@pytest.mark.parametrize("k", [0, 1, 3])
def test_scripted_hand_turns_winners_and_points(k):
    h = in_play(R6, rotate(P_HANDS, k), "2H", starter=k)
    assert h.trump == Trump("2", "H") and h.talon_revealed == F("2H")
    assert h.declarers == team_of(k)
    for plays, win, pts, dp in zip(P_TRICKS, P_WINNERS, P_POINTS, P_DEFENDERS, strict=True):
        leader = h.to_act()
        assert leader == h.leader
        trick = play_trick(h, *plays)
        assert trick.leader == leader
        assert trick.plays == tuple(T(p) for p in plays)
        assert trick.winner == (win + k) % 4
        assert trick.points == pts == points_of(F(" ".join(plays)))
        assert h.defender_points == dp
        assert conserved(h)
        if h.phase == "play":
            assert h.leader == h.to_act() == trick.winner and h.current == []
    assert h.phase == "done" and h.to_act() is None
    assert [list(h.legal_actions(s)) for s in range(4)] == [[]] * 4
    r = h.result
    assert (r.defender_points, r.talon_points, r.talon_bonus) == (10, 130, 0)
    assert r.next_declarers == team_of(k) and r.gaining_team == team_of(k)
    assert r.levels_gained == 2
    assert r.next_starter == (k + 2) % 4  # declarers keep: the starter's partner starts
    assert h.observation(1)["result"] == r.to_data()
    rejected(h, Play.of(0, "AS"), "cannot play now: the hand is in the done phase")


def test_turn_order_is_enforced_in_play():
    h = in_play(R6, P_HANDS, "2H")
    rejected(h, Play.of(1, "AS"), "cannot play: it is seat 0's turn, not seat 1's")
    h.apply(Play.of(0, "QS QS"))
    rejected(h, Play.of(2, "5S 3S"), "cannot play: it is seat 1's turn, not seat 2's")
    rejected(h, Play.of(0, "AS KS"), "seat 1's turn")


@pytest.mark.parametrize("play,reason", [
    ("9S 4S", "you must play a pair of ♠: you hold ♠9 ♠9"),
    ("AS 4S", "you must play a pair of ♠: you hold ♠9 ♠9"),
    ("5D KC", "you must follow ♠ with 2 cards: you hold ♠A ♠9 ♠9 ♠4"),
    ("9S 5D", "you must follow ♠ with 2 cards: you hold ♠A ♠9 ♠9 ♠4"),
    ("9S", "you must play 2 cards, not 1"),
    ("9S 9S 4S", "you must play 2 cards, not 3"),
    ("KS KS", "you do not hold ♠K ♠K"),
])
def test_an_illegal_follow_is_rejected_with_the_reason_and_changes_nothing(play, reason):
    h = in_play(R6, P_HANDS, "2H")
    h.apply(Play.of(0, "QS QS"))
    rejected(h, Play.of(1, play), re.escape(reason))
    assert h.current == [T("QS QS")] and h.hands[1] == F("AS 9S 9S 4S 5D KC")
    h.apply(Play.of(1, "9S 9S"))
    assert h.current == [T("QS QS"), T("9S 9S")]


@pytest.mark.parametrize("play,reason", [
    ("AS 10D", "a lead must be of one suit (trumps count as one suit): ♠A ♦10"),
    ("KH", "you do not hold ♥K"),
    ("QS QS QS", "you do not hold ♠Q"),
    ("", "you must play at least one card"),
])
def test_an_illegal_lead_is_rejected(play, reason):
    h = in_play(R6, P_HANDS, "2H")
    rejected(h, Play.of(0, play), re.escape(reason))


# --- throws in play -----------------------------------------------------------------------------

# Trump 2H, starter 0. Seat 1 (defender) throws KD QD JD but seat 2 holds AD; seat 0
# (declarer) throws QC JC but seat 3 holds KC.
T_HANDS = {0: "3S AC QC JC 4D 6D", 1: "AS KD QD JD 7S 8C",
           2: "4S AD 5C 6C 7D 8D", 3: "5S KC 9C 10C 9D 10D"}
T_TRICKS = [("3S", "AS", "4S", "5S"), ("KD QD JD", "AD", "9D", "4D"), ("5C", "9C", "AC", "8C"),
            ("QC JC", "7S", "6C", "KC"), ("10D", "6D", "KD", "7D"), ("QD", "8D", "10C", "QC")]


@pytest.mark.parametrize("penalty", [10, 15, 0])
def test_a_failed_defender_throw_is_forced_and_costs_the_defenders(penalty):
    rules = Rules(talon_cards=84, throw_penalty=penalty)
    h = in_play(rules, T_HANDS, "2H")
    play_trick(h, *T_TRICKS[0])
    assert h.defender_points == 5 and h.to_act() == 1
    h.apply(Play.of(1, "KD QD JD"))
    # The lowest beatable component is led; the two other cards go back to the hand.
    assert h.current == [T("JD")] and h.current_attempt == T("KD QD JD")
    assert Counter(h.hands[1]) == Counter(F("KD QD 7S 8C"))
    assert h.defender_points == 5 - 2 * penalty and h.penalties == -2 * penalty
    obs = h.observation(2)
    assert obs["current"] == ["JD"] and obs["current_attempt"] == "KD QD JD"
    rejected(h, Play.of(2, "AD 7D"), re.escape("you must play 1 card, not 2"))
    trick = play_trick(h, *T_TRICKS[1][1:])
    assert trick.attempted == T("KD QD JD") and trick.penalty == 2 * penalty
    assert trick.plays == (T("JD"), T("AD"), T("9D"), T("4D")) and trick.winner == 2
    assert h.defender_points == 5 - 2 * penalty


@pytest.mark.parametrize("penalty", [10, 15])
def test_a_failed_declarer_throw_is_forced_and_pays_the_defenders(penalty):
    rules = Rules(talon_cards=84, throw_penalty=penalty)
    h = in_play(rules, T_HANDS, "2H")
    for plays in T_TRICKS[:3]:
        play_trick(h, *plays)
    assert h.to_act() == 0 and h.defender_points == 5 - 2 * penalty
    h.apply(Play.of(0, "QC JC"))
    assert h.current == [T("JC")] and h.current_attempt == T("QC JC")
    assert h.defender_points == 5 - penalty and h.penalties == -penalty
    trick = play_trick(h, *T_TRICKS[3][1:])
    assert trick.attempted == T("QC JC") and trick.penalty == penalty and trick.winner == 3
    assert trick.plays[0] == T("JC")
    assert h.defender_points == 15 - penalty


@pytest.mark.parametrize("k", [0, 1])
def test_scripted_hand_with_throws_ends_with_the_talon_bonus(k):
    h = in_play(R6, rotate(T_HANDS, k), "2H", starter=k)
    winners = [play_trick(h, *plays).winner for plays in T_TRICKS]
    assert winners == [(w + k) % 4 for w in (1, 2, 0, 3, 1, 1)]
    assert [t.points for t in h.tricks] == [5, 0, 5, 10, 20, 10]
    assert [t.attempted for t in h.tricks] == [None, T("KD QD JD"), None, T("QC JC"), None, None]
    assert [t.penalty for t in h.tricks] == [0, 20, 0, 10, 0, 0]
    assert h.penalties == -10 and h.phase == "done" and conserved(h)
    r = h.result
    # 45 trick points - 10 net penalties + talon (150 points) x 2 for a one-card last lead.
    assert (r.defender_points, r.talon_points, r.talon_bonus) == (335, 150, 300)
    assert h.defender_points == 335
    assert r.next_declarers == 1 - team_of(k) and r.gaining_team == 1 - team_of(k)
    assert r.levels_gained == 6  # (335 - 80) // 40
    assert r.next_starter == (k + 1) % 4  # defenders take over: the next seat starts


def test_negative_defender_points_score_as_zero():
    # Penalty 400 a card: the defenders lose 800, the declarers' failed throw gives back 400.
    h = in_play(Rules(talon_cards=84, throw_penalty=400), T_HANDS, "2H")
    for plays in T_TRICKS:
        play_trick(h, *plays)
    r = h.result
    assert h.penalties == -400 and r.talon_bonus == 300
    assert r.defender_points == 45 - 400 + 300 == -55
    assert (r.next_declarers, r.gaining_team, r.levels_gained, r.next_starter) == (0, 0, 3, 2)


def test_a_throw_nobody_can_beat_stands():
    h = in_play(Rules(talon_cards=96), {0: "AS KS QS", 1: "3H 4H 6H", 2: "3C 4C 6C",
                                        3: "3D 4D 6D"}, "2H")
    h.apply(Play.of(0, "AS KS QS"))
    assert h.current == [T("AS KS QS")] and h.current_attempt is None
    assert h.defender_points == 0 and h.penalties == 0
    trick = play_trick(h, "3H 4H 6H", "3C 4C 6C", "3D 4D 6D")
    assert trick.attempted is None and trick.penalty == 0 and trick.winner == 1


# --- end of hand: the talon bonus ---------------------------------------------------------------

# Defender seat 1 wins the only trick with trumps (trump 2H) against a lead of n cards.
BONUS_CASES = [
    # talon_cards, hands, trick points, talon points, seed multiplier, power multiplier
    (104, {0: "AS", 1: "3H", 2: "3C", 3: "3D"}, 0, 200, 2, 2),
    (100, {0: "AS AS", 1: "3H 3H", 2: "3C 4C", 3: "3D 4D"}, 0, 200, 4, 4),
    (96, {0: "AS KS QS", 1: "3H 4H 6H", 2: "3C 4C 6C", 3: "3D 4D 6D"}, 10, 190, 6, 8),
    (92, {0: "AS AS KS KS", 1: "3H 3H 4H 4H", 2: "3C 4C 6C 7C", 3: "3D 4D 6D 7D"}, 20, 180,
     8, 16),
    (88, {0: "AS KS QS JS 9S", 1: "3H 4H 6H 7H 8H", 2: "3C 4C 6C 7C 8C",
          3: "3D 4D 6D 7D 8D"}, 10, 190, 10, 32),
]


@pytest.mark.parametrize("style", ["seed", "power"])
@pytest.mark.parametrize("talon_cards,hands,trick_pts,talon_pts,seed_x,power_x", BONUS_CASES)
def test_talon_bonus_when_defenders_win_the_last_trick(style, talon_cards, hands, trick_pts,
                                                       talon_pts, seed_x, power_x):
    h = in_play(Rules(talon_cards=talon_cards, talon_multiplier=style), hands, "2H")
    trick = play_trick(h, *(hands[s] for s in range(4)))
    assert trick.winner == 1 and trick.points == trick_pts
    mult = seed_x if style == "seed" else power_x
    r = h.result
    assert r.talon_points == talon_pts == points_of(h.buried)
    assert r.talon_bonus == talon_pts * mult
    assert r.defender_points == trick_pts + talon_pts * mult == h.defender_points
    assert r.next_declarers == 1 and r.next_starter == 1


def test_no_talon_bonus_when_declarers_win_the_last_trick():
    hands = {0: "AS", 1: "3C", 2: "3H", 3: "3D"}
    h = in_play(Rules(talon_cards=104), hands, "2H")
    trick = play_trick(h, "AS", "3C", "3H", "3D")
    assert trick.winner == 2
    r = h.result
    assert (r.defender_points, r.talon_points, r.talon_bonus) == (0, 200, 0)
    assert (r.next_declarers, r.gaining_team, r.levels_gained, r.next_starter) == (0, 0, 3, 2)


def test_next_starter_wraps_around():
    hands = {3: "AS", 0: "3C", 1: "3H", 2: "3D"}  # starter 3 (team 1); partner 1 wins
    h = in_play(Rules(talon_cards=104), hands, "2H", starter=3)
    assert play_trick(h, "AS", "3C", "3H", "3D").winner == 1
    assert (h.result.next_declarers, h.result.next_starter) == (1, 1)
    hands = {3: "AS", 0: "3H", 1: "3C", 2: "3D"}  # defender 0 wins
    h = in_play(Rules(talon_cards=104), hands, "2H", starter=3)
    assert play_trick(h, "AS", "3H", "3C", "3D").winner == 0
    assert (h.result.next_declarers, h.result.next_starter) == (0, 0)
    assert h.result.levels_gained == (400 - 80) // 40


# --- auction style ------------------------------------------------------------------------------

RA = Rules(declaration="auction")


def auction_hand(hands: dict[int, str] | None = None, dealer: int = 1,
                 levels: tuple[str, str] = ("4", "9")) -> Hand:
    h = Hand(RA, build_deck(RA, hands or {}, "", first=dealer), list(levels), first=dealer)
    draw_all(h)
    return h


def test_auction_starts_with_the_dealer_after_the_deal():
    h = auction_hand(dealer=2)
    assert h.phase == "bid" and h.to_act() == 2
    assert [len(x) for x in h.hands] == [25] * 4 and len(h.talon) == 8
    rejected(h, Declare.of(2, "4S"), "not declared by revealing cards")
    rejected(h, Draw(2), "cannot draw now")
    rejected(h, Bid(3, 20), "cannot bid: it is seat 2's turn, not seat 3's")
    acts = list(islice(h.legal_actions(2), 4))
    assert acts == [Pass(2), Bid(2, 5), Bid(2, 10), Bid(2, 15)]
    assert len(list(h.legal_actions(2))) == 1 + 40
    assert list(h.legal_actions(0)) == []


@pytest.mark.parametrize("points", [0, 3, 12, 205, -5])
def test_a_bid_is_a_multiple_of_5_above_the_current_bid_at_most_the_total(points):
    h = auction_hand(dealer=1)
    rejected(h, Bid(1, points), "a bid must be a multiple of 5 above 0, at most 200")


def test_bids_must_rise_and_a_pass_leaves_the_auction():
    h = auction_hand(dealer=1)
    h.apply(Bid(1, 20))
    rejected(h, Bid(2, 20), "a bid must be a multiple of 5 above 20, at most 200")
    h.apply(Pass(2))
    h.apply(Bid(3, 30))
    h.apply(Pass(0))
    assert h.to_act() == 1
    h.apply(Bid(1, 40))
    assert h.to_act() == 3  # seats 2 and 0 are out
    rejected(h, Bid(2, 50), "it is seat 3's turn")
    assert h.bids == [(1, 20), (3, 30), (1, 40)] and h.out_of_auction == {0, 2}
    h.apply(Pass(3))
    assert h.phase == "show" and h.declarers == 1 and h.to_act() == 1
    assert h.high_bid() == 40


def test_a_bid_of_the_total_ends_the_bidding_for_others():
    h = auction_hand(dealer=0)
    h.apply(Bid(0, 200))
    assert list(h.legal_actions(1)) == [Pass(1)]
    for s in (1, 2, 3):
        h.apply(Pass(s))
    assert h.phase == "show" and h.declarers == 0


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_when_everyone_passes_the_dealers_team_declares(dealer):
    h = auction_hand(dealer=dealer)
    for i in range(4):
        assert h.phase == "bid"
        h.apply(Pass((dealer + i) % 4))
    assert h.phase == "show" and h.declarers == dealer % 2 and h.bids == []


SHOW_HANDS = {1: "KS AH BJ", 2: "AS RJ", 3: "KH AD BJ", 0: "RJ"}


@pytest.mark.parametrize("shows,starter", [
    ({1: "KS", 2: "AS", 3: "KH", 0: "RJ"}, 1),   # K = K: the first shown wins the tie
    ({1: "KS", 2: "AS", 3: "AD", 0: "RJ"}, 3),   # only the declaring team counts
    ({1: "AH", 2: "RJ", 3: "BJ", 0: "RJ"}, 3),   # a joker beats an ace
    ({1: "BJ", 2: "AS", 3: "BJ", 0: "RJ"}, 1),
    ({1: "KS", 2: "RJ", 3: "AD", 0: "RJ"}, 3),
])
def test_the_card_play_picks_the_highest_card_of_the_declaring_team(shows, starter):
    h = auction_hand(SHOW_HANDS, dealer=1)
    h.apply(Bid(1, 60))
    for s in (2, 3, 0):
        h.apply(Pass(s))
    assert h.phase == "show" and h.declarers == 1
    before = copy.deepcopy(h.hands)
    assert [a.faces for a in h.legal_actions(1)] == [(f,) for f in sorted(set(h.hands[1]))]
    for s in (1, 2, 3, 0):
        assert h.to_act() == s
        h.apply(Show.of(s, shows[s]))
    assert h.phase == "name" and h.starter == starter and h.to_act() == starter
    assert h.hands == before  # shown cards stay in their hands
    assert h.shown == [(s, F(shows[s])[0]) for s in (1, 2, 3, 0)]


def show_phase() -> Hand:
    h = auction_hand(SHOW_HANDS, dealer=1)
    for s in (1, 2, 3, 0):
        h.apply(Pass(s))
    assert h.declarers == 1
    return h


def test_show_exactly_one_held_card_in_turn():
    h = show_phase()
    rejected(h, Show.of(1, "RJ"), "show exactly one card you hold")
    rejected(h, Show.of(1, "KS AH"), "show exactly one card you hold")
    rejected(h, Show.of(1, ""), "show exactly one card you hold")
    rejected(h, Show.of(2, "AS"), "cannot show a card: it is seat 1's turn, not seat 2's")


def named(suit: str | None) -> Hand:
    h = show_phase()
    for s, c in ((1, "KS"), (2, "AS"), (3, "AD"), (0, "RJ")):
        h.apply(Show.of(s, c))
    assert h.starter == 3
    rejected(h, NameTrump(1, "H"), "cannot name the trump suit: it is seat 3's turn")
    talon = list(h.talon)
    h.apply(NameTrump(3, suit))
    assert h.phase == "talon" and h.to_act() == 3 and h.leader == 3
    assert len(h.hands[3]) == 33 and not Counter(talon) - Counter(h.hands[3])
    return h


@pytest.mark.parametrize("suit", ["S", "H", "D", "C"])
def test_the_starter_names_the_suit_and_the_rank_is_the_declarers_level(suit):
    h = named(suit)
    assert h.trump == Trump("9", suit)  # levels ("4", "9"), declarers team 1


def test_naming_no_suit_leaves_only_the_jokers_as_trumps():
    # seeds/README.md, auction style: 001 says with no trump suit "the only trumps are
    # the four jokers", so the declarers' rank cards are plain cards too.
    h = named(None)
    assert h.trump == Trump(None, None)


def test_naming_no_suit_gives_a_suitless_trump():
    h = named(None)
    assert h.trump.suit is None


# --- observations: what a seat may know ---------------------------------------------------------

OBS_KEYS = {
    "seat", "phase", "to_act", "levels", "declarers", "starter", "first", "trump", "trump_rank",
    "hand", "hand_sizes", "cards_dealt", "declarations", "window_passes", "talon_revealed",
    "talon", "buried",
    "bids", "passed_auction", "shown", "tricks", "leader", "current", "current_attempt",
    "defender_points", "penalties", "result",
}


def check_private(h: Hand, rng: random.Random) -> None:
    """Each seat's observation shows its own hand, the others' only as sizes, the talon only to
    the starter, the buried cards only to the starter unless the defenders turn the talon over
    after winning the last trick; and it does not
    change when the cards it may not see are dealt differently."""
    for s in range(h.players):
        obs = h.observation(s)
        assert set(obs) == OBS_KEYS
        assert sorted(F(obs["hand"])) == sorted(h.hands[s])
        assert obs["hand_sizes"] == [len(x) for x in h.hands]
        starter = s == h.starter
        if starter and h.phase in ("talon", "play", "done"):
            assert obs["talon"] == format_cards(h.talon)
        else:
            assert obs["talon"] is None
        turned = h.result is not None and h.result.talon_turned
        if h.buried and (starter or turned):
            assert obs["buried"] == format_cards(h.buried)
        else:
            assert obs["buried"] is None
        # Deal the hidden cards differently: the observation must not change.
        other = copy.deepcopy(h)
        pools: list[list[int]] = [other.hands[t] for t in range(h.players) if t != s]
        if not starter:
            pools.append(other.talon)
            if not turned:
                pools.append(other.buried)
        cards = [f for p in pools for f in p]
        rng.shuffle(cards)
        for p in pools:
            p[:] = [cards.pop() for _ in p]
        assert other.observation(s) == obs


@pytest.mark.parametrize("rules,seed", [
    (R, 3), (R, 11), (RA, 4), (Rules(players=6, decks=3), 2),
])
def test_observations_stay_private_through_a_hand(rules, seed):
    g = Game(rules, seed=seed)
    rng = random.Random(seed)
    check_rng = random.Random(seed + 1)
    step = 0
    phases = set()
    while g.hand_no == 0:
        h = g.hand
        phases.add(h.phase)
        if step % 7 == 0 or h.phase not in ("deal", "play"):
            check_private(h, check_rng)
        g.apply(g.random_action(rng))
        step += 1
    check_private(g.hands_played[0], check_rng)
    assert {"deal", "talon", "play"} <= phases


def test_observation_of_a_scripted_hand_hides_the_talon_and_buried_cards():
    h = later_hand(R6, P_HANDS, "2H", starter=0)
    draw_all(h)
    pass_window(h)
    talon = list(h.talon)
    assert h.observation(0)["talon"] == format_cards(talon)
    assert sorted(F(h.observation(0)["hand"])) == sorted(F(P_HANDS[0]) + talon)
    for s in (1, 2, 3):
        obs = h.observation(s)
        assert obs["talon"] is None and obs["buried"] is None
        assert obs["hand"] == format_cards(h.ladder.sort_faces(F(P_HANDS[s])))
    h.apply(Bury(0, tuple(talon)))
    for plays in P_TRICKS:
        check_private(h, random.Random(1))
        play_trick(h, *plays)
    assert h.phase == "done"
    # Seed 000: the talon is turned over only when the defenders win the last trick.
    turned = h.is_defender(h.tricks[-1].winner)
    assert h.result.talon_turned == turned
    for s in range(4):
        shown = format_cards(talon) if turned or s == 0 else None
        assert h.observation(s)["buried"] == shown
        assert h.observation(s)["talon"] == (format_cards(talon) if s == 0 else None)
    check_private(h, random.Random(2))


def test_only_the_seat_to_act_has_legal_actions_except_declarations_during_the_deal():
    for rules, seed in ((R, 21), (RA, 22), (Rules(players=6), 23)):
        g = Game(rules, seed=seed)
        rng = random.Random(seed)
        while g.hand_no == 0:
            h = g.hand
            act = h.to_act()
            for s in range(rules.players):
                first = list(islice(h.legal_actions(s), 60))
                if s == act:
                    assert first, (h.phase, s)
                elif h.phase == "deal":
                    assert all(isinstance(a, Declare) for a in first)
                else:
                    assert first == [], (h.phase, s)
            g.apply(g.random_action(rng))


def test_declarations_during_the_deal_are_offered_to_every_holder():
    h = first_hand(DECL, DECL_TALON, first=0)
    draw(h, 4)
    assert h.to_act() == 0
    assert list(h.legal_actions(1)) == [Declare(1, T("2S"))]
    assert list(h.legal_actions(2)) == []  # one black joker is no declaration
    assert list(h.legal_actions(0)) == [Draw(0), Declare(0, T("2H"))]


def test_every_lead_is_listed_once_simple_ones_first():
    """A lead is any multiset of one suit's cards: the singles, pairs and tractors come
    first, then every other multiset of a suit (all of them throws), each once."""
    from itertools import product

    from tractor.formats import THROW, classify_faces

    h = in_play(R6, {0: "KS KS QS QS JS 3C", 1: "AS 9S 9S 4S 5D KC",
                     2: "KD KD 5S 3S 6C 7C", 3: "2H 10S JS 8D 9D 4C"}, "2H")
    leads = [a.faces for a in h.legal_actions(0)]
    assert len(leads) == len(set(map(tuple, map(sorted, leads))))
    spades = [(f, n) for f, n in Counter(F("KS KS QS QS JS")).items()]
    every = {tuple(sorted(f for (f, _), k in zip(spades, took, strict=True) for _ in range(k)))
             for took in product(*(range(n + 1) for _, n in spades))} - {()}
    assert {tuple(sorted(c)) for c in leads} == every | {tuple(F("3C"))}
    kinds = [classify_faces(list(c), h.ladder).kind for c in leads]
    simple = len(kinds) - kinds.count(THROW)
    assert THROW not in kinds[:simple] and set(kinds[simple:]) == {THROW}
    assert sorted(kinds[:simple]) == ["pair", "pair", "single", "single", "single", "single",
                                      "tractor"]
