"""Find-a-friend (`Rules.mode` "friends") in the rules core: the options, the calls and which
cards may be called, friends revealed by the plays, the points and levels of sides that are
made during the hand, and whole games of 4 to 12 players."""

from __future__ import annotations

import random

import pytest

from tractor import Game, Hand, IllegalAction, Rules, RulesError
from tractor.actions import ActionDataError, Bury, Call, Play, action_from_data
from tractor.cards import parse_faces
from tractor.friends import (
    CallParseError,
    FriendCall,
    Sides,
    call_error,
    legal_calls,
    next_starter,
    parse_calls,
)
from tractor.observation import Observation
from tractor.phases import ANSWERS, CALL, DONE, PLAY, TALON, Decision
from tractor.records import friends_forfeit, friends_result
from tractor.scoring import score_outcome
from tractor.trump import Trump

FIVE = Rules(players=5, mode="friends")
AH = parse_faces("AH")[0]


# --- the options ------------------------------------------------------------------------------

def test_an_odd_table_is_refused_with_teams_and_told_of_find_a_friend():
    with pytest.raises(RulesError, match="odd table plays mode=friends"):
        Rules(players=5)
    assert Rules(players=5, mode="friends").hand_size == 20  # 108 - talon of 8, five ways


@pytest.mark.parametrize("players,calls", [(4, 1), (5, 1), (6, 2), (7, 2), (8, 3), (12, 5)])
def test_the_starter_calls_half_the_table_less_itself_by_default(players, calls):
    assert Rules(players=players, decks=3, mode="friends").friend_calls == calls


@pytest.mark.parametrize("options,reason", [
    (dict(players=5, mode="friends", friends=4), "friends must be 1 to 3"),
    (dict(players=5, mode="friends", friends=0), "friends must be 1 to 3"),
    (dict(friends=1), "option of mode=friends"),
    (dict(players=6, mode="friends", declaration="auction"), "declaration=reveal"),
    (dict(mode="pairs"), "mode must be teams or friends"),
    (dict(players=5, mode="friends", friend_cards="aces"), "friend_cards is"),
    (dict(players=5, mode="friends", friend_join="never"), "friend_join must be"),
    (dict(players=13, mode="friends"), "players must be 4 to 12"),
])
def test_impossible_options_are_refused_with_the_reason(options, reason):
    with pytest.raises(RulesError, match=reason):
        Rules(**options)


def test_the_plain_data_of_teams_rules_has_no_find_a_friend_keys_and_reads_back():
    assert "mode" not in Rules().to_data()  # as before the mode existed: digests unchanged
    rules = Rules(players=7, decks=3, mode="friends", friends=3, friend_cards="no_points",
                  friend_join="no_double", smaller_side_bonus=False)
    assert Rules.from_data(rules.to_data()) == rules
    assert Rules.from_data(Rules().to_data()) == Rules()


# --- calls ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,call", [
    ("AH", FriendCall(AH, 1)), ("2:AH", FriendCall(AH, 2)), ("2nd A♥", FriendCall(AH, 2)),
    ("♥A", FriendCall(AH, 1)), ("2h", FriendCall(13, 1)), ("10H", FriendCall(21, 1)),
    ("3rd:10h", FriendCall(21, 3)), ("2 AH", FriendCall(AH, 2)),
])
def test_calls_read_as_people_write_them_and_back(text, call):
    assert parse_calls(text) == (call,)
    assert FriendCall.parse(call.to_text()) == call


@pytest.mark.parametrize("text", ["XX", "AH KS", "7:AH", "0:AH", ""])
def test_a_call_that_is_not_one_says_why(text):
    with pytest.raises(CallParseError):
        FriendCall.parse(text)


def test_the_call_action_round_trips_and_refuses_junk():
    action = Call.of(0, "AH, 2nd KS")
    assert action_from_data(action.to_data()) == action
    assert str(action) == "call seat 0: the 1st ♥A, the 2nd ♠K"
    for junk in (["call", 0, "AH ZZ"], ["call", 0, 5], ["call", 0, "AH " * 100]):
        with pytest.raises(ActionDataError):
            action_from_data(junk)
    assert ANSWERS[Decision.CALL] == (Call,)


def calls(text: str) -> tuple[FriendCall, ...]:
    return parse_calls(text)


