"""Who wins a trick: singles, pairs, tractors and throws."""

import pytest

from tractor import Card, Trump, trick_winner
from tractor.cards import parse_cards, to_faces
from tractor.trick import winner_of

T2H = Trump("2", "H")
T7C = Trump("7", "C")
T7 = Trump("7", None)
TJOKERS = Trump(None, None)


def check(plays, trump, expected):
    assert trick_winner(plays, trump) == expected
    # the same trick given as Card values and as faces
    assert trick_winner([parse_cards(p) for p in plays], trump) == expected
    assert winner_of([to_faces(p) for p in plays], trump.ladder()) == expected


# --- singles ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("plays", "trump", "winner"), [
    (["AS", "AS"], T2H, 0),                                  # ties to the first played
    (["KS", "AS", "AS"], T2H, 1),
    (["KS", "AS", "3H", "AS"], T2H, 2),                      # a trump beats the plain lead
    (["KS", "QS", "JS", "10S"], T2H, 0),
    (["3S", "4S", "5S", "AD"], T2H, 2),                      # off-suit AD never wins
    (["3S", "AD", "AC", "KC"], T2H, 0),
    (["KS", "2S"], T2H, 1),                                  # 2S is a trump (rank)
    (["KD", "7S", "7H"], T7C, 1),                            # equal rank cards: first
    (["KD", "7H", "7S", "7D"], T7C, 1),
    (["7S", "7H"], T7C, 0),
    (["KD", "7H", "7C"], T7C, 2),
    (["KD", "AC", "7D"], T7C, 2),
    (["KD", "2C", "AD"], T7C, 1),                            # 2C is a club, so a trump
    (["AS", "BJ", "RJ", "RJ"], T2H, 2),
    (["3H", "AS", "AD", "AC"], T2H, 0),                      # trump lead, plain plays lose
    (["3H", "4H", "2C", "2H"], T2H, 3),
    (["7S", "8S"], TJOKERS, 1),                              # jokers only: 7 is plain
    (["AS", "2H"], TJOKERS, 0),
    (["AS", "7C"], T7, 1),                                   # rank only: 7C trumps AS
    (["7C", "7S", "BJ"], T7, 2),
])
def test_single_lead(plays, trump, winner):
    check(plays, trump, winner)


def test_single_trick_with_copies():
    a0, a1 = Card.parse("AS"), Card.parse("AS", copy=1)
    assert trick_winner([[Card.parse("KS")], [a1], [a0]], T2H) == 1
    assert trick_winner([[a1], [a0]], T2H) == 0


# --- pairs -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("plays", "trump", "winner"), [
    (["KS KS", "AS AS"], T2H, 1),
    (["KS KS", "AS QS"], T2H, 0),                            # not a pair
    (["KS KS", "QS QS", "JS JS"], T2H, 0),                   # lower pairs
    (["KS KS", "3H 3H"], T2H, 1),                            # trump pair
    (["KS KS", "3H 4H"], T2H, 0),                            # two trumps, not a pair
    (["KS KS", "AD AD"], T2H, 0),                            # off-suit pair
    (["KS KS", "AS AS", "3H 3H", "4H 4H"], T2H, 3),
    (["KS KS", "3H 3H", "BJ BJ", "AH AH"], T2H, 2),
    (["KS KS", "2S 2S", "2D 2D"], T2H, 1),                   # equal rank pairs: first
    (["KS KS", "2S 2D", "3H 3H"], T2H, 2),                   # 2S 2D is not a pair
    (["3H 3H", "AS AS"], T2H, 0),                            # trump lead
    (["3H 3H", "4H 4H", "2S 2S", "2H 2H"], T2H, 3),
    (["7S 7S", "7H 7H"], T7C, 0),
    (["7S 7S", "7C 7C"], T7C, 1),
    (["6S 6S", "7S 7S"], T7C, 1),
    (["AS AS", "AS AS"], T2H, 0),                            # three decks: identical pairs
    (["KS KS", "KS KS", "AS AS"], T2H, 2),                   # three decks
])
def test_pair_lead(plays, trump, winner):
    check(plays, trump, winner)


# --- tractors --------------------------------------------------------------------------------

