"""The AI seats in find-a-friend (`Rules(mode="friends")`, 4 to 12 seats): every strategy
answers every decision legally (the call too) through whole games; the starter's calls;
the belief over who the friends are; worlds sampled consistently with the friends state;
the hints that explain it."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

import pytest
from helpers import F, build_deck
from test_ai_strategies import drive, other_world

from tractor.actions import Action, Bury, Call, Play
from tractor.ai.players import search as search_mod
from tractor.ai.players.base import Strategy
from tractor.ai.players.calling import choose_calls
from tractor.ai.players.explain import reason
from tractor.ai.players.explain_friends import friends_summary
from tractor.ai.players.friend_belief import FriendBelief, side_chances
from tractor.ai.players.heuristic import HeuristicStrategy
from tractor.ai.players.revealing import FIND_FRIEND, friend_leads
from tractor.ai.players.search import SearchStrategy, friends_outcome_value
from tractor.ai.players.strategies import LEVELS, make_strategy
from tractor.ai.players.tracker import Tracker
from tractor.ai.players.worlds import Knowledge
from tractor.friends import FriendCall, call_error, parse_calls
from tractor.game import Game
from tractor.hand import Hand
from tractor.phases import CALL, DONE
from tractor.records import HandResult
from tractor.rules import Rules
from tractor.trump import Trump, rules_ladder

SEATS = (4, 5, 6, 7, 12)


def friends(players: int, **options: object) -> Rules:
    return Rules(players=players, mode="friends", **options)  # type: ignore[arg-type]


def play_game(game: Game, seats: Sequence[Strategy],
              probe: Callable[[Game, int, Action], None] | None = None) -> Game:
    """Play a game to its end, each seat deciding from its own observation;
    `Game.apply` refuses any illegal action."""
    rules = game.rules
    while not game.over:
        seat = game.to_act()
        assert seat is not None
        action = seats[seat].decide(game.observe(seat), rules)
        if probe is not None:
            probe(game, seat, action)
        game.apply(action)
    return game


def check_call(game: Game, seat: int, action: Action) -> None:
    """A call is the rules' number of distinct calls the rules core accepts."""
    if game.hand.phase != CALL:
        return
    assert isinstance(action, Call)
    hand = game.hand
    assert hand.trump is not None
    assert call_error(game.rules, hand.trump, hand.levels[seat], action.calls) is None
    assert len(action.calls) == game.rules.friend_calls


# --- legal, through whole games ---------------------------------------------------------------

@pytest.mark.parametrize("players", SEATS)
@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_random_and_heuristic_seats_finish_games_legally(name: str, players: int) -> None:
    """Several seeded games per table size, from level Q so each ends in a few hands."""
    for seed in range(3):
        rules = friends(players, start_level="Q")
        game = Game(rules, seed=f"{name}:{players}:{seed}")
        seats = [make_strategy(name, seed=seed * 20 + s) for s in range(players)]
        play_game(game, seats, check_call)
        assert game.winners and game.hand_no >= 1
        assert all(h.result is not None and h.result.side for h in game.hands_played)


#: Every level and every table size once (the budgets are cut alike below, so a cross of the
#: two would play the same games three times over).
LEVEL_SEATS = [("easy", 4), ("normal", 5), ("hard", 6), ("normal", 7), ("easy", 12)]


def test_the_search_games_cover_every_level_and_table_size() -> None:
    assert {lv for lv, _ in LEVEL_SEATS} == set(LEVELS)
    assert {n for _, n in LEVEL_SEATS} == set(SEATS)


