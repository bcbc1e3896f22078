"""Take-backs in the rules core (`Rules.takebacks`, `tractor.takeback`): which plays may be
taken back, and that taking one back restores the hand exactly, in `Hand` and `PublicHand`."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tractor.actions import Play, TakeBack, action_from_data
from tractor.formats import THROW, classify_faces
from tractor.hand import Hand
from tractor.phases import PLAY, IllegalAction
from tractor.public import PublicHand
from tractor.rules import Rules
from tractor.takeback import TAKEBACKS_PER_HAND


def _state(hand: PublicHand) -> dict[str, Any]:
    """Every field of a hand's state but the take-backs' own and the action log, comparable."""
    out: dict[str, Any] = {}
    for key, value in hand.__dict__.items():
        if key in ("takebacks", "log", "ladder"):
            continue
        if key == "sides" and value is not None:
            value = (value.friends, value.copies, value.side)
        out[key] = repr(value)
    return out


def _at_play(rules: Rules, seed: int) -> Hand:
    rng = random.Random(seed)
    deck = [f for f in range(54) for _ in range(rules.decks)]
    rng.shuffle(deck)
    hand = Hand(rules, deck, [rules.start_level] * rules.level_count, 0, starter=0,
                declarers=0 if rules.mode == "teams" else None)
    while hand.phase != PLAY:
        hand.apply(hand.random_action(rng))
    return hand


def _public(hand: Hand) -> PublicHand:
    """The public side of ``hand`` (the omniscient hand counts cards in its seats' hands)."""
    public = hand.copy_public()
    public.sizes = [len(h) for h in hand.hands]
    return public


def _plain_play(hand: Hand, rng: random.Random) -> Play:
    """A random play of the seat to act that is not a throw (a throw is never taken back)."""
    seat = hand.to_act()
    assert seat is not None and hand.ladder is not None
    options = [a for a in hand.legal_actions(seat) if isinstance(a, Play) and (
        hand.current or classify_faces(list(a.faces), hand.ladder).kind != THROW)]
    return rng.choice(options[:12])


def test_the_option_is_off_by_default_and_left_out_of_the_rules_data() -> None:
    assert Rules().takebacks is False and "takebacks" not in Rules().to_data()
    on = Rules(takebacks=True)
    assert on.to_data()["takebacks"] is True and Rules.from_data(on.to_data()) == on
    assert "takebacks" in Rules.option_names()
    assert action_from_data(TakeBack(2).to_data()) == TakeBack(2)


@pytest.mark.parametrize("mode", ["teams", "friends"])
def test_a_take_back_restores_the_hand_and_the_public_hand_replays_it(mode: str) -> None:
    rules = Rules(takebacks=True, players=4 if mode == "teams" else 5, mode=mode)
    hand = _at_play(rules, 3)
    public = _public(hand)
    rng = random.Random(7)
    taken = 0
    while hand.result is None:
        play = _plain_play(hand, rng)
        before = _state(hand)
        hand.apply(play)
        public.record_play(play.seat, play.faces)
        assert public.takeback_refusal(play.seat) == hand.takeback_refusal(play.seat)
        if hand.takeback_refusal(play.seat) is None and rng.random() < 0.5:
            assert TakeBack(play.seat) in list(hand.legal_actions(play.seat))
            hand.apply(TakeBack(play.seat))
            public.record_takeback(play.seat)
            taken += 1
            assert _state(hand) == before  # the cards, the trick, the points, the sides
        assert public.observe_seat(0, ()).to_data()["tricks"] == \
            hand.observe(0).to_data()["tricks"]
        assert public.defender_points == hand.defender_points
    assert taken == TAKEBACKS_PER_HAND * rules.players  # each seat used them all
    assert public.sizes == [len(h) for h in hand.hands]


def test_only_the_last_play_and_only_until_the_next_seat_plays() -> None:
    hand = _at_play(Rules(takebacks=True), 1)
    rng = random.Random(2)
    lead = _plain_play(hand, rng)
    hand.apply(lead)
    assert hand.takeback_refusal((lead.seat + 1) % 4) is not None  # not its play
    follow = _plain_play(hand, rng)
    hand.apply(follow)
    with pytest.raises(IllegalAction, match="only the last play"):
        hand.apply(TakeBack(lead.seat))
    assert TakeBack(lead.seat) not in list(hand.legal_actions(lead.seat))
    hand.apply(TakeBack(follow.seat))
    again = _plain_play(hand, rng)
    hand.apply(again)
    with pytest.raises(IllegalAction, match="made again after a take-back is final"):
        hand.apply(TakeBack(again.seat))


def test_the_play_that_ends_a_trick_until_the_winner_leads() -> None:
    hand = _at_play(Rules(takebacks=True), 4)
    rng = random.Random(5)
    points, leader = hand.defender_points, hand.leader
    for _ in range(4):
        last = _plain_play(hand, rng)
        hand.apply(last)
    assert len(hand.tricks) == 1 and not hand.current
    hand.apply(TakeBack(last.seat))
    assert not hand.tricks and len(hand.current) == 3 and hand.to_act() == last.seat
    assert (hand.defender_points, hand.leader) == (points, leader)
    hand.apply(last)
    lead = _plain_play(hand, rng)  # the winner leads the next trick
    hand.apply(lead)
    hand.apply(TakeBack(lead.seat))  # only that lead now: the trick before stays
    assert len(hand.tricks) == 1 and not hand.current
    with pytest.raises(IllegalAction, match="only the last play"):
        hand.apply(TakeBack(last.seat))


def test_no_throw_no_last_card_no_more_than_the_limit_and_not_when_off() -> None:
    off = _at_play(Rules(), 1)
    rng = random.Random(1)
    play = _plain_play(off, rng)
    off.apply(play)
    with pytest.raises(IllegalAction, match="takebacks=false"):
        off.apply(TakeBack(play.seat))
    assert TakeBack(play.seat) not in list(off.legal_actions(play.seat))
    hand = _at_play(Rules(takebacks=True), 8)
    seat = hand.to_act()
    assert seat is not None and hand.ladder is not None
    throw = next((a for a in hand.legal_actions(seat) if isinstance(a, Play) and
                  classify_faces(list(a.faces), hand.ladder).kind == THROW), None)
    assert throw is not None
    hand.apply(throw)
    with pytest.raises(IllegalAction, match="a throw cannot be taken back"):
        hand.apply(TakeBack(seat))
    while hand.result is None:
        play = _plain_play(hand, rng)
        hand.apply(play)
    with pytest.raises(IllegalAction, match="last card of the hand cannot be taken back"):
        hand.apply(TakeBack(play.seat))  # the hand is over: scored at its last card



def test_a_seat_that_used_its_take_backs_is_told_so_after_the_next_seat_played() -> None:
    hand = _at_play(Rules(takebacks=True), 5)
    rng = random.Random(4)
    seat = hand.to_act()
    assert seat is not None
    used = 0
    while used < TAKEBACKS_PER_HAND:
        play = _plain_play(hand, rng)
        hand.apply(play)
        if play.seat == seat and hand.takeback_refusal(seat) is None:
            hand.apply(TakeBack(seat))
            hand.apply(_plain_play(hand, rng))  # made again: final
            used += 1
    while hand.to_act() != seat:
        hand.apply(_plain_play(hand, rng))
    hand.apply(_plain_play(hand, rng))
    hand.apply(_plain_play(hand, rng))  # the next seat plays at once: its play was final
    refusal = hand.takeback_refusal(seat)
    assert refusal is not None and f"took back {TAKEBACKS_PER_HAND} plays" in refusal, refusal