@pytest.mark.parametrize("policy,trump,level,text,reason", [
    ("no_trump", Trump("2", "S"), "2", "AS", "a trump"),
    ("no_trump", Trump("2", "S"), "2", "2H", "a trump"),
    ("no_trump", Trump("2", "S"), "2", "RJ", "a trump"),
    ("no_trump", Trump("2", "S"), "2", "AH", None),
    ("no_trump", Trump(None, None), "2", "2H", None),  # a hand of jokers only: 2s are plain
    ("trump_too", Trump("2", "S"), "2", "RJ", None),
    ("no_highest", Trump("2", "S"), "2", "AH", "highest card of its suit"),
    ("no_highest", Trump("A", "S"), "A", "KH", "highest card of its suit"),
    ("no_highest", Trump("2", "S"), "2", "KH", None),
    ("no_points", Trump("2", "S"), "2", "KH", "a point card"),
    ("no_points", Trump("2", "S"), "2", "5D", "a point card"),
    ("no_points", Trump("A", "S"), "A", "KH", None),  # at ace the king may be called
    ("no_points", Trump("2", "S"), "2", "AH", None),
])
def test_which_cards_may_be_called_follows_the_policy(policy, trump, level, text, reason):
    rules = Rules(players=5, mode="friends", friend_cards=policy)
    found = call_error(rules, trump, level, calls(text))
    assert (found is None) if reason is None else (reason in found), found


def test_the_number_copies_and_difference_of_calls_are_checked():
    six = Rules(players=6, mode="friends")  # two calls, two decks
    trump = Trump("2", "S")
    assert "call 2 friends, not 1" in call_error(six, trump, "2", calls("AH"))
    assert "different" in call_error(six, trump, "2", calls("AH AH"))
    assert "no 3rd copy" in call_error(six, trump, "2", calls("AH 3:KH"))
    assert call_error(six, trump, "2", calls("AH 2:AH")) is None
    every = list(legal_calls(FIVE, trump, "2"))
    assert len(every) == 2 * (52 - 13 - 3) and all(call_error(FIVE, trump, "2", c) is None
                                                   for c in every)


# --- sides ------------------------------------------------------------------------------------

def test_the_first_copy_played_by_another_seat_makes_a_friend():
    sides = Sides(FIVE, starter=0, calls=calls("AH"))
    assert sides.on_play(2, parse_faces("KH")) == [] and sides.side == (0,)
    assert sides.on_play(3, parse_faces("AH")) == [3]
    assert sides.side == (0, 3) and sides.friends == (3,) and sides.settled
    assert sides.on_play(4, parse_faces("AH")) == [] and sides.side == (0, 3)


def test_a_call_for_the_second_copy_skips_the_first():
    sides = Sides(FIVE, starter=0, calls=calls("2:AH"))
    assert sides.on_play(3, parse_faces("AH")) == []
    assert sides.on_play(1, parse_faces("AH")) == [1] and sides.side == (0, 1)


def test_a_call_falling_to_the_starter_is_spent_unless_double_joins_are_refused():
    sides = Sides(FIVE, starter=0, calls=calls("AH"))
    sides.on_play(0, parse_faces("AH"))
    sides.on_play(3, parse_faces("AH"))
    assert sides.side == (0,) and sides.friends == (0,)  # the starter plays alone
    waits = Sides(Rules(players=5, mode="friends", friend_join="no_double"), 0, calls("AH"))
    waits.on_play(0, parse_faces("AH"))
    assert waits.friends == (None,)
    waits.on_play(3, parse_faces("AH"))
    assert waits.side == (0, 3)


def test_one_seat_answering_two_calls_joins_once_and_the_side_is_smaller():
    six = Rules(players=6, mode="friends")
    sides = Sides(six, starter=0, calls=calls("AH AD"))
    sides.on_play(2, parse_faces("AH AH"))  # a pair: the first copy answers
    sides.on_play(2, parse_faces("AD"))
    assert sides.side == (0, 2) and sides.friends == (2, 2)


def test_the_next_starter_is_the_next_seat_round_on_the_side_that_won():
    assert next_starter(6, 4, (4, 1), True) == 1
    assert next_starter(6, 4, (4, 1), False) == 5
    assert next_starter(6, 4, (4, 5, 0), False) == 1


# --- a hand -----------------------------------------------------------------------------------

def dealt(rules: Rules, seed: int, want) -> Hand:
    """A hand at the burial, starter seat 0 with trump 2♠, whose deal ``want`` accepts."""
    for s in range(seed, seed + 500):
        deck = [f for f in range(54) for _ in range(rules.decks)]
        random.Random(s).shuffle(deck)
        hand = Hand.dealt(rules, deck, ["2"] * rules.players, first=0,
                          trump=Trump("2", "S"), starter=0, declarers=None)
        if want(hand):
            return hand
    raise AssertionError("no such deal")


def bury_and_call(hand: Hand, text: str) -> None:
    assert hand.phase == TALON and hand.to_act() == 0
    keep = [f for f in hand.hands[0] if f not in parse_faces(text)]
    hand.apply(Bury(0, tuple(keep[:hand.rules.talon_size])))
    assert hand.phase == CALL and hand.to_act() == 0
    with pytest.raises(IllegalAction, match="a trump"):
        hand.apply(Call.of(0, "AS"))
    with pytest.raises(IllegalAction, match="it is seat 0's turn"):
        hand.apply(Call.of(1, text))
    hand.apply(Call.of(0, text))
    assert hand.phase == PLAY


def holder(hand: Hand, face: int) -> list[int]:
    return [s for s in range(hand.players) for f in hand.hands[s] if f == face]


