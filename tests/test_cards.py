"""Cards (text forms, copies, decks) and the `Rules` value (derived sizes, options)."""

import dataclasses
import json
from collections import Counter

import pytest

from tractor import Card, CardParseError, Rules, RulesError, format_cards, full_deck, parse_cards
from tractor.cards import RANKS, SUIT_SYMBOLS, SUITS, face_of, to_faces

SUITED = [(r, s) for s in SUITS for r in RANKS]


def strs(cards):
    return [str(c) for c in cards]


def text_forms(rank, suit):
    """Every documented text form of a suited card, in upper and lower case."""
    sym = SUIT_SYMBOLS[suit]
    ranks = [rank, "T"] if rank == "10" else [rank]
    out = []
    for r in ranks:
        for rr in dict.fromkeys((r, r.lower())):
            out += [f"{rr}{suit}", f"{rr}{suit.lower()}", f"{sym}{rr}", f"{rr}{sym}"]
    return out


# --- parsing and formatting ------------------------------------------------------------------

@pytest.mark.parametrize(("rank", "suit"), SUITED, ids=[f"{r}{s}" for r, s in SUITED])
def test_every_suited_face_parses_in_every_text_form(rank, suit):
    expected = Card(rank, suit)
    forms = text_forms(rank, suit)
    assert len(forms) >= 4
    for form in forms:
        card = Card.parse(form)
        assert card == expected, form
        assert (card.rank, card.suit) == (rank, suit), form
        assert card.face == face_of(rank, suit)
    assert str(expected) == f"{rank}{suit}"
    assert expected.symbol() == f"{SUIT_SYMBOLS[suit]}{rank}"
    assert not expected.is_joker


@pytest.mark.parametrize(("text", "rank"), [
    ("BJ", "BJ"), ("bj", "BJ"), ("Bj", "BJ"), ("RJ", "RJ"), ("rj", "RJ"), ("rJ", "RJ"),
])
def test_jokers_parse_case_insensitively(text, rank):
    card = Card.parse(text)
    assert card == Card(rank, None)
    assert card.rank == rank and card.suit is None
    assert card.is_joker
    assert str(card) == rank
    assert card.symbol() == rank


@pytest.mark.parametrize(("text", "expected"), [
    ("AS", "AS"), ("10H", "10H"), ("TH", "10H"), ("th", "10H"), ("7c", "7C"), ("♣7", "7C"),
    ("7♣", "7C"), ("♠a", "AS"), ("♦10", "10D"), ("10♦", "10D"), ("T♥", "10H"), ("qd", "QD"),
    ("  KS  ", "KS"), ("♥\ufe0fA", "AH"),
])
def test_individual_text_forms(text, expected):
    assert str(Card.parse(text)) == expected


def test_all_54_faces_round_trip_through_str_and_symbol():
    for face in range(54):
        card = Card.from_face(face)
        assert card.face == face
        assert Card.parse(str(card)).face == face
        assert Card.parse(card.symbol()).face == face
        assert Card.parse(str(card).lower()).face == face
    deck = [Card.from_face(f) for f in range(54)]
    assert parse_cards(format_cards(deck)) == deck
    assert parse_cards(format_cards(deck, symbols=True)) == deck
    assert parse_cards(format_cards(range(54))) == deck
    assert to_faces(format_cards(deck)) == list(range(54))


def test_format_cards_forms():
    cards = parse_cards("AS 10h QD BJ RJ 7c")
    assert format_cards(cards) == "AS 10H QD BJ RJ 7C"
    assert format_cards(cards, symbols=True) == "♠A ♥10 ♦Q BJ RJ ♣7"
    assert format_cards([12, 52]) == "AS BJ"
    assert format_cards([]) == ""


@pytest.mark.parametrize(("text", "expected"), [
    ("AS 10h, ♣7,7♣  BJ,RJ", ["AS", "10H", "7C", "7C", "BJ", "RJ"]),
    ("AS,AS  10H", ["AS", "AS", "10H"]),
    ("as,ks,qs", ["AS", "KS", "QS"]),
    (" , AS ,, TH ,", ["AS", "10H"]),
    ("2d\n3c\t4h", ["2D", "3C", "4H"]),
    ("", []),
    ("  ,  ", []),
])
def test_parse_lists_with_spaces_and_commas(text, expected):
    assert strs(parse_cards(text)) == expected


