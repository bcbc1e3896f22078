"""Whether a top-card throw stands, and what a failed throw must lead instead."""

import pytest

from tractor import Card, Trump, resolve_throw
from tractor.cards import to_faces
from tractor.formats import classify_faces
from tractor.trick import failed_components, resolve_throw_faces

T2H = Trump("2", "H")
T7C = Trump("7", "C")


def strs(cards):
    return [str(c) for c in cards]


def resolved(lead, others, trump):
    out = strs(resolve_throw(lead, others, trump))
    faces, fmt = resolve_throw_faces(to_faces(lead), [to_faces(h) for h in others],
                                     trump.ladder())
    assert strs(Card.from_face(f) for f in faces) == out
    assert fmt.size == len(to_faces(lead))
    return out


def test_seed_001_example_stands():
    # After ♦A ♦K ♦K were played, ♦A ♦Q ♦Q may be thrown: no other hand holds the other ♦A,
    # a ♦K, or a pair above ♦Q. 2D is a trump (rank 2) and does not count.
    others = ["JD JD 10D 3S KS", "9D 9D 8D 4C", "2D 2D 7D 5D AC"]
    assert resolved("AD QD QD", others, T2H) == ["AD", "QD", "QD"]


def test_seed_001_example_fails_when_a_higher_pair_is_out():
    assert resolved("AD QD QD", ["JD JD", "KD KD 3C"], T2H) == ["QD", "QD"]


def test_seed_001_example_single_king_does_not_beat_the_pair():
    assert resolved("AD QD QD", ["KD 3D", "JD JD"], T2H) == ["AD", "QD", "QD"]


@pytest.mark.parametrize(("lead", "others", "expected"), [
    # beaten on a single
    ("KS QS QS", ["AS 3D"], ["KS"]),
    ("KS QS QS", ["3D", "4C", "AS"], ["KS"]),
    # equal is not higher
    ("AS QS QS", ["AS JS JS"], ["AS", "QS", "QS"]),
    # beaten on a pair
    ("AS QS QS", ["KS KS 3D", "4C"], ["QS", "QS"]),
    ("AS QS QS", ["KS 3D", "KS 4C"], ["AS", "QS", "QS"]),    # two singles in two hands
    # trumps in other hands never beat a plain throw
    ("AS QS QS", ["3H 3H BJ", "2S 2S"], ["AS", "QS", "QS"]),
    # beaten on a tractor: a higher tractor of the same length
    ("AS 9S 9S 8S 8S", ["JS JS 10S 10S"], ["9S", "9S", "8S", "8S"]),
    ("AS 9S 9S 8S 8S", ["KS KS 3S"], ["AS", "9S", "9S", "8S", "8S"]),       # a pair is no tractor
    ("AS 9S 9S 8S 8S", ["KS KS JS JS"], ["AS", "9S", "9S", "8S", "8S"]),    # not consecutive
    ("AS 9S 9S 8S 8S", ["7S 7S 6S 6S"], ["AS", "9S", "9S", "8S", "8S"]),    # lower tractor
    ("AS 9S 9S 8S 8S 7S 7S", ["KS KS QS QS"], ["AS", "9S", "9S", "8S", "8S", "7S", "7S"]),
    ("AS 9S 9S 8S 8S", ["KS KS QS QS JS JS"], ["9S", "9S", "8S", "8S"]),    # longer contains one
])
def test_throw_beaten_or_standing(lead, others, expected):
    assert resolved(lead, others, T2H) == expected


def test_tractor_across_the_removed_rank_beats_a_throw():
    # rank 7: 8-8 6-6 is a tractor above 5-5 4-4
    assert resolved("AS 5S 5S 4S 4S", ["8S 8S 6S 6S"], T7C) == ["5S", "5S", "4S", "4S"]
    assert resolved("AS 5S 5S 4S 4S", ["8S 8S 3S 3S"], T7C) == ["AS", "5S", "5S", "4S", "4S"]


