"""Lead formats: single, pair, tractor, throw, and the canonical decomposition."""

import random

import pytest

from tractor import FormatError, Trump, classify
from tractor.cards import parse_cards

T2H = Trump("2", "H")
T7C = Trump("7", "C")
TKH = Trump("K", "H")
TAS = Trump("A", "S")
T7 = Trump("7", None)
TJOKERS = Trump(None, None)


def comps(fmt):
    return [str(c) for c in fmt.components]


@pytest.mark.parametrize(("cards", "trump", "kind", "length", "pairs", "suit"), [
    ("KS", T2H, "single", 0, 0, "S"),
    ("KS KS", T2H, "pair", 1, 1, "S"),
    ("KS KS QS QS", T2H, "tractor", 2, 2, "S"),
    ("QS QS KS KS JS JS", T2H, "tractor", 3, 3, "S"),
    ("AS KS", T2H, "throw", 2, 0, "S"),
    ("AS AS KS", T2H, "throw", 3, 1, "S"),
    ("AS AS QS QS", T2H, "throw", 4, 2, "S"),               # K between: not consecutive
    ("3H", T2H, "single", 0, 0, "trump"),
    ("2S", T2H, "single", 0, 0, "trump"),
    ("BJ", T2H, "single", 0, 0, "trump"),
    ("2S 2S", T2H, "pair", 1, 1, "trump"),
    ("BJ BJ RJ RJ", T2H, "tractor", 2, 2, "trump"),
    ("2H 2H BJ BJ", T2H, "tractor", 2, 2, "trump"),
    ("AH AH 2S 2S", T2H, "tractor", 2, 2, "trump"),
    ("2S 2S 2H 2H", T2H, "tractor", 2, 2, "trump"),
    ("AH AH 2H 2H", T2H, "throw", 4, 2, "trump"),           # off-suit 2s sit between
    ("2S 2S BJ BJ", T2H, "throw", 4, 2, "trump"),           # 2H sits between
    ("AH AH 2S 2S 2H 2H BJ BJ", T2H, "tractor", 4, 4, "trump"),
    ("6S 6S 8S 8S", T7C, "tractor", 2, 2, "S"),             # across the removed rank
    ("6C 6C 8C 8C", T7C, "tractor", 2, 2, "trump"),
    ("8D 8D 6D 6D 5D 5D", T7C, "tractor", 3, 3, "D"),
    ("AC AC 7S 7S", T7C, "tractor", 2, 2, "trump"),
    ("7D 7D 7C 7C", T7C, "tractor", 2, 2, "trump"),
    ("7H 7H 7C 7C", T7C, "tractor", 2, 2, "trump"),
    ("7C 7C BJ BJ", T7C, "tractor", 2, 2, "trump"),
    ("KC KC AC AC 7D 7D 7C 7C BJ BJ RJ RJ", T7C, "tractor", 6, 6, "trump"),
    ("7C 7C RJ RJ", T7C, "throw", 4, 2, "trump"),           # BJ between
    ("KC KC 7D 7D", T7C, "throw", 4, 2, "trump"),           # AC between
    ("7S 7S 7H 7H", T7C, "throw", 4, 2, "trump"),           # same level: not consecutive
    ("7S 7H", T7C, "throw", 2, 0, "trump"),                 # equal rank, not identical
    ("7S 7S", T7C, "pair", 1, 1, "trump"),
    ("7H AC", T7C, "throw", 2, 0, "trump"),
    ("AS AS QS QS", TKH, "tractor", 2, 2, "S"),             # K removed
    ("AH AH QH QH", TKH, "tractor", 2, 2, "trump"),
    ("KS KS AH AH", TAS, "tractor", 2, 2, "trump"),         # trump K is top below the rank
    ("KH KH QH QH", TAS, "tractor", 2, 2, "H"),
    ("7S 7S 7H 7H", T7, "throw", 4, 2, "trump"),            # rank only: rank cards are equal
    ("AS AS KS KS", T7, "tractor", 2, 2, "S"),
    ("6S 6S 8S 8S", T7, "tractor", 2, 2, "S"),
    ("7S 7S 8S 8S", TJOKERS, "tractor", 2, 2, "S"),         # jokers only: 7s are plain
    ("6S 6S 8S 8S", TJOKERS, "throw", 4, 2, "S"),
    ("2H 2H 3H 3H", TJOKERS, "tractor", 2, 2, "H"),
])
def test_classify_kinds(cards, trump, kind, length, pairs, suit):
    fmt = classify(cards, trump)
    assert fmt.kind == kind
    assert fmt.length == length
    assert fmt.pairs == pairs
    assert fmt.suit == suit
    assert fmt.size == len(parse_cards(cards))
    assert sum(len(c.faces) for c in fmt.components) == fmt.size
    # the order the cards are given in does not change the shape
    shuffled = parse_cards(cards)
    random.Random(3).shuffle(shuffled)
    again = classify(shuffled, trump)
    assert (again.kind, again.length, again.pairs) == (kind, length, pairs)