BAD_TOKENS = ["XX", "1S", "11H", "0S", "1OH", "AX", "S", "10", "BJS", "JB", "JJ", "♠", "A♠♠",
              "AS1", "ZZ", "♣1", "BJ♠"]


@pytest.mark.parametrize("token", BAD_TOKENS)
def test_bad_token_raises_card_parse_error_naming_it(token):
    with pytest.raises(CardParseError) as info:
        Card.parse(token)
    assert info.value.token == token
    assert str(info.value) == f"not a card: {token!r}"


@pytest.mark.parametrize("token", BAD_TOKENS)
def test_bad_token_in_a_list_is_named(token):
    with pytest.raises(CardParseError) as info:
        parse_cards(f"AS, {token} KS")
    assert info.value.token == token
    assert repr(token) in str(info.value)


def test_card_parse_error_is_a_value_error():
    assert issubclass(CardParseError, ValueError)
    with pytest.raises(ValueError, match="not a card: 'xx'"):
        parse_cards("AS xx")


@pytest.mark.parametrize(("rank", "suit"), [("BJ", "S"), ("RJ", "H"), ("1", "S"), ("A", None),
                                            ("A", "X"), ("T", "S"), ("", "")])
def test_card_constructor_rejects_bad_values(rank, suit):
    with pytest.raises(CardParseError):
        Card(rank, suit)


def test_joker_with_suit_message():
    with pytest.raises(CardParseError) as info:
        Card("BJ", "S")
    assert str(info.value) == "not a card: 'BJS' (jokers have no suit)"


def test_cards_are_immutable():
    card = Card.parse("AS")
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.rank = "K"  # type: ignore[misc]


def test_distinct_faces_differ():
    assert Card.parse("AS") != Card.parse("AH")
    assert Card.parse("AS") != Card.parse("KS")
    assert Card.parse("BJ") != Card.parse("RJ")
    assert len({Card.from_face(f) for f in range(54)}) == 54


# --- physical copies -------------------------------------------------------------------------

def test_physical_copies_compare_and_hash_equal_but_are_distinct_objects():
    a = Card.parse("AS")
    b = Card.parse("AS", copy=1)
    assert a == b
    assert hash(a) == hash(b)
    assert a is not b
    assert (a.copy, b.copy) == (0, 1)
    assert len({a, b}) == 1
    assert Counter([a, b])[Card("A", "S")] == 2
    assert b != Card.parse("AH", copy=1)


def test_from_face_copies():
    shared = Card.from_face(12)
    assert shared is Card.from_face(12)          # copy 0 is a shared instance
    other = Card.from_face(12, 1)
    assert other == shared and other is not shared
    assert other.copy == 1 and str(other) == "AS"
    joker = Card.from_face(53, 2)
    assert joker == Card.parse("RJ") and joker.copy == 2


# --- points and decks ------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "points"), [
    ("KS", 10), ("10H", 10), ("5D", 5), ("KC", 10), ("AS", 0), ("QH", 0), ("JD", 0), ("9C", 0),
    ("4S", 0), ("2H", 0), ("BJ", 0), ("RJ", 0),
])
def test_card_points(text, points):
    assert Card.parse(text).points == points


@pytest.mark.parametrize(("decks", "size", "points"), [(1, 54, 100), (2, 108, 200), (3, 162, 300)])
def test_full_deck(decks, size, points):
    deck = full_deck(decks)
    assert len(deck) == size
    assert sum(c.points for c in deck) == points
    faces = Counter(c.face for c in deck)
    assert set(faces) == set(range(54))
    assert set(faces.values()) == {decks}
    copies: dict[int, set[int]] = {}
    for c in deck:
        copies.setdefault(c.face, set()).add(c.copy)
    assert all(v == set(range(decks)) for v in copies.values())
    assert len({id(c) for c in deck}) == size            # every physical card its own object
    assert len({(c.face, c.copy) for c in deck}) == size
    assert sum(c.is_joker for c in deck) == 2 * decks


def test_full_deck_default_is_two_decks():
    assert len(full_deck()) == 108


# --- Rules -----------------------------------------------------------------------------------