@pytest.mark.slow  # about 25 s in all
@pytest.mark.parametrize("level,players", LEVEL_SEATS)
def test_search_seats_at_every_level_finish_games_legally(
        level: str, players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Search seats (each level's player, its budget cut short for time) with heuristic and
    random seats, every seat once a searcher over the games."""
    worlds, _ = search_mod.LEVELS[level]
    monkeypatch.setitem(search_mod.LEVELS, level, (min(worlds, 3), 0.05))
    names = ["search", "heuristic", "random"]
    for seed in range(2):
        rules = friends(players, start_level="K")
        game = Game(rules, seed=f"search:{level}:{players}:{seed}")
        seats = [make_strategy(names[(s + seed) % 3], level, seed * 20 + s)
                 for s in range(players)]
        play_game(game, seats, check_call)
        assert game.winners


@pytest.mark.parametrize("options", [
    dict(friend_cards="trump_too"), dict(friend_cards="no_highest"),
    dict(friend_cards="no_points", start_level="A"), dict(friend_join="no_double"),
    dict(friends=3, decks=3), dict(smaller_side_bonus=False),
])
def test_every_call_policy_is_answered_legally(options: dict[str, object]) -> None:
    players = 7 if options.get("friends") == 3 else 5
    for seed in range(2):
        rules = friends(players, **options)
        game = Game(rules, seed=f"policy:{seed}")
        seats = [make_strategy("heuristic" if s % 2 else "random", seed=s)
                 for s in range(players)]
        while game.hand_no < 1:
            seat = game.to_act()
            assert seat is not None
            action = seats[seat].decide(game.observe(seat), rules)
            check_call(game, seat, action)
            game.apply(action)
        assert game.hands_played[0].phase == DONE


# --- positions built to order -------------------------------------------------------------------

FIVE = Rules(players=5, mode="friends")
AH = F("AH")[0]
#: Seat 0 starts (trump 2♠) and is short in ♥; seat 1 has no ♥; seats 2 and 3 hold one
#: ♥A each; seat 4 holds ♥ but no ♥A.
HANDS = {
    0: "RJ RJ BJ BJ 2S 2S AS AS KS KS 3H AD KD QD JD AC KC QC JC 10C",
    1: "3S 4S 5S 6S 7S 8S 9S 3D 4D 5D 6D 7D 8D 9D 3C 4C 5C 6C 7C 8C",
    2: "AH 4H 5H 6H KH 10S",
    3: "AH 7H 8H 9H 10H",
    4: "10H JH QH 3H",
}


def five(hands: dict[int, str] = HANDS, calls: str = "AH") -> Hand:
    """The hand after the starter (seat 0) buried the talon it took and made ``calls``."""
    hand = Hand.dealt(FIVE, build_deck(FIVE, hands), ["2"] * 5, first=0,
                      trump=Trump("2", "S"), starter=0, declarers=None)
    hand.apply(Bury(0, tuple(hand.talon)))
    hand.apply(Call(0, parse_calls(calls)))
    return hand


def play(hand: Hand, *plays: str) -> Hand:
    for text in plays:
        seat = hand.to_act()
        assert seat is not None
        hand.apply(Play(seat, tuple(F(text))))
    return hand


def belief_of(hand: Hand, seat: int) -> FriendBelief:
    belief = Tracker(Knowledge.from_hand(hand, seat)).allies.belief
    assert belief is not None
    return belief


# --- calling ------------------------------------------------------------------------------------

SPADES = Trump("2", "S")


def calls_for(hand: str, buried: str = "", rules: Rules = FIVE) -> tuple[FriendCall, ...]:
    return choose_calls(rules, rules_ladder(SPADES, rules), "2", F(hand), F(buried))


def test_calls_the_first_top_card_of_a_short_suit_it_lacks() -> None:
    calls = calls_for("RJ BJ 2S 2H AS KS QS JS 10S 9S AH KH QH JH 10H AD KD QD JD 3C")
    assert calls == (FriendCall(F("AC")[0], 1),)


def test_calls_the_copy_after_the_one_it_holds() -> None:
    # One of each ace, long suits: a first ace would fall to the starter itself.
    calls = calls_for("RJ BJ 2S AS AH KH QH JH 9H AD KD QD JD 9D AC KC QC JC 9C 8C")
    assert len(calls) == 1 and calls[0].nth == 2 and calls[0].face in F("AH AD AC")


@pytest.mark.parametrize("hand,buried", [
    ("RJ BJ 2S AS AH AH KH QH JH AD AD KD QD JD AC AC KC QC JC 9C", ""),
    ("RJ BJ 2S AS AH KH QH JH 9H AD KD QD JD 9D AC KC QC JC 9C 8C", "AH AD AC"),
])
def test_never_calls_a_card_whose_every_copy_it_holds_or_buried(hand: str, buried: str) -> None:
    held = F(hand) + F(buried)
    for rules in (FIVE, Rules(players=6, mode="friends"), Rules(players=12, mode="friends")):
        for call in calls_for(hand, buried, rules):
            assert held.count(call.face) < rules.decks, call


def test_calls_follow_the_policy_and_differ() -> None:
    rules = Rules(players=6, mode="friends", friend_cards="no_highest")
    calls = calls_for("RJ BJ 2S AS KS QS JS 10S AH KH QH JH AD KD QD JD 3C 4C", rules=rules)
    assert len(set(calls)) == 2 and all(c.face % 13 != 12 for c in calls)  # no ace
    assert call_error(rules, SPADES, "2", calls) is None


def test_the_hint_says_why_a_call_was_chosen() -> None:
    hand = five()
    obs = hand.observe(0)
    assert reason(obs, Call(0, parse_calls("AH")), FIVE) == \
        "calls the 1st ♥A: you hold none, 1 ♥ to lead"
    # Any call's reason is true, not only the AI's.
    assert reason(obs, Call(0, parse_calls("2:AD")), FIVE) == \
        "calls the 2nd ♦A: you play your own ♦A first"
    assert reason(obs, Call(0, parse_calls("AC")), FIVE) == \
        "calls the 1st ♣A: every copy is yours"
    assert reason(obs, Call(0, parse_calls("AD")), FIVE) == \
        "calls the 1st ♦A: you hold 1, it may fall to you"
    assert reason(obs, Call(0, parse_calls("AH 2:AD")), FIVE) == \
        "calls 1st ♥A (you: 1 ♥), 2nd ♦A (after yours)"


def test_burial_keeps_a_low_card_to_lead_to_the_called_ace() -> None:
    """The cheapest cards would empty ♣; kept, the ♣4 leads to a friend's ♣A."""
    rules = FIVE
    hand = Hand.dealt(rules, build_deck(rules, {
        0: "RJ BJ 2S 2H AS KS QS JS 10S 9S AH AH KH QH JH AD AD KD QD 4C"}, talon=(
            "3H 4H 5H 6H 3D 4D 5D 6D")),
        ["2"] * 5, first=0, trump=SPADES, starter=0, declarers=None)
    bury = HeuristicStrategy().act(hand, 0)
    assert isinstance(bury, Bury) and F("4C")[0] not in bury.faces
    hand.apply(bury)
    call = HeuristicStrategy().act(hand, 0)
    assert isinstance(call, Call) and call.calls == (FriendCall(F("AC")[0], 1),)


# --- the belief ----------------------------------------------------------------------------------

def test_a_seat_that_showed_out_of_the_called_suit_is_no_friend_and_holders_know() -> None:
    hand = play(five(), "3H", "3D")  # seat 1 has no ♥: it cannot hold the ♥A
    outsider = belief_of(hand, 4)
    assert outsider.at_end[1] == 0.0 and outsider.at_end[0] == 1.0
    assert outsider.at_end[2] == outsider.at_end[3] > 0.4
    assert outsider.now(0) == 1.0 and outsider.now(2) == 0.0
    assert not outsider.friend_to_be and not outsider.settled
    # A seat holding the called copy knows it is the friend if it plays it.
    holder = belief_of(hand, 2)
    assert holder.controls == (0,) and holder.friend_to_be and holder.at_end[2] >= 0.9
    chances = side_chances(hand.observe(4), FIVE)
    assert chances.at_end == outsider.at_end and chances.now == (1.0, 0.0, 0.0, 0.0, 0.0)


def test_the_side_is_known_once_the_called_card_is_played() -> None:
    hand = play(five(), "3H", "3D", "AH")
    for seat in range(5):
        belief = belief_of(hand, seat)
        assert belief.known == (0, 2) and belief.settled
        assert belief.at_end == (1.0, 0.0, 1.0, 0.0, 0.0)
    allies = Tracker(Knowledge.from_hand(hand, 4)).allies
    assert allies.partners() == [1, 3] and not allies.declaring


def test_a_seat_feeding_the_starters_tricks_looks_like_its_friend() -> None:
    hand = play(five(), "RJ", "3S", "10S", "2D", "2C")  # seat 2 gives 10 points
    assert hand.tricks[-1].winner == 0
    play(hand, "3H", "3D")
    belief = belief_of(hand, 4)
    assert belief.at_end[2] > 0.5 > belief.at_end[3]
    assert "Seat 2 is likely the starter's friend" in friends_summary(hand.observe(4), FIVE)


# --- the card play -------------------------------------------------------------------------------

def test_a_friend_to_be_reveals_itself_by_winning_with_the_called_card() -> None:
    hand = play(five(), "3H", "3D")
    action = HeuristicStrategy().act(hand, 2)
    assert action == Play(2, (AH,))
    assert reason(hand.observe(2), action, FIVE) == \
        "plays the called ♥A: you join the starter, and win"


def test_the_starter_does_not_spend_its_own_call_on_itself() -> None:
    """The 2nd ♥A is called; seat 3 played the 1st: the starter's own ♥A would answer."""
    hands = dict(HANDS)
    hands[0] = "RJ RJ BJ BJ 2S 2S AS AS KS KS 3H 5H AH AD KD QD JD AC KC QC"
    hands[2] = "4H 6H KH 10S"
    hand = play(five(hands, "2:AH"), "3H", "3D", "4H", "AH", "QH", "10H", "JH")
    assert hand.sides is not None and hand.sides.friends == (None,)
    action = HeuristicStrategy().act(hand, 0)
    assert action == Play(0, tuple(F("5H")))


def test_the_starter_leads_to_its_friend() -> None:
    """The starter holds a low ♥ and no ♥A: once its top trumps are out, it leads the ♥."""
    hand = five()
    know = Knowledge.from_hand(hand, 0)
    belief = belief_of(hand, 0)
    tr = Tracker(know)
    leads = friend_leads(list(hand.hands[0]), belief, tr, lambda e: False, lambda p: 0.0)
    assert ([F("3H")[0]], FIND_FRIEND) in leads


# --- worlds --------------------------------------------------------------------------------------

def test_worlds_sampled_at_the_call_keep_every_observation() -> None:
    hand = Hand.dealt(FIVE, build_deck(FIVE, HANDS), ["2"] * 5, first=0, trump=SPADES,
                      starter=0, declarers=None)
    hand.apply(Bury(0, tuple(hand.talon)))
    assert hand.phase == CALL
    for seat in range(5):
        know = Knowledge.from_hand(hand, seat)
        world = know.sample(random.Random(seat))
        assert world.observation(seat) == hand.observation(seat)
        assert know.violations(world) == [] and world.to_act() == 0


def test_worlds_keep_the_friends_state_and_the_calls() -> None:
    """From seat 4, after seat 1 showed out of ♥: the ♥A is never in seat 1's hand, nor in
    the buried cards or the starter's hand (it called the ♥A); the sides replay from the
    plays; the world's own play decides who the friend is."""
    hand = play(five(), "3H", "3D")
    know = Knowledge.from_hand(hand, 4)
    rng = random.Random(4)
    holders: Counter[int] = Counter()
    for _ in range(60):
        world = know.sample(rng)
        assert world.observation(4) == hand.observation(4) and know.violations(world) == []
        assert AH not in world.hands[1] and AH not in world.hands[0]
        assert AH not in world.buried
        assert world.sides is not None and hand.sides is not None
        assert (world.sides.side, world.sides.friends, world.sides.copies) == \
            (hand.sides.side, hand.sides.friends, hand.sides.copies)
        holders.update(s for s in (2, 3) if AH in world.hands[s])
    assert holders[2] > 10 and holders[3] > 10
    world = know.sample(rng)
    first = play_out(world)
    assert world.result is not None and world.result.side == (0, first)


def play_out(world: Hand) -> int:
    """Play a world to the end with heuristic seats; the seat that played the first ♥A."""
    seats = [HeuristicStrategy(s) for s in range(world.players)]
    first = None
    while world.phase != DONE:
        seat = world.to_act()
        assert seat is not None
        action = seats[seat].act(world, seat)
        if first is None and isinstance(action, Play) and AH in action.faces:
            first = seat
        world.apply(action)
    assert first is not None
    return first


# --- search ---------------------------------------------------------------------------------------

def test_the_search_values_a_world_by_the_side_it_ended_on() -> None:
    result = HandResult(40, 0, 0, 0, 2, 0, 2, side=(0, 2), gaining=(0, 2))
    assert friends_outcome_value(result, 2, 40) == 2 - 1.0
    assert friends_outcome_value(result, 3, 40) == -2 + 1.0


def test_the_search_decides_legally_and_alike_from_the_same_view() -> None:
    hand = play(five(), "3H", "3D")
    one = SearchStrategy(seed=1, iterations=6).act(hand, 2)
    again = SearchStrategy(seed=1, iterations=6).act(hand, 2)
    assert one == again
    hand.clone().apply(one)


# --- blind to hidden cards -------------------------------------------------------------------

def blind_probe(name: str, seed: int, rng: random.Random,
                probed: Counter[str]) -> Callable[[Hand, int], None]:
    """Checks that seat's decision in the real hand and in another world (the cards it
    cannot see dealt again: `test_ai_strategies.other_world`) is the same."""

    def probe(hand: Hand, seat: int) -> None:
        if hand.phase == "deal" and hand.drawn % 7:
            return
        world = other_world(hand, seat, rng)
        real = make_strategy(name, seed=seed).act(hand.clone(), seat)
        assert real == make_strategy(name, seed=seed).act(world, seat)
        probed[str(hand.phase)] += 1

    return probe


@pytest.mark.parametrize("name", ["random", "heuristic"])
@pytest.mark.parametrize("players", [5, 6])
def test_friends_decisions_do_not_depend_on_hidden_cards(name: str, players: int) -> None:
    """The same decision whatever the cards the seat cannot see: the call and the plays
    too (the belief reads the observation only)."""
    rules = friends(players)
    probed: Counter[str] = Counter()
    for seed in range(3):
        rng = random.Random(seed)
        deck = [f for f in range(54) for _ in range(rules.decks)]
        rng.shuffle(deck)
        first = seed % players
        hand = Hand(rules, deck, ["2"] * players, first, starter=first, declarers=None)
        seats = [make_strategy(name, seed=seed * 10 + s) for s in range(players)]
        drive(hand, seats, blind_probe(name, seed, rng, probed))
        assert hand.phase == DONE
    assert probed["call"] == 3 and probed["play"] > 100
