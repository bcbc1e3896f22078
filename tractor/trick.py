"""Who wins a trick, and whether a top-card throw stands.

>>> from tractor.trump import Trump
>>> t = Trump("2", "H")
>>> trick_winner(["KS", "AS", "3H", "AS"], t)    # the trump 3H wins; ties go to the first
2
>>> trick_winner(["KS KS", "AS QS", "3H 4H", "AD AD"], t)   # a pair lead needs a pair
0
>>> trick_winner(["KS KS", "AS AS", "3H 3H", "4H 4H"], t)
3
>>> [str(c) for c in resolve_throw("AS KS KS", ["AD AD", "QS QS"], t)]   # nobody beats it
['AS', 'KS', 'KS']
>>> [str(c) for c in resolve_throw("AS QS QS", ["KS KS 3D", "4C"], t)]   # KK beats QQ
['QS', 'QS']
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import Card, CardsLike, to_cards, to_faces
from .formats import (
    PAIR,
    SINGLE,
    THROW,
    TRACTOR,
    Component,
    Format,
    FormatError,
    classify_faces,
    covers_layout,
)
from .rules import Rules
from .trump import TRUMP, Ladder, Trump, rules_ladder


def _paired_top(faces: list[int], ladder: Ladder) -> int:
    """Highest order among cards that are paired in ``faces`` (-1 if none)."""
    seen: set[int] = set()
    best = -1
    order = ladder.order
    for f in faces:
        if f in seen:
            best = max(best, order[f])
        seen.add(f)
    return best


def _throw_key(faces: list[int], lead: Format, ladder: Ladder) -> int:
    # Seed 000: the highest paired trump wins, or the highest single trump when
    # the lead has no pair.
    if lead.pairs:
        return _paired_top(faces, ladder)
    return max(ladder.order[f] for f in faces)


def play_key(faces: list[int], lead: Format, ladder: Ladder) -> tuple[int, int] | None:
    """Strength of a follower's play against ``lead``, or None if it cannot win."""
    if len(faces) != lead.size:
        return None
    es = ladder.suit_of_faces(faces)
    if es is None:
        return None
    if lead.kind == THROW:
        if lead.esuit == TRUMP or es != TRUMP or not covers_layout(faces, lead, ladder):
            return None
        return (1, _throw_key(faces, lead, ladder))
    if es != lead.esuit and es != TRUMP:
        return None
    if lead.kind != SINGLE:
        fmt = classify_faces(faces, ladder)
        if fmt.kind != lead.kind or (lead.kind == TRACTOR and fmt.length != lead.length):
            return None
    return (int(es == TRUMP), max(ladder.order[f] for f in faces))


def lead_key(lead_faces: list[int], lead: Format, ladder: Ladder) -> tuple[int, int]:
    if lead.kind == THROW:
        return (int(lead.esuit == TRUMP), _throw_key(lead_faces, lead, ladder))
    return (int(lead.esuit == TRUMP), max(ladder.order[f] for f in lead_faces))


def winner_of(plays: Sequence[list[int]], ladder: Ladder) -> int:
    """Index of the winning play; ``plays[0]`` is the lead (faces)."""
    if not plays:
        raise FormatError("a trick needs at least the lead")
    lead = classify_faces(plays[0], ladder)
    best, best_key = 0, lead_key(plays[0], lead, ladder)
    for i in range(1, len(plays)):
        key = play_key(plays[i], lead, ladder)
        if key is not None and key > best_key:
            best, best_key = i, key
    return best


def trick_winner(plays: Sequence[CardsLike], trump: Trump, rules: Rules | None = None) -> int:
    """Index of the play that wins the trick; ``plays[0]`` is the lead. First played wins ties.
    ``rules`` supplies the tractor options (defaults when None)."""
    return winner_of([to_faces(p) for p in plays], rules_ladder(trump, rules))


# --- throws ------------------------------------------------------------------------------------

_KIND_RANK = {SINGLE: 0, PAIR: 1, TRACTOR: 2}


def beats_component(comp: Component, hand_s: list[int], ladder: Ladder) -> bool:
    """Whether ``hand_s`` (one effective suit) holds a same-shape component above ``comp``."""
    order = ladder.order
    if comp.kind == SINGLE:
        return any(order[f] > comp.top for f in hand_s)
    counts: dict[int, int] = {}
    for f in hand_s:
        counts[f] = counts.get(f, 0) + 1
    paired = [f for f, c in counts.items() if c >= 2]
    if comp.kind == PAIR:
        return any(order[f] > comp.top for f in paired)
    # A tractor of the same length whose top card is higher.
    top_at: dict[int, int] = {}
    for f in paired:
        lv = ladder.level[f]
        top_at[lv] = max(top_at.get(lv, -1), order[f])
    k = comp.pairs
    for lv, top in top_at.items():
        if top > comp.top and all(lv - j in top_at for j in range(1, k)):
            return True
    return False


def beaten_components(lead: Format, other_hands: Sequence[list[int]],
                      ladder: Ladder) -> list[int]:
    """Indices of the components of a throw that some other hand can beat."""
    es = ladder.esuit
    suits = [[f for f in h if es[f] == lead.esuit] for h in other_hands]
    return [i for i, c in enumerate(lead.components)
            if any(beats_component(c, h, ladder) for h in suits)]


def failed_components(lead: Format, other_hands: Sequence[list[int]],
                      ladder: Ladder) -> list[Component]:
    """Components of a throw that some other hand can beat."""
    return [lead.components[i] for i in beaten_components(lead, other_hands, ladder)]


def forced_component(failed: list[Component]) -> Component:
    """The component a failed throw must be replaced by: the smallest shape, lowest card."""
    return min(failed, key=lambda c: (_KIND_RANK[c.kind], c.pairs, c.top))


def resolve_throw_faces(lead_faces: list[int], other_hands: Sequence[list[int]],
                        ladder: Ladder) -> tuple[list[int], Format]:
    """(the play that stands, the lead's format). Leads that are not throws always stand."""
    lead = classify_faces(lead_faces, ladder)
    if lead.kind != THROW:
        return lead_faces, lead
    failed = failed_components(lead, other_hands, ladder)
    if not failed:
        return lead_faces, lead
    return list(forced_component(failed).faces), lead


def resolve_throw(lead: CardsLike, other_hands: Sequence[CardsLike], trump: Trump,
                  rules: Rules | None = None) -> list[Card]:
    """The lead itself if it stands, else the component the thrower is forced to play."""
    faces, _ = resolve_throw_faces(to_faces(lead), [to_faces(h) for h in other_hands],
                                   rules_ladder(trump, rules))
    return to_cards(faces)
