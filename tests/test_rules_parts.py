"""The rules core's parts checked against their plain definitions: the declarations a hand
can make, a format's card and pair counts, a trick's winner from a known lead format, the
components of one card and of one pair, a two-card play against a pair lead, and the
follow rule.
(These are worked out by short cuts, for speed: the short cuts must give the same answers.)
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tractor.actions import Play
from tractor.cards import RANKS
from tractor.dealing import declaration_options, declaration_strength
from tractor.follow import follow_error
from tractor.formats import (
    PAIR,
    SINGLE,
    THROW,
    TRACTOR,
    Component,
    Format,
    classify_faces,
    count_pairs,
    decompose_faces,
    max_tractors_matched,
)
from tractor.game import Game
from tractor.hand import Hand
from tractor.rules import Rules
from tractor.trick import play_key, winner_against, winner_of
from tractor.trump import TRUMP, Ladder, Trump


def options_by_definition(held: list[int], rank: str,
                          standing: tuple[int, ...] | None) -> list[tuple[int, ...]]:
    """Every single and every pair of ``held`` stronger than ``standing``, by face."""
    current = 0 if standing is None else declaration_strength(standing, rank)
    out = []
    for f in sorted(set(held)):
        for faces in ((f,), (f, f)) if held.count(f) >= 2 else ((f,),):
            if declaration_strength(faces, rank) > current:
                out.append(faces)
    return out


STANDINGS = [None, (0,), (13, 13), (52, 52), (53, 53), (7,), (52,)]


@pytest.mark.parametrize("rank", RANKS)
def test_declaration_options_are_every_stronger_single_or_pair(rank: str) -> None:
    rng = random.Random(rank)
    deck = [f for f in range(54) for _ in range(2)]
    for _ in range(300):
        held = rng.sample(deck, rng.randint(0, 30))
        for standing in STANDINGS:
            assert declaration_options(held, rank, standing) == options_by_definition(
                held, rank, standing), (held, standing)


def test_declaration_options_of_rank_cards_and_jokers() -> None:
    held = [39, 13, 13, 52, 53, 53, 0]  # 2C, 2H 2H, BJ, RJ RJ, 2S
    assert declaration_options(held, "2", None) == [(0,), (13,), (13, 13), (39,), (53, 53)]
    assert declaration_options(held, "2", (0,)) == [(13, 13), (53, 53)]
    assert declaration_options(held, "2", (26, 26)) == [(53, 53)]
    assert declaration_options(held, "2", (52, 52)) == []
    assert declaration_options(held, "3", None) == [(53, 53)]


def _formats(seed: int) -> list[Format]:
    rng = random.Random(seed)
    ladder = Trump("2", "H").ladder()
    out = []
    for _ in range(200):
        esuit = ladder.esuit[rng.randrange(54)]
        suit = [f for f in range(54) if ladder.esuit[f] == esuit]
        faces = rng.sample(suit * 2, rng.randint(1, min(12, 2 * len(suit))))
        fmt = classify_faces(faces, ladder)
        out += [fmt, Format(THROW, fmt.esuit, fmt.components[1:])]
    return out


@pytest.mark.parametrize("seed", range(4))
def test_format_counts_are_those_of_its_components(seed: int) -> None:
    for fmt in _formats(seed):
        assert fmt.size == sum(len(c.faces) for c in fmt.components)
        assert fmt.pairs == sum(c.pairs for c in fmt.components)
        assert fmt.tractor_lengths == tuple(c.pairs for c in fmt.components
                                            if c.kind == TRACTOR)


def test_winner_against_a_known_lead_is_winner_of() -> None:
    rules = Rules()
    rng = random.Random(5)
    checked = tricks = 0
    for seed in range(40):
        deck = [f for f in range(54) for _ in range(2)]
        random.Random(seed).shuffle(deck)
        hand = Hand.dealt(rules, deck, ["2", "2"], 0, Trump("2", "S"), 0, 0)
        hand.apply(hand.random_action(rng))  # the burial
        while hand.result is None:
            action = hand.random_action(rng)
            if len(hand.current) == rules.players - 1:
                plays = [list(p) for p in hand.current] + [list(action.faces)]
                assert hand.lead_format is not None and hand.ladder is not None
                assert winner_against(plays, hand.lead_format, hand.ladder) == winner_of(
                    plays, hand.ladder)
                checked += 1
            hand.apply(action)
        tricks += len(hand.tricks)
    assert checked == tricks > 40 * 20


LADDERS = [Trump("2", "H").ladder(), Trump("A", None).ladder(), Trump(None, None).ladder(),
           Trump("7", "C").ladder(across_rank=False, rank_and_jokers=False)]


@pytest.mark.parametrize("ladder", LADDERS)
def test_one_card_and_one_pair_decompose_as_a_single_and_a_pair(ladder: Ladder) -> None:
    for f in range(54):
        assert decompose_faces([f], ladder) == [Component(SINGLE, (f,), 0, ladder.order[f])]
        assert decompose_faces([f, f], ladder) == [Component(PAIR, (f, f), 1, ladder.order[f])]
        # The general search: any order of the same cards gives the same components.
        assert decompose_faces([f, f, f], ladder)[0] == decompose_faces([f, f], ladder)[0]


@pytest.mark.parametrize("ladder", LADDERS)
def test_a_two_card_play_beats_a_pair_lead_only_as_a_pair(ladder: Ladder) -> None:
    lead = classify_faces([0, 0], ladder)
    for a in range(54):
        for b in range(54):
            if ladder.esuit[a] != ladder.esuit[b]:
                continue
            key = play_key([a, b], lead, ladder)
            is_pair = classify_faces([a, b], ladder).kind == PAIR
            assert (key is not None) == (is_pair and (ladder.esuit[a] in (lead.esuit, TRUMP))
                                         ), (a, b)


def legal_by_definition(hand: list[int], lead: Format, play: list[int], ladder: Ladder,
                        must_play_tractor: bool) -> bool:
    """The follow rule as `tractor.follow` states it: exactly n held cards; as many of the
    lead's suit as held (up to n); then, with more of the suit held than n, as many of the
    lead's tractors (with must_play_tractor) and pairs as held."""
    n, es = lead.size, ladder.esuit
    if len(play) != n or Counter(play) - Counter(hand):
        return False
    hand_s = [f for f in hand if es[f] == lead.esuit]
    play_s = [f for f in play if es[f] == lead.esuit]
    if len(play_s) < min(n, len(hand_s)):
        return False
    if len(hand_s) <= n:
        return True
    lengths = tuple(c.pairs for c in lead.components if c.kind == TRACTOR)
    if must_play_tractor and lengths and max_tractors_matched(
            play_s, lengths, ladder) < max_tractors_matched(hand_s, lengths, ladder):
        return False
    pairs = sum(c.pairs for c in lead.components)
    return min(pairs, count_pairs(play_s)) >= min(pairs, count_pairs(hand_s))


@pytest.mark.parametrize("rules", [Rules(), Rules(must_play_tractor=True),
                                   Rules(players=6, decks=3)], ids=["default", "must", "6x3"])
def test_follow_error_agrees_with_the_rule_as_stated(rules: Rules) -> None:
    rng = random.Random(7)
    seen = {True: 0, False: 0}
    for seed in range(30):
        game = Game(rules, seed=seed)
        while game.hand_no == 0:
            action = game.random_action(rng)
            hand = game.hand
            if isinstance(action, Play) and hand.current:
                assert hand.lead_format is not None and hand.ladder is not None
                cards = hand.hands[action.seat]
                for play in (list(action.faces), rng.sample(cards, len(action.faces)),
                             rng.sample(range(54), min(len(action.faces), 54))):
                    legal = legal_by_definition(cards, hand.lead_format, play, hand.ladder,
                                                rules.must_play_tractor)
                    reason = follow_error(cards, hand.lead_format, play, hand.ladder,
                                          rules.must_play_tractor)
                    assert (reason is None) == legal, (cards, hand.lead_format, play)
                    seen[legal] += 1
            game.apply(action)
    assert min(seen.values()) > 500
