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

Two rules options (`Rules.throw_ruff`, `Rules.throw_forced`) change throws; the functions
take them as keywords with today's rule as the default:

>>> ruffs = ["AS AS KS KS 9S 9S", "3H 3H 4H 4H BJ BJ", "9H 9H 10H 10H 5H 5H"]
>>> trick_winner(ruffs, t), trick_winner(ruffs, t, rules=Rules(throw_ruff="largest_component"))
(1, 2)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

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
    pairs_by_level,
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


def _largest_top(faces: list[int], lead: Format, ladder: Ladder) -> int:
    """Top card (order) of the highest component of ``faces`` shaped like the lead's largest
    component such that the other cards still hold the rest of the lead's layout (-1: none).

    The lead's largest component is its first: the longest tractor (the highest of those),
    else its highest pair, else its highest single.
    """
    largest = lead.components[0]
    if largest.kind == SINGLE:
        return max(ladder.order[f] for f in faces)
    if largest.kind == PAIR:
        # The lead has no tractor, so any pair leaves enough pairs for the rest.
        return _paired_top(faces, ladder)
    k = largest.pairs
    levels = pairs_by_level(faces, ladder)
    rest = Format(THROW, lead.esuit, lead.components[1:])
    # Cards on one level are equal (same order), so a run is known by its top level.
    for top in sorted(levels, reverse=True):
        run = [top - j for j in range(k)]
        if not all(levels.get(lv) for lv in run):
            continue
        left = list(faces)
        for lv in run:
            left.remove(levels[lv][0])
            left.remove(levels[lv][0])
        if not rest.components or covers_layout(left, rest, ladder):
            return ladder.order[levels[top][0]]
    return -1


def _throw_key(faces: list[int], lead: Format, ladder: Ladder,
               throw_ruff: str = "highest_pair") -> int:
    if throw_ruff == "largest_component":
        return _largest_top(faces, lead, ladder)
    if throw_ruff != "highest_pair":
        raise ValueError(f"unknown throw_ruff {throw_ruff!r:.40}")
    # Seed 000 (004's wording): the highest paired trump wins, or the highest single trump
    # when the lead has no pair.
    if lead.pairs:
        return _paired_top(faces, ladder)
    return max(ladder.order[f] for f in faces)


def play_key(faces: list[int], lead: Format, ladder: Ladder, *,
             throw_ruff: str = "highest_pair") -> tuple[int, int] | None:
    """Strength of a follower's play against ``lead``, or None if it cannot win.
    ``throw_ruff`` (`Rules.throw_ruff`) ranks the trump plays that ruff a throw."""
    if len(faces) != lead.size:
        return None
    es = ladder.suit_of_faces(faces)
    if es is None:
        return None
    if lead.kind == THROW:
        if lead.esuit == TRUMP or es != TRUMP or not covers_layout(faces, lead, ladder):
            return None
        return (1, _throw_key(faces, lead, ladder, throw_ruff))
    if es != lead.esuit and es != TRUMP:
        return None
    if lead.kind == PAIR:
        if faces[0] != faces[1]:  # two cards of one suit: a pair, or two singles
            return None
    elif lead.kind != SINGLE:
        fmt = classify_faces(faces, ladder)
        if fmt.kind != lead.kind or (lead.kind == TRACTOR and fmt.length != lead.length):
            return None
    return (int(es == TRUMP), max(ladder.order[f] for f in faces))


def lead_key(lead_faces: list[int], lead: Format, ladder: Ladder, *,
             throw_ruff: str = "highest_pair") -> tuple[int, int]:
    if lead.kind == THROW:
        return (int(lead.esuit == TRUMP), _throw_key(lead_faces, lead, ladder, throw_ruff))
    return (int(lead.esuit == TRUMP), max(ladder.order[f] for f in lead_faces))


def winner_of(plays: Sequence[list[int]], ladder: Ladder, *,
              throw_ruff: str = "highest_pair") -> int:
    """Index of the winning play; ``plays[0]`` is the lead (faces). ``throw_ruff``:
    `Rules.throw_ruff`, who wins a throw that several seats ruff."""
    if not plays:
        raise FormatError("a trick needs at least the lead")
    return winner_against(plays, classify_faces(plays[0], ladder), ladder,
                          throw_ruff=throw_ruff)


