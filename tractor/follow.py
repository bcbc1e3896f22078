"""Following a lead: the obligations of seeds 000/001, as one general rule.

A lead of n cards in effective suit S. The follower plays exactly n cards:
as many of S as held (up to n); among them as many pairs as held, up to the
pairs of the lead's layout (not necessarily consecutive); with the
``must_play_tractor`` option, before the pairs, as many of the lead's tractors
as held; then any cards.

>>> from tractor.trump import Trump
>>> t = Trump("2", "H")
>>> is_legal_follow("9S 9S 4S KD", "AS AS", "9S 4S", t)
False
>>> print(follow_reason("9S 9S 4S KD", "AS AS", "9S 4S", t))
you must play a pair of ♠: you hold ♠9 ♠9
>>> is_legal_follow("9S 9S 4S KD", "AS AS", "9S 9S", t)
True
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from .cards import CardsLike, format_cards, to_faces
from .formats import (
    Format,
    classify_faces,
    count_pairs,
    decompose_faces,
    max_tractors_matched,
    tractors_in,
)
from .rules import Rules
from .trump import Ladder, Trump, esuit_name, rules_ladder


def _missing(hand: list[int], play: list[int]) -> list[int]:
    """Faces of ``play`` not covered by ``hand`` (as a multiset)."""
    if len(play) == 1:
        return [] if play[0] in hand else list(play)
    left = list(hand)
    out = []
    for f in play:
        if f in left:
            left.remove(f)
        else:
            out.append(f)
    return out


def _pair_faces(faces: list[int], ladder: Ladder) -> list[int]:
    counts: dict[int, int] = {}
    for f in faces:
        counts[f] = counts.get(f, 0) + 1
    out = []
    for f in ladder.sort_faces(list(counts)):
        out += [f, f] * (counts[f] // 2)
    return out


def follow_error(hand: list[int], lead: Format, play: list[int], ladder: Ladder,
                 must_play_tractor: bool = False) -> str | None:
    """Why ``play`` (faces) does not follow ``lead`` from ``hand`` (faces), or None if legal."""
    n = lead.size
    if len(play) != n:
        return f"you must play {n} card{'s' if n > 1 else ''}, not {len(play)}"
    missing = _missing(hand, play)
    if missing:
        return f"you do not hold {format_cards(missing, symbols=True)}"
    s = lead.esuit
    es = ladder.esuit
    if not lead.pairs and all(es[f] == s for f in play):
        return None  # every card of the lead's suit, and no pair or tractor to match
    hand_s = [f for f in hand if es[f] == s]
    play_s = [f for f in play if es[f] == s]
    need = min(n, len(hand_s))
    if len(play_s) < need:
        shown = format_cards(ladder.sort_faces(hand_s), symbols=True)
        return (f"you must follow {esuit_name(s)} with {need} card{'s' if need > 1 else ''}: "
                f"you hold {shown}")
    if len(hand_s) <= n:
        return None  # every card of the suit is played: nothing more to ask
    where = esuit_name(s)
    if must_play_tractor and lead.tractor_lengths:
        lengths = lead.tractor_lengths
        want = max_tractors_matched(hand_s, lengths, ladder)
        if max_tractors_matched(play_s, lengths, ladder) < want:
            return (f"you must play {'a tractor' if want == 1 else f'{want} tractors'} of "
                    f"{where}: you hold {format_cards(_pair_faces(hand_s, ladder), symbols=True)}")
    if lead.pairs:
        held = count_pairs(hand_s)
        want = min(lead.pairs, held)
        if min(lead.pairs, count_pairs(play_s)) < want:
            what = "a pair" if want == 1 else f"{want} pairs"
            return (f"you must play {what} of {where}: "
                    f"you hold {format_cards(_pair_faces(hand_s, ladder), symbols=True)}")
    return None


def lead_error(hand: list[int], play: list[int], ladder: Ladder) -> str | None:
    """Why ``play`` cannot be led from ``hand``, or None. Any cards of one effective
    suit may be led; more than one component makes a throw (checked separately)."""
    if not play:
        return "you must play at least one card"
    missing = _missing(hand, play)
    if missing:
        return f"you do not hold {format_cards(missing, symbols=True)}"
    if ladder.suit_of_faces(play) is None:
        return (f"a lead must be of one suit (trumps count as one suit): "
                f"{format_cards(ladder.sort_faces(play), symbols=True)}")
    return None


def is_legal_follow(hand: CardsLike, lead: CardsLike, play: CardsLike, trump: Trump,
                    must_play_tractor: bool = False, rules: Rules | None = None) -> bool:
    """Whether ``play`` (a subset of ``hand``) follows ``lead`` legally. ``rules`` supplies
    the tractor options and ``must_play_tractor`` (defaults when None)."""
    return follow_reason(hand, lead, play, trump, must_play_tractor, rules) is None


def follow_reason(hand: CardsLike, lead: CardsLike, play: CardsLike, trump: Trump,
                  must_play_tractor: bool = False, rules: Rules | None = None) -> str | None:
    """The reason ``play`` is illegal, in plain words, or None when it is legal."""
    ladder = rules_ladder(trump, rules)
    must = must_play_tractor or (rules is not None and rules.must_play_tractor)
    lead_fmt = classify_faces(to_faces(lead), ladder)
    return follow_error(to_faces(hand), lead_fmt, to_faces(play), ladder, must)


# --- generating follows ------------------------------------------------------------------------

def multisets(counts: list[tuple[int, int]], k: int, i: int = 0) -> Iterator[list[int]]:
    """Every multiset of size ``k`` drawn from ``counts`` [(face, available), ...]."""
    if k == 0:
        yield []
        return
    if i == len(counts):
        return
    rest = sum(c for _, c in counts[i:])
    if rest < k:
        return
    face, avail = counts[i]
    for take in range(min(avail, k), -1, -1):
        for tail in multisets(counts, k - take, i + 1):
            yield [face] * take + tail


def counted(faces: list[int], ladder: Ladder) -> list[tuple[int, int]]:
    counts: dict[int, int] = {}
    for f in faces:
        counts[f] = counts.get(f, 0) + 1
    return [(f, counts[f]) for f in ladder.sort_faces(list(counts))]


def legal_follows(hand: list[int], lead: Format, ladder: Ladder,
                  must_play_tractor: bool = False) -> Iterator[list[int]]:
    """Every distinct legal follow (as faces), lazily; can be many when discarding."""
    n = lead.size
    es = ladder.esuit
    hand_s = [f for f in hand if es[f] == lead.esuit]
    if len(hand_s) <= n:
        others = [f for f in hand if es[f] != lead.esuit]
        for fill in multisets(counted(others, ladder), n - len(hand_s)):
            yield hand_s + fill
        return
    for play in multisets(counted(hand_s, ladder), n):
        if follow_error(hand, lead, play, ladder, must_play_tractor) is None:
            yield play


def random_follow(hand: list[int], lead: Format, ladder: Ladder, rng: random.Random,
                  must_play_tractor: bool = False) -> list[int]:
    """A random legal follow, built directly (no enumeration in the common case)."""
    n, s, es = lead.size, lead.esuit, ladder.esuit
    hand_s = [f for f in hand if es[f] == s]
    if len(hand_s) <= n:
        others = [f for f in hand if es[f] != s]
        return hand_s + rng.sample(others, n - len(hand_s))
    for _ in range(20):
        play = _random_structured(hand_s, lead, rng)
        if not must_play_tractor or follow_error(hand, lead, play, ladder, True) is None:
            return play
    return next(legal_follows(hand, lead, ladder, must_play_tractor))


def _random_structured(hand_s: list[int], lead: Format, rng: random.Random) -> list[int]:
    """n cards of the suit with as many pairs as the lead asks for and the hand allows."""
    if not lead.pairs and len(set(hand_s)) == len(hand_s):
        return rng.sample(hand_s, lead.size)  # no pair asked for, none held: as below
    counts: dict[int, int] = {}
    for f in hand_s:
        counts[f] = counts.get(f, 0) + 1
    chosen: list[int] = []
    if lead.pairs:  # skipped otherwise: a sample of no cards draws no random number
        pair_pool = [f for f, c in counts.items() for _ in range(c // 2)]
        for f in rng.sample(pair_pool, min(lead.pairs, len(pair_pool))):
            chosen += [f, f]
            counts[f] -= 2
    rest = [f for f, c in counts.items() for _ in range(c)]
    return chosen + rng.sample(rest, lead.size - len(chosen))


def random_lead(hand: list[int], ladder: Ladder, rng: random.Random) -> list[int]:
    """A random lead: mostly singles, pairs and tractors, sometimes a throw of top cards."""
    f = rng.choice(hand)
    suit = [g for g in hand if ladder.esuit[g] == ladder.esuit[f]]
    roll = rng.random()
    if roll < 0.08 and len(suit) >= 2:
        comps = decompose_faces(suit, ladder)
        comps.sort(key=lambda c: -c.top)
        take = comps[: rng.randint(2, min(3, len(comps)))] if len(comps) >= 2 else comps
        return [g for c in take for g in c.faces]
    if roll < 0.5:
        tractors = tractors_in(suit, ladder) if roll < 0.25 else []
        if tractors:
            return rng.choice(tractors)
        if suit.count(f) >= 2:
            return [f, f]
    return [f]
