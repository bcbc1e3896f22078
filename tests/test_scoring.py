"""Card points, the talon multiplier, and level changes from the defenders' points."""

import pytest

from tractor import score_outcome, talon_multiplier
from tractor.cards import to_faces
from tractor.scoring import LEVELS, level_index, points_of, raise_level


def band(lo, hi):
    return list(range(lo, hi + 1, 5))


TWO_DECKS = (
    [(0, ("declarers", 3))]
    + [(p, ("declarers", 2)) for p in band(5, 35)]
    + [(p, ("declarers", 1)) for p in band(40, 75)]
    + [(p, ("defenders", 0)) for p in band(80, 115)]
    + [(p, ("defenders", 1)) for p in band(120, 155)]
    + [(p, ("defenders", 2)) for p in band(160, 195)]
    + [(p, ("defenders", 3)) for p in band(200, 235)]
    + [(p, ("defenders", 4)) for p in band(240, 275)]
    + [(p, ("defenders", 5)) for p in band(280, 315)]
)


@pytest.mark.parametrize(("points", "outcome"), TWO_DECKS)
def test_two_deck_table(points, outcome):
    assert score_outcome(points) == outcome
    assert score_outcome(points, decks=2) == outcome
    assert score_outcome(points, step=40) == outcome


def test_two_deck_band_edges():
    assert score_outcome(0) == ("declarers", 3)
    assert score_outcome(5) == ("declarers", 2)
    assert score_outcome(35) == ("declarers", 2)
    assert score_outcome(40) == ("declarers", 1)
    assert score_outcome(75) == ("declarers", 1)
    assert score_outcome(80) == ("defenders", 0)
    assert score_outcome(115) == ("defenders", 0)
    assert score_outcome(120) == ("defenders", 1)
    assert score_outcome(200) == ("defenders", 3)
    assert score_outcome(235) == ("defenders", 3)
    assert score_outcome(240) == ("defenders", 4)
    assert score_outcome(280) == ("defenders", 5)


@pytest.mark.parametrize("points", [-5, -10, -40, -200])
def test_negative_points_count_as_zero(points):
    assert score_outcome(points) == ("declarers", 3)
    assert score_outcome(points, decks=3) == ("declarers", 3)


@pytest.mark.parametrize(("points", "outcome"), [
    (0, ("declarers", 3)), (5, ("declarers", 2)), (40, ("declarers", 2)),
    (55, ("declarers", 2)), (60, ("declarers", 1)), (115, ("declarers", 1)),
    (120, ("defenders", 0)), (175, ("defenders", 0)), (180, ("defenders", 1)),
    (235, ("defenders", 1)), (240, ("defenders", 2)), (300, ("defenders", 3)),
    (360, ("defenders", 4)),
])
def test_three_decks_scale_step_60(points, outcome):
    assert score_outcome(points, decks=3) == outcome
    assert score_outcome(points, step=60) == outcome


@pytest.mark.parametrize(("points", "outcome"), [
    (0, ("declarers", 3)), (15, ("declarers", 2)), (20, ("declarers", 1)),
    (40, ("defenders", 0)), (60, ("defenders", 1)), (100, ("defenders", 3)),
])
def test_one_deck_step_20(points, outcome):
    assert score_outcome(points, decks=1) == outcome


def test_explicit_step_overrides_decks():
    assert score_outcome(50, decks=2, step=50) == ("declarers", 1)
    assert score_outcome(100, decks=2, step=50) == ("defenders", 0)
    assert score_outcome(150, decks=3, step=50) == ("defenders", 1)


@pytest.mark.parametrize(("cards", "mult"), [(1, 2), (2, 4), (3, 6), (4, 8), (5, 10), (8, 16)])
def test_talon_multiplier_seed(cards, mult):
    assert talon_multiplier(cards) == mult
    assert talon_multiplier(cards, "seed") == mult


@pytest.mark.parametrize(("cards", "mult"), [(1, 2), (2, 4), (3, 8), (4, 16), (5, 32), (6, 64)])
def test_talon_multiplier_power(cards, mult):
    assert talon_multiplier(cards, "power") == mult


@pytest.mark.parametrize(("cards", "points"), [
    ("", 0), ("KS", 10), ("10H", 10), ("5D", 5), ("AS QS JS 9S BJ RJ", 0),
    ("KS KH 10D 10C 5S 5H", 50), ("5C 5C 5C", 15),
])
def test_points_of(cards, points):
    assert points_of(to_faces(cards)) == points


def test_levels():
    assert LEVELS == ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
    assert level_index("2") == 0 and level_index("A") == 12
    assert raise_level("2", 3) == ("5", False)
    assert raise_level("10", 1) == ("J", False)
    assert raise_level("Q", 0) == ("Q", False)
    assert raise_level("J", 3) == ("A", False)
    assert raise_level("K", 2) == ("A", True)
    assert raise_level("A", 1) == ("A", True)