@pytest.mark.parametrize(("cards", "trump"), [
    ("AS AH", T2H), ("AS 2S", T2H), ("KD 3H", T2H), ("BJ AS", T2H), ("7H AH", T7C),
    ("AS 7S", T7C), ("AC 7H AD", T7C), ("7S AS", T7), ("BJ 2H", TJOKERS),
])
def test_not_one_suit_raises_format_error(cards, trump):
    with pytest.raises(FormatError, match="are not all of one suit"):
        classify(cards, trump)
    with pytest.raises(ValueError):
        classify(cards, trump)


def test_format_error_message_and_empty():
    assert issubclass(FormatError, ValueError)
    with pytest.raises(FormatError) as info:
        classify("AS AH", T2H)
    assert str(info.value) == "♠A ♥A are not all of one suit (trumps count as one suit)"
    with pytest.raises(FormatError, match="no cards"):
        classify("", T2H)
    with pytest.raises(FormatError):
        classify([], T2H)


def test_identical_pair_versus_equal_rank_cards():
    pair = classify("7S 7S", T7C)
    assert pair.kind == "pair" and comps(pair) == ["pair ♠7 ♠7"]
    two = classify("7S 7H", T7C)
    assert two.kind == "throw" and two.pairs == 0
    assert comps(two) == ["single ♠7", "single ♥7"]
    assert classify("9D 9D", T2H).kind == "pair"
    assert classify("9D 9C", Trump("9", "S")).kind == "throw"
    with pytest.raises(FormatError):
        classify("9D 9C", T2H)
    assert comps(classify("2S 2D", T2H)) == ["single ♠2", "single ♦2"]


# --- tractor options -------------------------------------------------------------------------

def test_tractor_across_rank_option():
    assert classify("6S 6S 8S 8S", T7C).kind == "tractor"
    off = classify("6S 6S 8S 8S", T7C, across_rank=False)
    assert off.kind == "throw"
    assert comps(off) == ["pair ♠8 ♠8", "pair ♠6 ♠6"]
    assert classify("6C 6C 8C 8C", T7C, across_rank=False).kind == "throw"
    assert classify("8S 8S 9S 9S", T7C, across_rank=False).kind == "tractor"
    # the trump chain is the other option
    assert classify("AC AC 7D 7D", T7C, across_rank=False).kind == "tractor"
    # rank A removed: K stays the top of the trump suit and still meets the rank cards
    assert classify("KS KS AH AH", TAS, across_rank=False).kind == "tractor"


TRUMP_CHAIN = "AC AC 7H 7H 7C 7C BJ BJ RJ RJ"


def test_trump_chain_is_one_tractor_of_five():
    fmt = classify(TRUMP_CHAIN, T7C)
    assert fmt.kind == "tractor"
    assert fmt.length == 5
    assert fmt.suit == "trump"
    assert fmt.tractor_lengths == (5,)
    assert comps(fmt) == ["tractor RJ RJ BJ BJ ♣7 ♣7 ♥7 ♥7 ♣A ♣A"]
    assert [str(c) for c in fmt.components[0].cards] == [
        "RJ", "RJ", "BJ", "BJ", "7C", "7C", "7H", "7H", "AC", "AC"]


def test_trump_chain_without_rank_and_jokers_option():
    fmt = classify(TRUMP_CHAIN, T7C, rank_and_jokers=False)
    assert fmt.kind == "throw"
    assert fmt.pairs == 5
    assert fmt.tractor_lengths == ()
    assert comps(fmt) == ["pair RJ RJ", "pair BJ BJ", "pair ♣7 ♣7", "pair ♥7 ♥7", "pair ♣A ♣A"]
    for cards in ("BJ BJ RJ RJ", "AC AC 7H 7H", "7H 7H 7C 7C", "7C 7C BJ BJ"):
        assert classify(cards, T7C, rank_and_jokers=False).kind == "throw", cards
    # ordinary trump-suit tractors are unaffected, also across the rank
    assert classify("KC KC AC AC", T7C, rank_and_jokers=False).kind == "tractor"
    assert classify("6C 6C 8C 8C", T7C, rank_and_jokers=False).kind == "tractor"
    assert classify("BJ BJ RJ RJ", TJOKERS, rank_and_jokers=False).kind == "throw"


def test_two_off_suit_rank_pairs_are_not_a_tractor():
    fmt = classify("7S 7S 7H 7H", T7C)
    assert fmt.kind == "throw"
    assert fmt.tractor_lengths == ()
    assert comps(fmt) == ["pair ♠7 ♠7", "pair ♥7 ♥7"]
    # but either one chains with the trump-suit rank pair
    assert classify("7S 7S 7C 7C", T7C).kind == "tractor"


# --- canonical decomposition -----------------------------------------------------------------

