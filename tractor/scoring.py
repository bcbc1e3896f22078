"""Card points, the talon bonus, and level changes from the defenders' points.

Level table of seed 000 for two decks (step 40 points); 80-115 is silent in the
seeds: the defenders take over with no level gain, as is conventional. Other
deck counts scale the step to 20 points per deck.

>>> score_outcome(0), score_outcome(35), score_outcome(75)
(('declarers', 3), ('declarers', 2), ('declarers', 1))
>>> score_outcome(80), score_outcome(120), score_outcome(235), score_outcome(280)
(('defenders', 0), ('defenders', 1), ('defenders', 3), ('defenders', 5))
>>> talon_multiplier(1), talon_multiplier(5), talon_multiplier(4, "power")
(2, 10, 16)
"""

from __future__ import annotations

from collections.abc import Iterable

from .cards import FACE_POINTS, RANKS

LEVELS = RANKS  #: team levels, "2" .. "A"


def points_of(faces: Iterable[int]) -> int:
    """Card points of faces: K and 10 are 10, 5 is 5."""
    return sum(FACE_POINTS[f] for f in faces)


def talon_multiplier(last_lead_cards: int, style: str = "seed") -> int:
    """Multiplier of the talon's points when the defenders win the last trick.

    ``"seed"`` (seed 000): x2 for a one-card lead, else x2 per card (5 cards: x10).
    ``"power"``: doubling per card, x2**n.
    """
    if style == "power":
        # 2**n as a shift: the type of int ** int is not int (a negative power is a float),
        # and a lead has at least one card (a negative count raises ValueError).
        return 1 << last_lead_cards
    if style == "seed":
        return 2 * last_lead_cards
    raise ValueError(f"unknown talon multiplier style {style!r}")


def score_outcome(defender_points: int, decks: int = 2,
                  step: int | None = None) -> tuple[str, int]:
    """("declarers" | "defenders", levels gained) for the defenders' final points.

    The side named is the one that declares next hand. ``step`` is the width of a
    level band (default 20 points per deck).
    """
    s = step if step is not None else 20 * decks
    if s <= 0:
        raise ValueError("the level step (20 points per deck by default) must be positive")
    p = max(0, defender_points)
    if p == 0:
        return ("declarers", 3)
    if p < s:
        return ("declarers", 2)
    if p < 2 * s:
        return ("declarers", 1)
    return ("defenders", (p - 2 * s) // s)


def level_index(level: str) -> int:
    return LEVELS.index(level)


def raise_level(level: str, gain: int) -> tuple[str, bool]:
    """(new level, passed Ace): a level past Ace stays "A" and reports True."""
    i = LEVELS.index(level) + gain
    if i >= len(LEVELS):
        return "A", True
    return LEVELS[i], False


def defended_gain(level: str, gain: int, must_defend: frozenset[str] = frozenset(),
                  declared: bool = False) -> int:
    """How many of ``gain`` levels a side at ``level`` may climb when ``must_defend`` levels
    block it (`Rules.must_defend`, shengji's "defend points"): a side cannot pass such a
    level unless it won the hand as declarers while at it (``declared``: the gain's first
    step then leaves it); the gain stops at the next one.

    >>> defended_gain("3", 3, frozenset({"5"})), defended_gain("5", 3, frozenset({"5"}))
    (2, 0)
    >>> defended_gain("5", 3, frozenset({"5"}), declared=True)
    3
    >>> defended_gain("10", 3, frozenset({"10", "J"}), declared=True)
    1
    """
    start, top = LEVELS.index(level), len(LEVELS) - 1
    for step in range(gain):
        at = start + step
        if at > top:
            break  # past Ace already: the rest of the gain changes nothing
        if LEVELS[at] in must_defend and (step > 0 or not declared):
            return step
    return gain


def advance_levels(levels: list[str], team: int, gain: int, win: str = "past_ace",
                   must_defend: frozenset[str] = frozenset(), declared: bool = False) -> bool:
    """Raise ``team``'s level by ``gain`` in place (a level past Ace stays "A"; a level of
    ``must_defend`` stops it, see `defended_gain`); True when that wins the game
    ("past_ace": passing Ace, seed 000; "reach_ace": reaching it, 001)."""
    top = len(LEVELS) - 1
    index = LEVELS.index(levels[team]) + defended_gain(levels[team], gain, must_defend,
                                                       declared)
    levels[team] = LEVELS[min(index, top)]
    return index > top if win == "past_ace" else index >= top


def advance_seats(levels: list[str], seats: Iterable[int], gain: int,
                  win: str = "past_ace", must_defend: frozenset[str] = frozenset(),
                  declared: bool = False) -> tuple[int, ...]:
    """Find-a-friend: raise each of ``seats``' levels by ``gain`` in place; returns the
    seats that win the game by it (see `advance_levels`).

    >>> levels = ["2", "K", "A", "2", "2"]
    >>> advance_seats(levels, (1, 2), 2), levels
    ((1, 2), ['2', 'A', 'A', '2', '2'])
    """
    return tuple(s for s in seats
                 if advance_levels(levels, s, gain, win, must_defend, declared))