def winner_against(plays: Sequence[list[int]], lead: Format, ladder: Ladder, *,
                   throw_ruff: str = "highest_pair") -> int:
    """`winner_of` when the lead's format is known: ``lead`` is ``plays[0]``'s."""
    best, best_key = 0, lead_key(plays[0], lead, ladder, throw_ruff=throw_ruff)
    for i in range(1, len(plays)):
        key = play_key(plays[i], lead, ladder, throw_ruff=throw_ruff)
        if key is not None and key > best_key:
            best, best_key = i, key
    return best


def trick_winner(plays: Sequence[CardsLike], trump: Trump, rules: Rules | None = None) -> int:
    """Index of the play that wins the trick; ``plays[0]`` is the lead. First played wins ties.
    ``rules`` supplies the tractor options and `Rules.throw_ruff` (defaults when None)."""
    return winner_of([to_faces(p) for p in plays], rules_ladder(trump, rules),
                     throw_ruff=(rules or _DEFAULT).throw_ruff)


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


def beaten_components(lead: Format, other_hands: Sequence[list[int]], ladder: Ladder, *,
                      throw_forced: str = "lowest") -> list[int]:
    """Indices of the components of a throw that some other hand can beat: the ones the
    forced part is chosen from. With ``throw_forced="first_claimant"`` (`Rules.throw_forced`)
    only those the first hand able to beat one can beat; ``other_hands`` are then in playing
    order starting after the thrower."""
    es = ladder.esuit
    suits = [[f for f in h if es[f] == lead.esuit] for h in other_hands]
    if throw_forced == "lowest":  # _candidates(..., "lowest"), short-circuited: the common case
        return [i for i, c in enumerate(lead.components)
                if any(beats_component(c, h, ladder) for h in suits)]
    return _candidates([[i for i, c in enumerate(lead.components)
                         if beats_component(c, h, ladder)] for h in suits], throw_forced)


def failed_components(lead: Format, other_hands: Sequence[list[int]], ladder: Ladder, *,
                      throw_forced: str = "lowest") -> list[Component]:
    """The components `beaten_components` names."""
    return [lead.components[i] for i in beaten_components(lead, other_hands, ladder,
                                                          throw_forced=throw_forced)]


def beaten_by_claims(claims: Mapping[int, Iterable[int]], thrower: int, players: int, *,
                     throw_forced: str = "lowest") -> list[int]:
    """What `beaten_components` gives, from claims instead of hands (the peers' table):
    ``claims`` maps a seat to the indices of the components it showed it can beat."""
    order = [(thrower + k) % players for k in range(1, players)]
    return _candidates([list(claims.get(s, ())) for s in order], throw_forced)


ClaimAnswer = tuple[int, "int | None"]  #: (seat, the throw's component it showed it beats)


def claim_key(lead: Format, index: int) -> tuple[int, int, int, int]:
    """How a claimed component ranks for the forced lead: `forced_order`, then the
    canonical position (the first of equal components is forced)."""
    return (*forced_order(lead.components[index]), index)


def claim_to_make(lead: Format, able: Iterable[int], best: int | None,
                  throw_forced: str = "lowest") -> int | None:
    """The one claim a seat makes when its turn comes against a throw (`claim_turn`): of
    the components it can beat (``able``), the one that would be forced, if it changes the
    forced lead (``best``: the one claimed so far); else None, it shows nothing. The table
    learns only what decides the forced lead: at most one component per seat, and no
    seat speaks once the lead is settled.

    >>> from tractor.trump import Trump
    >>> lead = classify_faces([37, 36, 36], Trump("2", "S").ladder())  # K♦ Q♦Q♦
    >>> [c.kind for c in lead.components]
    ['pair', 'single']
    >>> claim_to_make(lead, {0, 1}, None)  # it can beat both: the single is forced
    1
    >>> claim_to_make(lead, {0}, 1)  # the single is claimed already: its pair adds nothing
    """
    if throw_forced not in ("lowest", "first_claimant"):
        raise ValueError(f"unknown throw_forced {throw_forced!r:.40}")
    able = list(able)
    if not able:
        return None
    mine = min(able, key=lambda i: claim_key(lead, i))
    if best is None or (throw_forced == "lowest" and claim_key(lead, mine) < claim_key(lead, best)):
        return mine
    return None


