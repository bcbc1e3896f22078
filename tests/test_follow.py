"""Following a lead: the obligations, the plain-words reasons, and the follow generators."""

import itertools
import random

import pytest

from tractor import Card, Trump, follow_reason, is_legal_follow
from tractor.cards import format_cards, parse_cards, to_faces
from tractor.follow import follow_error, legal_follows, random_follow
from tractor.formats import classify_faces

T2H = Trump("2", "H")
T7C = Trump("7", "C")
T7 = Trump("7", None)
TJOKERS = Trump(None, None)


def key(cards):
    """A play as a sorted tuple of faces (a multiset)."""
    return tuple(sorted(to_faces(cards)))


def keys(*plays):
    return {key(p) for p in plays}


def generated(hand, lead, trump, mpt=False):
    ladder = trump.ladder()
    fmt = classify_faces(to_faces(lead), ladder)
    plays = [tuple(sorted(p)) for p in legal_follows(to_faces(hand), fmt, ladder, mpt)]
    assert len(plays) == len(set(plays)), "legal_follows yielded a play twice"
    return set(plays)


def brute_force(hand, lead, trump, mpt=False):
    """All sub-multisets of the hand of the lead's size that is_legal_follow accepts."""
    hand_faces = to_faces(hand)
    n = len(to_faces(lead))
    candidates = {tuple(sorted(hand_faces[i] for i in idx))
                  for idx in itertools.combinations(range(len(hand_faces)), n)}
    return {p for p in candidates if is_legal_follow(hand_faces, lead, list(p), trump, mpt)}


# --- singles ---------------------------------------------------------------------------------

def test_single_lead_must_follow_suit():
    hand = "AS 3S KD 2S"              # 2S is a trump (rank 2), not a spade
    assert generated(hand, "KS", T2H) == keys("AS", "3S")
    assert is_legal_follow(hand, "KS", "3S", T2H)
    assert not is_legal_follow(hand, "KS", "KD", T2H)
    assert not is_legal_follow(hand, "KS", "2S", T2H)
    assert follow_reason(hand, "KS", "KD", T2H) == "you must follow ♠ with 1 card: you hold ♠A ♠3"
    assert follow_reason(hand, "KS", "AS", T2H) is None


def test_single_lead_void_plays_anything():
    assert generated("2S KD 4C", "KS", T2H) == keys("2S", "KD", "4C")
    assert is_legal_follow("2S KD 4C", "KS", "4C", T2H)


def test_trump_single_lead_rank_cards_and_jokers_are_trumps():
    hand = "2S KD BJ 5C"
    assert generated(hand, "3H", T2H) == keys("2S", "BJ")
    assert follow_reason(hand, "3H", "KD", T2H) == (
        "you must follow trumps with 1 card: you hold BJ ♠2")
    # jokers only: the 2S is a plain spade, only the joker follows trumps
    assert generated(hand, "RJ", TJOKERS) == keys("BJ")
    # rank only: the 7s are trumps, clubs are not
    assert generated("7D AC 9H", "BJ", T7) == keys("7D")


# --- pairs -----------------------------------------------------------------------------------

def test_readme_reason_example():
    assert follow_reason("9S 9S 4S KD", "AS AS", "9S 4S", T2H) == (
        "you must play a pair of ♠: you hold ♠9 ♠9")
    assert not is_legal_follow("9S 9S 4S KD", "AS AS", "9S 4S", T2H)
    assert is_legal_follow("9S 9S 4S KD", "AS AS", "9S 9S", T2H)


@pytest.mark.parametrize(("hand", "legal"), [
    ("9S 9S 4S KD", ["9S 9S"]),                                   # a pair if held
    ("9S 9S 8S 4S KD", ["9S 9S"]),
    ("9S 4S 3S KD", ["9S 4S", "9S 3S", "4S 3S"]),                 # else two of the suit
    ("4S KD QC", ["4S KD", "4S QC"]),                             # else one + any
    ("KD QC JH", ["KD QC", "KD JH", "QC JH"]),                    # else any two
    ("KD KD QC", ["KD KD", "KD QC"]),                             # no pair owed when void
    ("2S 2S 4S KD", ["4S KD", "4S 2S"]),                          # 2S are trumps
])
def test_pair_lead_plain(hand, legal):
    assert generated(hand, "AS AS", T2H) == keys(*legal)