def test_a_friend_is_public_from_the_moment_it_plays_the_called_card_only():
    hand = dealt(FIVE, 1, lambda h: holder(h, AH) and 0 not in holder(h, AH))
    bury_and_call(hand, "AH")
    friend = holder(hand, AH)[0]
    rng = random.Random(3)
    revealed = False
    while hand.phase == PLAY:
        seat = hand.to_act()
        action = hand.random_action(rng)
        if seat == friend and AH in action.faces and not revealed:
            for s in range(5):  # nobody knows it before
                assert hand.observe(s).declaring == (0,)
            hand.apply(action)
            revealed = True
        else:
            hand.apply(action)
        side = hand.declaring_side()
        # The defenders' points are always those of the seats not known to declare.
        tricks = hand.tricks
        won = sum(t.points for t in tricks if t.winner not in side)
        penalties = sum((t.penalty if t.leader in side else -t.penalty) for t in tricks)
        if hand.phase == PLAY:
            penalties += hand.current_penalty if hand.leader in side else -hand.current_penalty
            assert hand.defender_points == won + penalties
        for s in range(5):
            assert hand.observe(s).declaring == side
            assert hand.observe(s).friends == ((friend,) if revealed else (None,))
    assert hand.phase == DONE and revealed
    assert hand.result.side == (0, friend)


def test_a_starter_whose_call_falls_to_itself_plays_alone_and_gains_a_level_more():
    hand = dealt(FIVE, 1, lambda h: h.hands[0].count(AH) == 1)
    bury_and_call(hand, "AH")
    hand.apply(Play(0, (AH,)))  # the starter leads its own ace: the call is spent on it
    assert hand.sides.friends == (0,) and hand.declaring_side() == (0,)
    rng = random.Random(5)
    while hand.phase == PLAY:
        hand.apply(hand.random_action(rng))
    result = hand.result
    assert result.side == (0,)
    side, gain = score_outcome(result.defender_points, 2)
    if side == "declarers":
        assert result.gaining == (0,) and result.levels_gained == gain + 1
    else:
        assert result.gaining == (1, 2, 3, 4) and result.levels_gained == gain


def test_the_smaller_side_bonus_is_an_option_and_a_full_side_gets_none():
    off = Rules(players=5, mode="friends", smaller_side_bonus=False)
    assert friends_result(off, 0, 0, 1, False, 0, (0,)).levels_gained == 3
    assert friends_result(FIVE, 0, 0, 1, False, 0, (0,)).levels_gained == 4
    assert friends_result(FIVE, 0, 0, 1, False, 0, (0, 2)).levels_gained == 3
    defenders = friends_result(FIVE, 125, 0, 1, False, 0, (0, 2))
    assert defenders.gaining == (1, 3, 4) and defenders.levels_gained == 1
    assert defenders.next_starter == 1


def test_talon_points_go_to_the_defenders_when_a_defender_wins_the_last_trick():
    r = friends_result(FIVE, 70, 15, 2, True, 0, (0, 2))
    assert r.talon_bonus == 60 and r.defender_points == 130 and r.gaining == (1, 3, 4)


def test_a_forfeit_loses_for_the_offender_alone():
    r = friends_forfeit(FIVE, offender=0, starter=0, side=(0,))
    assert r.gaining == (1, 2, 3, 4) and r.next_starter == 1 and r.levels_gained == 3
    hand = dealt(FIVE, 1, lambda h: True)
    with pytest.raises(IllegalAction):
        type(hand)(FIVE, hand.deck, ["2"] * 5, first=0).record_forfeit(1)  # nobody declares
    assert hand.record_forfeit(2).gaining == (0, 1, 3, 4)


# --- whole games ------------------------------------------------------------------------------

@pytest.mark.parametrize("players,decks", [(4, 2), (5, 2), (6, 3), (7, 3), (9, 4), (12, 6)])
def test_random_games_replay_and_every_seat_keeps_its_own_level(players, decks):
    rules = Rules(players=players, decks=decks, mode="friends", start_level="Q")
    game = Game(rules, seed=players)
    rng = random.Random(players)
    while not game.over and game.hand_no < 12:
        obs = game.observe(game.to_act() if game.to_act() is not None else 0)
        assert Observation.from_data(obs.to_data()) == obs
        game.apply(game.random_action(rng))
    assert len(game.levels) == players
    for hand in game.hands_played:
        r = hand.result
        assert r.side[0] == hand.starter and len(r.side) <= 1 + rules.friend_calls
        assert set(r.gaining) in (set(r.side), set(range(players)) - set(r.side))
    if game.over:  # from Q a few hands suffice
        assert game.winner == game.winners[0] and set(game.winners) <= set(
            game.hands_played[-1].result.gaining)
        assert all(game.levels[s] == "A" for s in game.winners)
    assert Game.from_data(game.to_data()).observation(0) == game.observation(0)