def best_claim(lead: Format, answers: Sequence[ClaimAnswer]) -> int | None:
    """The component the claims so far force (None: none claimed, the throw stands)."""
    claimed = [i for _, i in answers if i is not None]
    return min(claimed, key=lambda i: claim_key(lead, i)) if claimed else None


def claim_turn(lead: Format, answers: Sequence[ClaimAnswer], thrower: int, players: int,
               throw_forced: str = "lowest") -> int | None:
    """The next seat to answer a throw (in playing order after the thrower), or None once
    the forced lead is settled: every other seat answered; with ``first_claimant`` the
    first claim; with ``lowest`` a claim of the lowest component there is."""
    best = best_claim(lead, answers)
    if best is not None and (throw_forced == "first_claimant" or claim_key(lead, best) == min(
            claim_key(lead, i) for i in range(len(lead.components)))):
        return None
    k = len(answers) + 1
    return (thrower + k) % players if k < players else None


def _candidates(beaten: Sequence[Sequence[int]], throw_forced: str) -> list[int]:
    """The one statement of `Rules.throw_forced`: ``beaten`` lists, for each other seat in
    playing order starting after the thrower, the indices of the components it can beat."""
    if throw_forced == "first_claimant":
        # The first seat that can beat anything decides (rbtying/shengji's rule).
        chosen = next((set(b) for b in beaten if b), set())
    elif throw_forced == "lowest":
        chosen = {i for b in beaten for i in b}
    else:
        raise ValueError(f"unknown throw_forced {throw_forced!r:.40}")
    return sorted(chosen)


def forced_component(failed: Sequence[Component]) -> Component:
    """The component a failed throw must be replaced by: the smallest shape (single, pair,
    tractor; fewer pairs first), then the lowest top card. Components equal in both (only
    off-suit rank cards: ♠2 and ♣2 under trump ♥2) go by the canonical decomposition, high
    to low then by face number, i.e. suit order ♠ ♥ ♦ ♣: the first of them is forced."""
    return min(failed, key=forced_order)


def forced_order(comp: Component) -> tuple[int, int, int]:
    """How failed components rank for the one a throw is forced to (smallest first):
    the shape (single, pair, tractor), then the tractor's length, then the top card."""
    return (_KIND_RANK[comp.kind], comp.pairs, comp.top)


def claim_beats(comp: Component, lead: Format, faces: Sequence[int], ladder: Ladder) -> bool:
    """Whether cards a seat shows against a throw beat its component ``comp``: of the
    throw's own suit (a trump beats nothing of a plain suit here: a claim is a hand able to
    follow with a higher part), the same shape, and higher.

    >>> from tractor.trump import Trump
    >>> ladder = Trump("2", "S").ladder()
    >>> lead = classify_faces([37, 34], ladder)  # K♦ 10♦, a throw of two singles
    >>> claim_beats(lead.components[1], lead, [38], ladder)  # A♦ beats the 10♦
    True
    >>> claim_beats(lead.components[0], lead, [3], ladder)  # 5♠, a trump: not a claim
    False
    """
    es = ladder.esuit
    return len(faces) == len(comp.faces) and all(es[f] == lead.esuit for f in faces) and \
        beats_component(comp, list(faces), ladder)


def resolve_throw_faces(lead_faces: list[int], other_hands: Sequence[list[int]],
                        ladder: Ladder, *, throw_forced: str = "lowest"
                        ) -> tuple[list[int], Format]:
    """(the play that stands, the lead's format). Leads that are not throws always stand.
    ``other_hands`` in playing order starting after the thrower."""
    lead = classify_faces(lead_faces, ladder)
    if lead.kind != THROW:
        return lead_faces, lead
    failed = failed_components(lead, other_hands, ladder, throw_forced=throw_forced)
    if not failed:
        return lead_faces, lead
    return list(forced_component(failed).faces), lead


def resolve_throw(lead: CardsLike, other_hands: Sequence[CardsLike], trump: Trump,
                  rules: Rules | None = None) -> list[Card]:
    """The lead itself if it stands, else the component the thrower is forced to play.
    ``other_hands`` in playing order starting after the thrower (it matters only with
    ``rules.throw_forced == "first_claimant"``)."""
    faces, _ = resolve_throw_faces(to_faces(lead), [to_faces(h) for h in other_hands],
                                   rules_ladder(trump, rules),
                                   throw_forced=(rules or _DEFAULT).throw_forced)
    return to_cards(faces)


_DEFAULT = Rules()