def test_pair_lead_reasons():
    assert follow_reason("9S 9S 4S KD", "AS AS", "4S KD", T2H) == (
        "you must follow ♠ with 2 cards: you hold ♠9 ♠9 ♠4")
    assert follow_reason("4S KD QC", "AS AS", "KD QC", T2H) == (
        "you must follow ♠ with 1 card: you hold ♠4")


@pytest.mark.parametrize(("hand", "legal"), [
    ("2S 2S BJ 5D 5D", ["2S 2S"]),
    ("BJ BJ 2C AH 5D", ["BJ BJ"]),
    ("2S BJ 5D 5D", ["2S BJ"]),
    ("RJ 5D 5D 6C", ["RJ 5D", "RJ 6C"]),
    ("2C AH KH 5D", ["2C AH", "2C KH", "AH KH"]),
    ("5D 5D 6C", ["5D 5D", "5D 6C"]),
])
def test_trump_pair_lead(hand, legal):
    assert generated(hand, "3H 3H", T2H) == keys(*legal)


def test_trump_pair_lead_reason():
    assert follow_reason("2S 2S BJ 5D", "3H 3H", "2S BJ", T2H) == (
        "you must play a pair of trumps: you hold ♠2 ♠2")
    assert follow_reason("2S BJ 5D", "3H 3H", "2S 5D", T2H) == (
        "you must follow trumps with 2 cards: you hold BJ ♠2")


def test_off_suit_rank_cards_are_not_a_pair():
    # 7S and 7H are trumps of equal order but not identical: no pair is owed
    assert generated("7S 7H 3C KD", "4C 4C", T7C) == keys("7S 7H", "7S 3C", "7H 3C")


# --- tractors --------------------------------------------------------------------------------

TRACTOR = "QS QS JS JS"


@pytest.mark.parametrize(("hand", "legal_free", "legal_must"), [
    # seed 000: as many pairs, not necessarily consecutive
    ("9S 9S 5S 5S 3S KD", ["9S 9S 5S 5S"], ["9S 9S 5S 5S"]),
    ("9S 9S 8S 8S 5S 5S 3S", ["9S 9S 8S 8S", "9S 9S 5S 5S", "8S 8S 5S 5S"], ["9S 9S 8S 8S"]),
    ("9S 9S 5S 4S 3S", ["9S 9S 5S 4S", "9S 9S 5S 3S", "9S 9S 4S 3S"],
     ["9S 9S 5S 4S", "9S 9S 5S 3S", "9S 9S 4S 3S"]),
    ("9S 5S 4S KD KD", ["9S 5S 4S KD"], ["9S 5S 4S KD"]),
    ("AS AS 3D 3D 4C", ["AS AS 3D 3D", "AS AS 3D 4C"], ["AS AS 3D 3D", "AS AS 3D 4C"]),
])
def test_tractor_lead(hand, legal_free, legal_must):
    assert generated(hand, TRACTOR, T2H) == keys(*legal_free)
    assert generated(hand, TRACTOR, T2H, mpt=True) == keys(*legal_must)


def test_tractor_lead_must_play_tractor_reason():
    hand = "9S 9S 8S 8S 5S 5S 3S KD"
    assert follow_reason(hand, TRACTOR, "9S 9S 5S 5S", T2H) is None
    assert follow_reason(hand, TRACTOR, "9S 9S 5S 5S", T2H, must_play_tractor=True) == (
        "you must play a tractor of ♠: you hold ♠9 ♠9 ♠8 ♠8 ♠5 ♠5")
    assert is_legal_follow(hand, TRACTOR, "9S 9S 8S 8S", T2H, must_play_tractor=True)


def test_tractor_lead_pairs_reason():
    hand = "AS AS 5S 5S 3S 3S 4S KD"
    assert follow_reason(hand, "KS KS QS QS", "AS AS 3S 4S", T2H) == (
        "you must play 2 pairs of ♠: you hold ♠A ♠A ♠5 ♠5 ♠3 ♠3")