def test_rules_defaults():
    r = Rules()
    assert (r.decks, r.players, r.declaration, r.talon_multiplier) == (2, 4, "reveal", "seed")
    assert (r.start_level, r.win, r.throw_penalty) == ("2", "past_ace", 10)
    assert (r.tractor_across_rank, r.rank_and_jokers_in_tractors, r.must_play_tractor) == (
        True, True, False)
    assert (r.hand_size, r.talon_size, r.total_cards, r.total_points, r.level_step) == (
        25, 8, 108, 200, 40)
    assert r.teams == 2


@pytest.mark.parametrize(("players", "decks", "hand", "talon"), [
    (4, 2, 25, 8), (6, 3, 26, 6), (8, 4, 26, 8), (6, 2, 17, 6), (8, 2, 12, 12), (4, 1, 12, 6),
    (4, 3, 39, 6),
])
def test_rules_derived_sizes(players, decks, hand, talon):
    r = Rules(players=players, decks=decks)
    assert (r.hand_size, r.talon_size) == (hand, talon)
    assert hand * players + talon == 54 * decks
    assert r.total_points == 100 * decks
    assert r.level_step == 20 * decks


def test_rules_talon_override_and_level_step():
    assert (Rules(talon_cards=12).hand_size, Rules(talon_cards=12).talon_size) == (24, 12)
    assert (Rules(talon_cards=0).hand_size, Rules(talon_cards=0).talon_size) == (27, 0)
    assert Rules(decks=3).level_step == 60
    assert Rules(level_step_points=30).level_step == 30


@pytest.mark.parametrize("kwargs", [
    {"decks": 0}, {"decks": -1}, {"players": 2}, {"players": 3}, {"players": 5}, {"players": 7},
    {"players": 0}, {"declaration": "bidding"}, {"talon_multiplier": "triple"},
    {"win": "first"}, {"start_level": "1"}, {"start_level": "BJ"}, {"start_level": "T"},
    {"throw_penalty": -1}, {"level_step_points": 0}, {"level_step_points": -5},
    {"level_step_points": 7}, {"talon_cards": 7}, {"talon_cards": -1}, {"talon_cards": 108},
    {"talon_cards": 200}, {"decks": 1, "players": 100},
], ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_invalid_rules_raise_rules_error(kwargs):
    with pytest.raises(RulesError):
        Rules(**kwargs)


def test_rules_error_is_a_value_error():
    assert issubclass(RulesError, ValueError)


def test_rules_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Rules().decks = 3  # type: ignore[misc]


def test_rules_to_data_exact():
    assert Rules().to_data() == {
        "decks": 2, "players": 4, "declaration": "reveal", "talon_multiplier": "seed",
        "start_level": "2", "win": "past_ace", "tractor_across_rank": True,
        "rank_and_jokers_in_tractors": True, "must_play_tractor": False, "throw_penalty": 10,
        "level_step_points": None, "talon_cards": None, "throw_ruff": "highest_pair",
        "throw_forced": "lowest",
    }


@pytest.mark.parametrize("rules", [
    Rules(),
    Rules(decks=3, players=6, declaration="auction", talon_multiplier="power", start_level="5",
          win="reach_ace", tractor_across_rank=False, rank_and_jokers_in_tractors=False,
          must_play_tractor=True, throw_penalty=0, level_step_points=50, talon_cards=12),
    Rules(players=8, decks=4),
])
def test_rules_data_round_trip(rules):
    data = rules.to_data()
    assert Rules.from_data(data) == rules
    assert Rules.from_data(json.loads(json.dumps(data))) == rules


def test_rules_from_data_rejects_unknown_options():
    data = Rules().to_data() | {"jokers": 4}
    with pytest.raises(RulesError, match="jokers"):
        Rules.from_data(data)
    with pytest.raises(RulesError, match="unknown rules option"):
        Rules.from_data({"colour": "red"})


def test_rules_from_data_validates_values():
    with pytest.raises(RulesError):
        Rules.from_data(Rules().to_data() | {"players": 5})


def test_rules_from_partial_data_uses_defaults():
    assert Rules.from_data({"decks": 3}) == Rules(decks=3)


def test_documented_option_fields_round_trip_through_data():
    # seeds/README.md names the options talon_cards and level_step_points; the derived
    # values in force are the properties talon_size and level_step.
    r = Rules.from_data({"talon_cards": 12, "level_step_points": 30})
    assert (r.hand_size, r.talon_size, r.level_step) == (24, 12, 30)
    assert Rules.from_data(r.to_data()) == r
    with pytest.raises(TypeError):
        Rules(talon_size=12)  # type: ignore[call-arg]