@pytest.mark.parametrize(("plays", "trump", "winner"), [
    (["QS QS JS JS", "AS AS KS KS"], T2H, 1),
    (["QS QS JS JS", "AS AS KS QS"], T2H, 0),                # one pair only
    (["QS QS JS JS", "AS AS 9S 9S"], T2H, 0),                # two pairs, not a tractor
    (["QS QS JS JS", "3H 3H 4H 4H"], T2H, 1),                # trump tractor
    (["QS QS JS JS", "3H 3H 5H 5H"], T2H, 0),                # trump pairs, not a tractor
    (["QS QS JS JS", "AH AH 2S 2S"], T2H, 1),                # trump chain over the rank
    (["QS QS JS JS", "2S 2S 2D 2D"], T2H, 0),                # off-suit rank pairs: no tractor
    (["QS QS JS JS", "AD AD KD KD"], T2H, 0),                # off-suit tractor
    (["QS QS JS JS", "3H 3H 4H 4H", "BJ BJ RJ RJ"], T2H, 2),
    (["QS QS JS JS", "3H 3H 4H 4H", "3H 3H 4H 4H"], T2H, 1),  # tie: first
    (["QS QS JS JS 10S 10S", "3H 3H 4H 4H 6H 6H"], T2H, 0),
    (["QS QS JS JS 10S 10S", "3H 3H 4H 4H 5H 5H"], T2H, 1),
    (["QS QS JS JS 10S 10S", "AS AS KS KS 9S 9S"], T2H, 0),  # tractor of 2 + pair
    (["5S 5S 4S 4S", "8S 8S 6S 6S"], T7C, 1),                # across the removed 7
    (["5S 5S 4S 4S", "AC AC 7D 7D"], T7C, 1),
    (["AC AC 7D 7D", "7H 7H 7C 7C"], T7C, 1),                # trump lead, higher trumps
    (["7H 7H 7C 7C", "7S 7S 7C 7C"], T7C, 0),                # equal tops: first
    (["BJ BJ RJ RJ", "7H 7H 7C 7C"], T7C, 0),
])
def test_tractor_lead(plays, trump, winner):
    check(plays, trump, winner)


# --- throws ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("plays", "trump", "winner"), [
    (["AS KS KS", "3H 4H 4H"], T2H, 1),                      # ruff with the whole layout
    (["AS KS KS", "3H 4H 5H"], T2H, 0),                      # no pair: does not ruff
    (["AS KS KS", "AS QS QS"], T2H, 0),                      # followers in the suit never win
    (["AS KS KS", "3H 4H 4H", "5H 3H 3H"], T2H, 1),          # highest paired trump
    (["AS KS KS", "3H 3H AH", "4H 4H 5H"], T2H, 2),          # the pair decides, not the A
    (["AS KS KS", "4H 4H 5H", "4H 4H AH"], T2H, 1),          # tie on the pair: first
    (["AS KS KS", "3H 3H BJ", "2S 2S 4H"], T2H, 2),          # rank pair beats 3-3
    (["AS KS KS", "2S 2S 4H", "2D 2D 5H"], T2H, 1),          # equal rank pairs: first
    (["AS KS KS", "3H 4H 4H", "BJ RJ AH"], T2H, 1),          # singles cannot ruff a pair
    (["AS KS KS", "3H 4H 4S"], T2H, 0),                      # mixed suits
    (["AS KS", "3H 4H"], T2H, 1),                            # no pair: highest single trump
    (["AS KS", "3H 4H", "5H 6H"], T2H, 2),
    (["AS KS", "3H 6H", "5H 6H"], T2H, 1),                   # tie: first
    (["AS KS", "2S 2D", "2C 3H"], T2H, 1),                   # equal rank cards tie
    (["AS KS", "2S 3H", "2H 3H"], T2H, 2),
    (["AS AS KS KS 3S", "3H 3H 4H 4H 5H"], T2H, 1),          # tractor + single
    (["AS AS KS KS 3S", "3H 3H 5H 5H 4H"], T2H, 0),          # pairs but no tractor
    (["AS AS KS KS 3S", "3H 3H 4H 4H 5H", "5H 5H 6H 6H 7H"], T2H, 2),
    (["AS AS QS QS", "3H 3H 5H 5H"], T2H, 1),                # two pairs
    (["AS AS QS QS", "3H 3H 5H 6H"], T2H, 0),                # only one pair
    (["AH KH", "BJ RJ"], T2H, 0),                            # a trump throw always stands
    (["AH KH KH", "BJ RJ RJ"], T2H, 0),
])
def test_throw_lead(plays, trump, winner):
    check(plays, trump, winner)


def test_lead_alone_wins():
    assert trick_winner(["AS KS KS"], T2H) == 0
    assert trick_winner(["3S"], T2H) == 0