def test_must_play_tractor_across_rank_and_in_trumps():
    # rank 7: 8-8 6-6 is a tractor; 6-6 4-4 is not
    hand = "8S 8S 6S 6S 4S 4S 2S"
    assert generated(hand, TRACTOR, T7C) == keys("8S 8S 6S 6S", "8S 8S 4S 4S", "6S 6S 4S 4S")
    assert generated(hand, TRACTOR, T7C, mpt=True) == keys("8S 8S 6S 6S")
    # trump tractor lead: A-A then an off-suit 7 pair is a tractor
    hand = "AC AC 7H 7H 3C 3C KD"
    assert generated(hand, "BJ BJ RJ RJ", T7C, mpt=True) == keys("AC AC 7H 7H")
    assert generated(hand, "BJ BJ RJ RJ", T7C) == keys("AC AC 7H 7H", "AC AC 3C 3C",
                                                       "7H 7H 3C 3C")


# --- throws ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("hand", "legal"), [
    ("QS QS 9S 3S 4H", ["QS QS 9S", "QS QS 3S"]),
    ("QS QS JS JS 3S", ["QS QS JS", "QS QS 3S", "JS JS QS", "JS JS 3S"]),
    ("QS QS 3S 4H", ["QS QS 3S"]),
    ("QS 9S 3S 4H", ["QS 9S 3S"]),
    ("QS 3S 4H 5D", ["QS 3S 4H", "QS 3S 5D"]),
    ("4H 5D 5D", ["4H 5D 5D"]),
])
def test_throw_lead_single_and_pair(hand, legal):
    assert generated(hand, "AS KS KS", T2H) == keys(*legal)


def test_throw_lead_with_tractor():
    lead = "AS AS KS KS 9S"
    hand = "8S 8S 7S 7S 5S 5S 3S"
    free = keys("8S 8S 7S 7S 5S", "8S 8S 7S 7S 3S", "8S 8S 5S 5S 7S", "8S 8S 5S 5S 3S",
                "7S 7S 5S 5S 8S", "7S 7S 5S 5S 3S")
    assert generated(hand, lead, T2H) == free
    assert generated(hand, lead, T2H, mpt=True) == keys("8S 8S 7S 7S 5S", "8S 8S 7S 7S 3S")


def test_throw_lead_reason():
    assert follow_reason("QS QS 9S 3S 4H", "AS KS KS", "QS 9S 3S", T2H) == (
        "you must play a pair of ♠: you hold ♠Q ♠Q")
    assert follow_reason("QS QS 9S 3S 4H", "AS KS KS", "QS QS 4H", T2H) == (
        "you must follow ♠ with 3 cards: you hold ♠Q ♠Q ♠9 ♠3")


# --- count and possession --------------------------------------------------------------------

def test_wrong_card_count():
    assert follow_reason("AS KS 3D", "QS", "AS KS", T2H) == "you must play 1 card, not 2"
    assert follow_reason("AS KS QS", "JS JS", "AS", T2H) == "you must play 2 cards, not 1"
    assert follow_reason("AS KS QS", "JS JS", "", T2H) == "you must play 2 cards, not 0"
    assert not is_legal_follow("AS KS 3D", "QS", "AS KS", T2H)


def test_card_not_held():
    assert follow_reason("AS KS", "QS", "3S", T2H) == "you do not hold ♠3"
    assert follow_reason("AS KS 3D", "QS QS", "AS AS", T2H) == "you do not hold ♠A"
    assert follow_reason("AS KS 3D", "QS QS", "BJ RJ", T2H) == "you do not hold BJ RJ"
    assert not is_legal_follow("AS KS", "QS", "3S", T2H)


def test_accepts_card_values_and_faces():
    hand = parse_cards("9S 9S 4S KD")
    assert is_legal_follow(hand, [Card.parse("AS"), Card.parse("AS", copy=1)],
                           [hand[0], hand[1]], T2H)
    assert not is_legal_follow(to_faces(hand), to_faces("AS AS"), to_faces("9S 4S"), T2H)


# --- generators against brute force ----------------------------------------------------------