@pytest.mark.parametrize(("cards", "trump", "expected"), [
    ("AS AS KS KS QS 9S", T2H, ["tractor ♠A ♠A ♠K ♠K", "single ♠Q", "single ♠9"]),
    ("3S AS AS KS KS 10S 10S 9S 9S 8S 8S", T2H,
     ["tractor ♠10 ♠10 ♠9 ♠9 ♠8 ♠8", "tractor ♠A ♠A ♠K ♠K", "single ♠3"]),
    ("4S 4S 9S 9S 8S 8S AS AS KS KS", T2H,
     ["tractor ♠A ♠A ♠K ♠K", "tractor ♠9 ♠9 ♠8 ♠8", "pair ♠4 ♠4"]),
    ("3S 5S AS AS QS QS", T2H, ["pair ♠A ♠A", "pair ♠Q ♠Q", "single ♠5", "single ♠3"]),
    ("AS KS QS", T2H, ["single ♠A", "single ♠K", "single ♠Q"]),
    ("4S 8S 8S 6S 6S 5S 5S", T7C, ["tractor ♠8 ♠8 ♠6 ♠6 ♠5 ♠5", "single ♠4"]),
    ("RJ 3C 7C 7C 7H 7H", T7C, ["tractor ♣7 ♣7 ♥7 ♥7", "single RJ", "single ♣3"]),
    ("2S 2S 3H 3H 4H 4H AH RJ", T2H,
     ["tractor ♥4 ♥4 ♥3 ♥3", "pair ♠2 ♠2", "single RJ", "single ♥A"]),
    ("QD QD JD JD 9D 9D 8D 8D 7D 7D", T2H,
     ["tractor ♦9 ♦9 ♦8 ♦8 ♦7 ♦7", "tractor ♦Q ♦Q ♦J ♦J"]),
])
def test_canonical_decomposition(cards, trump, expected):
    fmt = classify(cards, trump)
    assert comps(fmt) == expected
    assert fmt.kind == ("throw" if len(expected) > 1 else expected[0].split()[0])
    assert classify(list(reversed(parse_cards(cards))), trump) == fmt


def test_component_fields():
    fmt = classify("AS AS KS KS QS", T2H)
    tractor, single = fmt.components
    assert (tractor.kind, tractor.pairs, len(tractor.faces)) == ("tractor", 2, 4)
    assert [str(c) for c in tractor.cards] == ["AS", "AS", "KS", "KS"]
    assert (single.kind, single.pairs, [str(c) for c in single.cards]) == ("single", 0, ["QS"])
    assert tractor.top > single.top


@pytest.mark.parametrize(("cards", "trump", "text"), [
    ("KS", T7C, "a single ♠"),
    ("KS KS", T7C, "a pair of ♠"),
    ("BJ BJ RJ RJ", T2H, "a tractor of 2 pairs of trumps"),
    ("AS AS KS KS QS 9S", T2H, "a throw of ♠ (tractor of 2, single, single)"),
    ("AD AD QD", T2H, "a throw of ♦ (pair, single)"),
])
def test_describe(cards, trump, text):
    assert classify(cards, trump).describe() == text


# --- three or more decks ---------------------------------------------------------------------

@pytest.mark.parametrize(("cards", "trump", "expected", "pairs"), [
    ("AS AS AS", T2H, ["pair ♠A ♠A", "single ♠A"], 1),
    ("AS AS AS AS", T2H, ["pair ♠A ♠A", "pair ♠A ♠A"], 2),
    ("BJ BJ BJ BJ", T2H, ["pair BJ BJ", "pair BJ BJ"], 2),
    ("2S 2S 2S", T2H, ["pair ♠2 ♠2", "single ♠2"], 1),
    ("AS AS AS KS KS KS", T2H, ["tractor ♠A ♠A ♠K ♠K", "single ♠A", "single ♠K"], 2),
    ("AS AS AS AS KS KS KS KS", T2H, ["tractor ♠A ♠A ♠K ♠K", "tractor ♠A ♠A ♠K ♠K"], 4),
    ("AS AS AS AS KS KS", T2H, ["tractor ♠A ♠A ♠K ♠K", "pair ♠A ♠A"], 3),
])
def test_three_and_four_deck_shapes(cards, trump, expected, pairs):
    fmt = classify(cards, trump)
    assert fmt.kind == "throw"
    assert comps(fmt) == expected
    assert fmt.pairs == pairs


def test_four_identical_cards_are_not_a_tractor():
    fmt = classify("AS AS AS AS", T2H)
    assert fmt.kind == "throw"
    assert fmt.tractor_lengths == ()
    assert fmt.length == 4


def test_decomposition_does_not_depend_on_card_order():
    a = classify("AC AC 7S 7S 7H 7H 7C 7C", T7C)
    b = classify("7C 7C 7H 7H 7S 7S AC AC", T7C)
    assert comps(a) == comps(b)
    assert a == b
