"""Trump contexts and the card order they make (seeds 000 and 001 examples)."""

import random

import pytest

from tractor import Card, Trump, full_deck, trick_winner

DESC = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]


def strs(cards):
    return [str(c) for c in cards]


def plain(suit, without=None):
    return [f"{r}{suit}" for r in DESC if r != without]


def shuffled_deck(seed):
    cards = [str(c) for c in full_deck(1)]
    random.Random(seed).shuffle(cards)
    return cards


# seed 001: sevens and clubs trump
SEED_001 = (["RJ", "BJ", "7C", "7S", "7H", "7D"] + plain("C", "7")
            + plain("S", "7") + plain("H", "7") + plain("D", "7"))
# seed 000: first hand, twos and hearts trump
SEED_000 = (["RJ", "BJ", "2H", "2S", "2D", "2C"] + plain("H", "2")
            + plain("S", "2") + plain("D", "2") + plain("C", "2"))
RANK_ONLY_7 = (["RJ", "BJ", "7S", "7H", "7D", "7C"] + plain("S", "7") + plain("H", "7")
               + plain("D", "7") + plain("C", "7"))
JOKERS_ONLY = ["RJ", "BJ"] + plain("S") + plain("H") + plain("D") + plain("C")

CONTEXTS = [
    (Trump("7", "C"), SEED_001, 6 + 12),
    (Trump("2", "H"), SEED_000, 6 + 12),
    (Trump("7", None), RANK_ONLY_7, 6),
    (Trump(None, None), JOKERS_ONLY, 2),
]
IDS = ["seed001-7C", "seed000-2H", "rank-only-7", "jokers-only"]

# Groups of equal cards (ties), high to low, of the trump part of each context.
TRUMP_GROUPS = {
    "seed001-7C": [["RJ"], ["BJ"], ["7C"], ["7S", "7H", "7D"]] + [[c] for c in plain("C", "7")],
    "seed000-2H": [["RJ"], ["BJ"], ["2H"], ["2S", "2D", "2C"]] + [[c] for c in plain("H", "2")],
    "rank-only-7": [["RJ"], ["BJ"], ["7S", "7H", "7D", "7C"]],
    "jokers-only": [["RJ"], ["BJ"]],
}


@pytest.mark.parametrize(("trump", "expected", "n_trumps"), CONTEXTS, ids=IDS)
def test_full_order_of_one_deck(trump, expected, n_trumps):
    assert len(expected) == 54 and len(set(expected)) == 54
    for seed in range(3):
        assert strs(trump.sorted_cards(shuffled_deck(seed))) == expected
    assert strs(trump.sorted_cards([Card.parse(c) for c in reversed(expected)])) == expected
    assert sum(trump.is_trump(c) for c in expected) == n_trumps
    assert all(trump.is_trump(c) for c in expected[:n_trumps])
    assert not any(trump.is_trump(c) for c in expected[n_trumps:])


@pytest.mark.parametrize(("trump", "expected", "n_trumps"), CONTEXTS, ids=IDS)
def test_sorted_cards_keeps_duplicates(trump, expected, n_trumps):
    two_decks = [str(c) for c in full_deck(2)]
    random.Random(7).shuffle(two_decks)
    assert strs(trump.sorted_cards(two_decks)) == [c for c in expected for _ in range(2)]


@pytest.mark.parametrize("name", IDS)
def test_trump_order_strict_between_groups_and_ties_within(name):
    trump = dict(zip(IDS, [c[0] for c in CONTEXTS], strict=True))[name]
    groups = TRUMP_GROUPS[name]
    for hi_group, lo_group in zip(groups, groups[1:], strict=False):
        for hi in hi_group:
            for lo in lo_group:
                assert trick_winner([lo, hi], trump) == 1, (lo, hi)
                assert trick_winner([hi, lo], trump) == 0, (hi, lo)
    for group in groups:
        for a in group:
            for b in group:
                # equal cards: the first played wins
                assert trick_winner([a, b], trump) == 0, (a, b)
                assert trick_winner(["3D", a, b], trump) == 1


@pytest.mark.parametrize(("trump", "suit", "without"), [
    (Trump("7", "C"), "S", "7"), (Trump("7", "C"), "D", "7"), (Trump("2", "H"), "C", "2"),
    (Trump("7", None), "C", "7"), (Trump(None, None), "H", None), (Trump(None, None), "S", None),
])
def test_plain_suit_order(trump, suit, without):
    ranks = plain(suit, without)
    for hi, lo in zip(ranks, ranks[1:], strict=False):
        assert trick_winner([lo, hi], trump) == 1
        assert trick_winner([hi, lo], trump) == 0
    assert trick_winner([ranks[0], ranks[0]], trump) == 0