SCENARIOS = [
    ("AS 3S KD 2S 4C", "KS", T2H),
    ("9S 9S 4S KD QC", "AS AS", T2H),
    ("9S 4S 3S KD KD", "AS AS", T2H),
    ("4S KD QC QC 2H", "AS AS", T2H),
    ("2S 2S BJ 5D 5D 3H", "3H 3H", T2H),
    ("RJ 5D 5D 6C 7C", "4H 4H", T2H),
    ("9S 9S 8S 8S 5S 5S 3S KD", "QS QS JS JS", T2H),
    ("9S 9S 5S 4S 3S KD KD AC", "QS QS JS JS", T2H),
    ("8S 8S 6S 6S 4S 4S 2S 7S", "QS QS JS JS", T7C),
    ("AC AC 7H 7H 7S 7S 3C 3C KD", "BJ BJ RJ RJ", T7C),
    ("QS QS JS JS 3S 4H 5D", "AS KS KS", T2H),
    ("8S 8S 7S 7S 5S 5S 3S KD", "AS AS KS KS 9S", T2H),
    ("7S 7H 7D 3C 3C KD", "4C 4C", T7C),
    ("7S 7S 7H 7H 8D 8D", "BJ", T7),
    ("KD QC JH 10S", "3S 3S", TJOKERS),
    ("AS AS AS 4S 3S KD", "QS QS", T2H),                    # three decks: a triple
]


@pytest.mark.parametrize("mpt", [False, True])
@pytest.mark.parametrize(("hand", "lead", "trump"), SCENARIOS)
def test_legal_follows_equals_brute_force(hand, lead, trump, mpt):
    plays = generated(hand, lead, trump, mpt)
    assert plays
    for p in plays:
        assert is_legal_follow(hand, lead, list(p), trump, mpt), format_cards(p)
    assert plays == brute_force(hand, lead, trump, mpt)


def _random_case(rng):
    trump = rng.choice([T2H, T7C, T7, TJOKERS])
    ladder = trump.ladder()
    deck = list(range(54)) * 2
    esuit = rng.choice(sorted(set(ladder.esuit)))
    pool = sorted({f for f in deck if ladder.esuit[f] == esuit})
    n = rng.randint(1, min(4, len(pool) * 2))
    picks = rng.sample(pool, (n + 1) // 2)
    lead = (picks * 2)[:n] if rng.random() < 0.6 else [rng.choice(pool) for _ in range(n)]
    # at most two copies of a face in the lead (two decks)
    while any(lead.count(f) > 2 for f in lead):
        lead = [rng.choice(pool) for _ in range(n)]
    base = rng.sample(pool, min(3, len(pool)))
    hand = (base * 2)[:rng.randint(0, 6)] + rng.sample(deck, rng.randint(n, 5))
    return trump, lead, hand


def test_legal_follows_equals_brute_force_on_random_small_hands():
    rng = random.Random(20240601)
    for _ in range(250):
        trump, lead, hand = _random_case(rng)
        for mpt in (False, True):
            assert generated(hand, lead, trump, mpt) == brute_force(hand, lead, trump, mpt), (
                trump, format_cards(lead), format_cards(hand), mpt)


@pytest.mark.parametrize("mpt", [False, True])
@pytest.mark.parametrize(("hand", "lead", "trump"), SCENARIOS)
def test_random_follow_is_always_legal(hand, lead, trump, mpt):
    ladder = trump.ladder()
    fmt = classify_faces(to_faces(lead), ladder)
    faces = to_faces(hand)
    legal = generated(hand, lead, trump, mpt)
    seen = set()
    for seed in range(40):
        play = random_follow(faces, fmt, ladder, random.Random(seed), mpt)
        assert tuple(sorted(play)) in legal, format_cards(play)
        assert follow_error(faces, fmt, play, ladder, mpt) is None
        assert random_follow(faces, fmt, ladder, random.Random(seed), mpt) == play
        seen.add(tuple(sorted(play)))
    assert seen <= legal


def test_random_follow_on_random_small_hands():
    rng = random.Random(99)
    for i in range(300):
        trump, lead, hand = _random_case(rng)
        ladder = trump.ladder()
        fmt = classify_faces(lead, ladder)
        for mpt in (False, True):
            play = random_follow(hand, fmt, ladder, random.Random(i), mpt)
            assert len(play) == len(lead)
            assert follow_error(hand, fmt, play, ladder, mpt) is None, (
                trump, format_cards(lead), format_cards(hand), format_cards(play))


def test_random_follow_must_play_tractor_always_picks_the_tractor():
    ladder = T2H.ladder()
    fmt = classify_faces(to_faces(TRACTOR), ladder)
    hand = to_faces("9S 9S 8S 8S 5S 5S 3S KD")
    for seed in range(30):
        play = random_follow(hand, fmt, ladder, random.Random(seed), must_play_tractor=True)
        assert tuple(sorted(play)) == key("9S 9S 8S 8S")
