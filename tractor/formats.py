"""Lead formats: single, pair, tractor and top-card throw.

A set of cards of one effective suit decomposes canonically into components:
the longest tractors first, then pairs, then singles. One component is a
single, a pair or a tractor; several make a throw.

>>> from tractor.trump import Trump
>>> f = classify("6S 6S 8S 8S", Trump("7", "C"))
>>> f.kind, f.length
('tractor', 2)
>>> [str(c) for c in classify("AS AS KS KS QS 9S", Trump("2", "H")).components]
['tractor ♠A ♠A ♠K ♠K', 'single ♠Q', 'single ♠9']
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import Card, CardsLike, format_cards, to_cards, to_faces
from .errors import CoreError
from .rules import Rules
from .trump import ESUIT_NAMES, Ladder, Trump, esuit_name, rules_ladder

SINGLE, PAIR, TRACTOR, THROW = "single", "pair", "tractor", "throw"


class FormatError(CoreError):
    """Cards that cannot form one lead (empty, or not of one effective suit)."""


@dataclass(frozen=True, slots=True)
class Component:
    """One piece of a lead: ``kind`` single/pair/tractor; ``faces`` high to low
    (a pair or tractor lists each card twice); ``pairs`` = number of pairs."""

    kind: str
    faces: tuple[int, ...]
    pairs: int
    top: int  #: order value of the highest card

    @property
    def cards(self) -> list[Card]:
        return to_cards(self.faces)

    def __str__(self) -> str:
        return f"{self.kind} {format_cards(self.faces, symbols=True)}"


@dataclass(frozen=True, slots=True)
class Format:
    """The shape of a set of cards of one effective suit."""

    kind: str
    esuit: int
    components: tuple[Component, ...]
    # Worked out once from the components (a follow and a trick ask for them often):
    #: Cards in the layout.
    size: int = field(init=False, repr=False, compare=False)
    #: Pairs in the layout, each pair of a tractor counted.
    pairs: int = field(init=False, repr=False, compare=False)
    #: The number of pairs of each tractor, in component order.
    tractor_lengths: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        comps = self.components
        object.__setattr__(self, "size", sum(len(c.faces) for c in comps))
        object.__setattr__(self, "pairs", sum(c.pairs for c in comps))
        object.__setattr__(self, "tractor_lengths",
                           tuple(c.pairs for c in comps if c.kind == TRACTOR))

    @property
    def suit(self) -> str:
        """"trump" or the plain suit letter."""
        return ESUIT_NAMES[self.esuit]

    @property
    def length(self) -> int:
        """Pairs of a tractor, 1 for a pair, 0 for a single; for a throw, its card count."""
        if self.kind == THROW:
            return self.size
        return self.components[0].pairs

    def describe(self) -> str:
        """Plain words: "a pair of ♠", "a tractor of 3 pairs of trumps", "a throw of ..."."""
        where = esuit_name(self.esuit)
        if self.kind == SINGLE:
            return f"a single {where}"
        if self.kind == PAIR:
            return f"a pair of {where}"
        if self.kind == TRACTOR:
            return f"a tractor of {self.length} pairs of {where}"
        parts = ", ".join(c.kind if c.kind != TRACTOR else f"tractor of {c.pairs}"
                          for c in self.components)
        return f"a throw of {where} ({parts})"


def pairs_by_level(faces: list[int], ladder: Ladder) -> dict[int, list[int]]:
    """Level -> faces with a pair there (a face listed once per pair it makes)."""
    counts: dict[int, int] = {}
    for f in faces:
        counts[f] = counts.get(f, 0) + 1
    out: dict[int, list[int]] = {}
    level, order = ladder.level, ladder.order
    # Ties in order (off-suit rank cards) break by face, so the result never
    # depends on the order the cards were given in.
    for f in sorted(counts, key=lambda f: (-order[f], f)):
        for _ in range(counts[f] // 2):
            out.setdefault(level[f], []).append(f)
    return out


def _longest_run(levels: dict[int, list[int]]) -> tuple[int, int]:
    """(length, top level) of the longest run of consecutive levels with pairs;
    the highest run wins ties."""
    best_len, best_top = 0, 0
    run, prev = 0, None
    for lv in sorted(k for k, v in levels.items() if v):
        run = run + 1 if prev is not None and lv == prev + 1 else 1
        prev = lv
        if run >= best_len:
            best_len, best_top = run, lv
    return best_len, best_top


def decompose_faces(faces: list[int], ladder: Ladder) -> list[Component]:
    """Canonical components of faces of one effective suit: longest tractors, then pairs,
    then singles, each group high to low."""
    order = ladder.order
    # Most leads and follows are one card or one pair: no ladder to search.
    if len(faces) == 1:
        return [Component(SINGLE, (faces[0],), 0, order[faces[0]])]
    if len(faces) == 2 and faces[0] == faces[1]:
        return [Component(PAIR, (faces[0], faces[0]), 1, order[faces[0]])]
    levels = pairs_by_level(faces, ladder)
    remaining = list(faces)
    comps: list[Component] = []
    while True:
        length, top = _longest_run(levels)
        if length < 2:
            break
        run = []
        for lv in range(top, top - length, -1):
            f = levels[lv].pop(0)
            run += [f, f]
            remaining.remove(f)
            remaining.remove(f)
        comps.append(Component("tractor", tuple(run), length, order[run[0]]))
    for lv in sorted(levels, reverse=True):
        for f in levels[lv]:
            comps.append(Component("pair", (f, f), 1, order[f]))
            remaining.remove(f)
            remaining.remove(f)
    pair_comps = [c for c in comps if c.kind == "pair"]
    pair_comps.sort(key=lambda c: (-c.top, c.faces))
    tractors = [c for c in comps if c.kind == "tractor"]
    tractors.sort(key=lambda c: (-c.pairs, -c.top, c.faces))
    singles = [Component("single", (f,), 0, order[f])
               for f in sorted(remaining, key=lambda f: (-order[f], f))]
    return tractors + pair_comps + singles


def classify_faces(faces: list[int], ladder: Ladder) -> Format:
    if not faces:
        raise FormatError("no cards")
    esuit = ladder.suit_of_faces(faces)
    if esuit is None:
        raise FormatError(f"{format_cards(faces, symbols=True)} are not all of one suit "
                          "(trumps count as one suit)")
    comps = decompose_faces(faces, ladder)
    kind = comps[0].kind if len(comps) == 1 else THROW
    return Format(kind, esuit, tuple(comps))


def classify(cards: CardsLike, trump: Trump, across_rank: bool = True,
             rank_and_jokers: bool = True, rules: Rules | None = None) -> Format:
    """Format of cards under a trump context; ``.kind`` is single/pair/tractor/throw.
    The tractor options come from ``rules`` when given, else from the two flags.

    >>> t = Trump("2", "H")
    >>> classify("KS", t).kind, classify("KS KS", t).kind, classify("KS KS QS QS", t).kind
    ('single', 'pair', 'tractor')
    >>> classify("AH AH 2S 2S 2H 2H BJ BJ", t).length   # trumps chain through the rank cards
    4
    >>> classify("AS KS", t).kind
    'throw'
    >>> classify("AS AH", t)
    Traceback (most recent call last):
    ...
    tractor.formats.FormatError: ♠A ♥A are not all of one suit (trumps count as one suit)
    """
    ladder = rules_ladder(trump, rules) if rules is not None else trump.ladder(
        across_rank, rank_and_jokers)
    return classify_faces(to_faces(cards), ladder)


# --- matching a layout of components against cards --------------------------------------------

def _place_tractors(levels: dict[int, int], lengths: list[int], i: int, need_all: bool) -> int:
    """Most of ``lengths[i:]`` (tractor lengths) placeable on disjoint runs of pairs.

    ``levels`` maps level -> pairs available there and is restored on return. With
    ``need_all`` the search stops at the first complete placement.
    """
    if i == len(lengths):
        return 0
    k = lengths[i]
    # Leaving this tractor unmatched is allowed only when counting the most matched.
    best = 0 if need_all else _place_tractors(levels, lengths, i + 1, need_all)
    for start in sorted(levels):
        if all(levels.get(start + j, 0) > 0 for j in range(k)):
            for j in range(k):
                levels[start + j] -= 1
            got = 1 + _place_tractors(levels, lengths, i + 1, need_all)
            for j in range(k):
                levels[start + j] += 1
            if got > best:
                best = got
            if best == len(lengths) - i:
                return best
    return best


def pair_levels(faces: list[int], ladder: Ladder) -> dict[int, int]:
    """Level -> number of pairs there."""
    return {lv: len(fs) for lv, fs in pairs_by_level(faces, ladder).items()}


def max_tractors_matched(faces: list[int], lengths: tuple[int, ...], ladder: Ladder) -> int:
    """How many of the tractors ``lengths`` can be matched by disjoint tractors of the same
    length among ``faces`` (one effective suit)."""
    if not lengths:
        return 0
    return _place_tractors(pair_levels(faces, ladder), sorted(lengths, reverse=True), 0, False)


def count_pairs(faces: list[int]) -> int:
    counts: dict[int, int] = {}
    for f in faces:
        counts[f] = counts.get(f, 0) + 1
    return sum(c // 2 for c in counts.values())


def covers_layout(faces: list[int], lead: Format, ladder: Ladder) -> bool:
    """Whether ``faces`` (same number of cards) hold every component of ``lead`` disjointly:
    each tractor as a tractor of its length, each pair as a pair, singles as any cards."""
    if len(faces) != lead.size:
        return False
    if count_pairs(faces) < lead.pairs:
        return False
    lengths = sorted(lead.tractor_lengths, reverse=True)
    if not lengths:
        return True
    return _place_tractors(pair_levels(faces, ladder), lengths, 0, True) == len(lengths)


def tractors_in(faces: list[int], ladder: Ladder) -> list[list[int]]:
    """Every tractor (every length, every sub-run) within faces of one effective suit."""
    level = ladder.level
    counts: dict[int, int] = {}
    for f in faces:
        counts[f] = counts.get(f, 0) + 1
    at: dict[int, list[int]] = {}
    for f, c in counts.items():
        if c >= 2:
            at.setdefault(level[f], []).append(f)
    out: list[list[int]] = []

    def extend(run: list[int], lv: int) -> None:
        for f in at.get(lv, []):
            longer = run + [f, f]
            out.append(longer)
            extend(longer, lv + 1)

    for lv, fs in at.items():
        if lv + 1 in at:
            for f in fs:
                extend([f, f], lv + 1)
    return out