def test_trump_throws():
    # 2S is a trump above the trump ace: it beats the single AH
    assert resolved("AH KH KH", ["2S 3D"], T2H) == ["AH"]
    assert resolved("AH KH", ["2S"], T2H) == ["KH"]                 # both fail: the lower one
    assert resolved("RJ 7H 7H", ["7S 7S"], T7C) == ["RJ", "7H", "7H"]  # equal rank pair
    assert resolved("RJ 7H 7H", ["7C 7C"], T7C) == ["7H", "7H"]
    assert resolved("RJ 7H 7H", ["BJ BJ 3D"], T7C) == ["7H", "7H"]
    # a plain-suit card does not beat a trump throw
    assert resolved("AH KH KH", ["AS AS", "AD"], T2H) == ["AH", "KH", "KH"]


@pytest.mark.parametrize(("lead", "others", "expected"), [
    # a single, a pair and a tractor all fail: the single goes
    ("KS QS QS 9S 9S 8S 8S", ["AS", "KS KS", "JS JS 10S 10S"], ["KS"]),
    # the pair and the tractor fail: the pair goes
    ("AS QS QS 9S 9S 8S 8S", ["KS KS", "JS JS 10S 10S"], ["QS", "QS"]),
    # only the tractor fails
    ("AS QS QS 9S 9S 8S 8S", ["JS JS 10S 10S"], ["9S", "9S", "8S", "8S"]),
    # several singles fail: the lowest
    ("KS QS JS", ["AS"], ["JS"]),
    ("KS QS JS 4S", ["5S"], ["4S"]),
    # several pairs fail: the lowest
    ("KS KS 10S 10S 4S 4S", ["AS AS"], ["4S", "4S"]),
    ("KS KS 10S 10S 4S 4S", ["JS JS"], ["4S", "4S"]),
    # two tractors fail: the shorter one first
    ("AS 10S 10S 9S 9S 8S 8S 5S 5S 4S 4S", ["KS KS QS QS JS JS"], ["5S", "5S", "4S", "4S"]),
])
def test_forced_component_is_smallest_shape_then_lowest(lead, others, expected):
    assert resolved(lead, others, T2H) == expected


@pytest.mark.parametrize(("lead", "others"), [
    ("3S", ["AS"]),
    ("3S 3S", ["AS AS"]),
    ("3S 3S 4S 4S", ["AS AS KS KS"]),
    ("3H", ["BJ"]),
    ("2S 2S", ["2H 2H"]),
])
def test_non_throw_lead_is_returned_unchanged(lead, others):
    assert resolved(lead, others, T2H) == strs(Card.parse(t) for t in lead.split())


@pytest.mark.parametrize(("lead", "others", "failed"), [
    ("KS KS 10S 10S 4S 4S", ["JS JS"], ["pair ♠10 ♠10", "pair ♠4 ♠4"]),
    ("KS KS 10S 10S 4S 4S", ["AS AS"], ["pair ♠K ♠K", "pair ♠10 ♠10", "pair ♠4 ♠4"]),
    ("KS KS 10S 10S 4S 4S", ["AS QS JS"], []),
    ("KS QS QS 9S 9S 8S 8S", ["AS", "KS KS", "JS JS 10S 10S"],
     ["tractor ♠9 ♠9 ♠8 ♠8", "pair ♠Q ♠Q", "single ♠K"]),
    ("AS 9S 9S 8S 8S", ["JS JS 10S 10S 3S"], ["tractor ♠9 ♠9 ♠8 ♠8"]),
])
def test_failed_components(lead, others, failed):
    ladder = T2H.ladder()
    fmt = classify_faces(to_faces(lead), ladder)
    got = failed_components(fmt, [to_faces(h) for h in others], ladder)
    assert [str(c) for c in got] == failed


def test_no_other_cards_of_the_suit():
    assert resolved("AS KS QS", ["AD", "", "BJ BJ"], T2H) == ["AS", "KS", "QS"]


def test_forced_component_does_not_depend_on_card_order():
    a = resolved("AC AC 7S 7S 7H 7H 7C 7C", ["BJ BJ 3D"], T7C)
    b = resolved("7C 7C 7H 7H 7S 7S AC AC", ["BJ BJ 3D"], T7C)
    assert len(a) == 2
    assert a == b