@pytest.mark.parametrize(("trump", "card", "esuit"), [
    (Trump("7", "C"), "7H", "trump"), (Trump("7", "C"), "7C", "trump"),
    (Trump("7", "C"), "7S", "trump"), (Trump("7", "C"), "AC", "trump"),
    (Trump("7", "C"), "2C", "trump"), (Trump("7", "C"), "BJ", "trump"),
    (Trump("7", "C"), "RJ", "trump"), (Trump("7", "C"), "8S", "S"),
    (Trump("7", "C"), "AH", "H"), (Trump("7", "C"), "AD", "D"),
    (Trump("2", "H"), "2S", "trump"), (Trump("2", "H"), "3H", "trump"),
    (Trump("2", "H"), "3S", "S"), (Trump("2", "H"), "AC", "C"),
    (Trump("7", None), "7H", "trump"), (Trump("7", None), "7C", "trump"),
    (Trump("7", None), "AC", "C"), (Trump("7", None), "BJ", "trump"),
    (Trump("7", None), "8H", "H"),
    (Trump(None, None), "7H", "H"), (Trump(None, None), "2C", "C"),
    (Trump(None, None), "AS", "S"), (Trump(None, None), "RJ", "trump"),
    (Trump(None, None), "BJ", "trump"),
    (Trump("A", "S"), "AH", "trump"), (Trump("A", "S"), "KS", "trump"),
    (Trump("A", "S"), "KH", "H"),
])
def test_effective_suit(trump, card, esuit):
    assert trump.effective_suit(card) == esuit
    assert trump.effective_suit(Card.parse(card)) == esuit
    assert trump.effective_suit(card.lower()) == esuit
    assert trump.is_trump(card) is (esuit == "trump")


def test_seed_001_order_head_exact():
    t = Trump(rank="7", suit="C")
    assert strs(t.sorted_cards("7H 7C AC RJ 2C BJ 8S")) == ["RJ", "BJ", "7C", "7H", "AC", "2C",
                                                             "8S"]
    assert strs(t.sorted_cards("8S 6S 7S AD 2S")) == ["7S", "8S", "6S", "2S", "AD"]


def test_trump_suit_rank_card_beats_other_rank_cards_but_they_beat_trump_ace():
    t = Trump("7", "C")
    assert trick_winner(["7D", "AC"], t) == 0
    assert trick_winner(["AC", "7D"], t) == 1
    assert trick_winner(["KD", "7H", "7C"], t) == 2
    assert trick_winner(["KD", "7S", "7H"], t) == 1          # equal rank cards: the first
    assert trick_winner(["7C", "BJ", "RJ"], t) == 2


def test_rank_only_context():
    t = Trump("7", None)
    assert trick_winner(["7S", "7C"], t) == 0                # all rank cards are equal
    assert trick_winner(["AC", "7C"], t) == 1                # 7C is trump, AC plain
    assert trick_winner(["AC", "2C"], t) == 0
    assert trick_winner(["7S", "BJ"], t) == 1


def test_jokers_only_context_sevens_are_plain():
    t = Trump(None, None)
    assert trick_winner(["7S", "AS"], t) == 1                # 7S is a plain spade
    assert trick_winner(["8S", "7S"], t) == 0
    assert trick_winner(["AS", "2H"], t) == 0                # an off-suit discard never wins
    assert trick_winner(["AS", "BJ"], t) == 1
    assert trick_winner(["BJ", "RJ"], t) == 1
    assert str(t) == "jokers only"


def test_trump_str():
    assert str(Trump("7", "C")) == "rank 7, suit C"
    assert str(Trump("7", None)) == "rank 7, no suit"


@pytest.mark.parametrize(("rank", "suit"), [("1", "C"), ("7", "X"), (None, "C"), ("BJ", None),
                                            ("T", "S")])
def test_invalid_trump(rank, suit):
    with pytest.raises(ValueError):
        Trump(rank, suit)


@pytest.mark.parametrize("trump", [Trump("7", "C"), Trump("2", None), Trump(None, None)])
def test_trump_data_round_trip(trump):
    data = trump.to_data()
    assert data == [trump.rank, trump.suit]
    assert Trump.from_data(data) == trump
