"""Random worlds consistent with what one seat knows: the hidden cards dealt at random to
the places they may lie (`tractor.ai.players.hidden_places`), keeping every deduction
(`tractor.ai.players.deductions`), then made a full hand (`world_builder`).

Beyond the hard constraints one soft belief is used: a starter buries low cards of short
suits and hardly ever trumps, aces or points, so (by default) the buried cards a seat did
not see are drawn with those odds; uniform buried cards would put a fair share of the
trumps and points there and mislead the search about the talon bonus and the trumps out.

Sampling never fails: the hard constraints are kept by a sequential assignment that tracks
Hall's condition; should they ever be contradictory (they cannot be for a real deal), they
are relaxed one kind at a time (``stats`` counts it).
"""

from __future__ import annotations

import random
from collections import Counter

from tractor.ai.players.deductions import Deductions
from tractor.ai.players.friend_belief import starter_limits
from tractor.ai.players.hidden_places import BURIED, HiddenPlaces
from tractor.ai.players.world_builder import WorldBuilder
from tractor.hand import Hand
from tractor.observation import Observation
from tractor.trump import TRUMP, Ladder

#: A hidden card to place: (the mask of the regions it may go to, its face).
Item = tuple[int, int]


class WorldSampler:
    """Samples the worlds of one observation. ``hidden`` counts the cards the seat has not
    seen; ``deductions`` is read at each sample (a test may add to it); ``stats`` counts
    samples and how many needed a constraint relaxed."""

    def __init__(self, obs: Observation, ladder: Ladder | None, hidden: Counter,
                 deductions: Deductions, places: HiddenPlaces, builder: WorldBuilder,
                 stats: Counter) -> None:
        self.obs = obs
        self.ladder = ladder
        self.hidden = hidden
        self.deductions = deductions
        self.places = places
        self.builder = builder
        self.stats = stats
        self.full = places.full
        self.bit = places.bits()
        #: Per face, the relative odds that it was buried (None: the stock is no burial).
        self.bury_odds: list[float] | None = None
        if places.stock >= 0 and obs.phase in BURIED and ladder is not None:
            self.bury_odds = [bury_odds(f, ladder) for f in range(54)]
        #: Find-a-friend's soft beliefs, per region: face -> the most copies it holds
        #: (`friend_limits`); kept at relaxation level -1 only.
        self.limits = friend_limits(obs, places)

    def sample(self, rng: random.Random, weighted: bool = True) -> Hand:
        """One world: plain tries first, then exact ones (Hall's condition kept), each kind
        of constraint relaxed in turn should they all fail; ``weighted``: the buried cards
        drawn with the odds of a sensible burial (`bury_odds`) when that applies."""
        self.stats["samples"] += 1
        first = -1 if any(self.limits) else 0
        plan = [(first, False, True)] * (8 if weighted and self.bury_odds is not None else 0)
        for level in range(first, 4):
            plan += [(level, False, False)] * 8 + [(level, True, False)] * 8
        plan.append((4, False, False))
        for level, exact, weigh in plan:
            got = self._assign(rng, level, exact, weigh)
            if got is not None:
                if level > 0:
                    self.stats[f"relaxed{level}"] += 1
                elif level == 0 and first < 0:
                    self.stats["beliefs_dropped"] += 1
                return self.builder.build(got, rng)
        raise AssertionError("unreachable: level 4 always succeeds")

    # --- which cards may go where -----------------------------------------------------------

    def _items(self, level: int) -> tuple[list[Item], list[int], list[set[int]]]:
        """(constrained cards as (mask, face), unconstrained faces, per-region faces that must
        not be doubled) under relaxation ``level`` (-1: every constraint and the soft
        beliefs of find-a-friend; 0: every constraint; 1: no pair constraints; 2: no throw
        constraints either; 3: no voids; 4: only sizes)."""
        o = self.obs
        d = self.deductions
        left = Counter(self.hidden)
        items: list[Item] = []
        stock = self.places.stock
        x_bit = (1 << stock) if stock >= 0 else 0
        if level < 4:
            for s in range(d.n):
                mask = self.bit.get(s, 0)
                if s == o.exchanger and o.phase in BURIED:
                    mask |= x_bit  # the seat that buried (the starter) may have buried it
                if not mask:
                    continue
                for f, m in d.required[s].items():
                    m = min(m, left[f])
                    if m > 0:
                        left[f] -= m
                        items += [(mask & self._static(f, level) or mask, f)] * m
        nodouble = self._no_doubles(level)
        dyn = set().union(*nodouble) if nodouble else set()
        free: list[int] = []
        full = self.full
        for f, m in left.items():
            if m <= 0:
                continue
            mask = self._static(f, level) if level < 3 else full
            if mask == full and f not in dyn:
                free += [f] * m
            else:
                items += [(mask, f)] * m
        return items, free, nodouble

    def _no_doubles(self, level: int) -> list[set[int]]:
        """Per region, the faces it may hold once but not twice (no pair above a height),
        at relaxation ``level`` 0 (and -1, with find-a-friend's limits of one copy)."""
        nodouble: list[set[int]] = [set() for _ in range(self.places.count)]
        if level < 0:
            for r, limits in enumerate(self.limits):
                nodouble[r].update(f for f, most in limits.items() if most == 1)
        ladder = self.ladder
        if level > 0 or ladder is None:
            return nodouble
        order = ladder.order
        nopair = self.deductions.nopair
        for i, s in enumerate(self.places.seats):
            if s >= 0 and nopair[s]:
                for suit, thr in nopair[s].items():
                    nodouble[i].update(f for f in ladder.faces_of[suit] if order[f] > thr)
        return nodouble

    def _static(self, f: int, level: int) -> int:
        """Regions that may hold face ``f`` under voids (and throws below ``level`` 2, and
        find-a-friend's limits of no copy at ``level`` -1)."""
        mask = self.full
        if level < 0:
            for r, limits in enumerate(self.limits):
                if limits.get(f, 1) == 0:
                    mask &= ~(1 << r)
        if self.ladder is None:
            return mask
        suit = self.ladder.esuit[f]
        d = self.deductions
        for s, b in self.bit.items():
            if suit in d.voids[s] or (level < 2 and f in d.forbidden[s]):
                mask &= ~b
        return mask

    # --- the assignment ---------------------------------------------------------------------

    def _assign(self, rng: random.Random, level: int, exact: bool = False,
                weighted: bool = False) -> list[list[int]] | None:
        """One random assignment of the hidden cards to the regions, or None at a dead end.

        Constrained cards go first, the most constrained first, each to an allowed region
        with probability in proportion to the room left there; the free cards then fill
        what is left. ``exact`` also keeps Hall's condition (every set of regions has room
        for the cards that may only go there) after each card, so only the pair
        constraints can still lead to a dead end; it costs about 2**regions steps a card,
        so it is the fallback after a few plain tries. ``weighted`` (see `_weighted`) is
        used after the burial by the seats that did not bury."""
        items, free, nodouble = self._items(level)
        if weighted and self.bury_odds is not None:
            return self._weighted(rng, items, free, nodouble)
        count = self.places.count
        cap = list(self.places.caps)
        out: list[list[int]] = [[] for _ in range(count)]
        if items:
            rng.shuffle(items)
            items.sort(key=_constraint_rank)
            slack: list[int] = []
            if exact:
                slack = self._slack(items, len(free), cap)
                if min(slack) < 0:
                    return None
            subsets = range(1 << count)
            for mask, f in items:
                total = 0
                choices = []
                for r in _regions_of(mask):
                    c = cap[r]
                    if c and not (f in nodouble[r] and f in out[r]):
                        if exact and any(slack[t] == 0 for t in subsets
                                         if t >> r & 1 and mask & ~t):
                            continue
                        total += c
                        choices.append(r)
                if not total:
                    return None
                pick = _by_capacity(rng, choices, cap, total)
                out[pick].append(f)
                cap[pick] -= 1
                if exact:
                    for t in subsets:
                        if t >> pick & 1 and mask & ~t:
                            slack[t] -= 1
        rng.shuffle(free)
        i = 0
        for r in range(count):
            c = cap[r]
            if c:
                out[r] += free[i:i + c]
                i += c
        return out

    def _weighted(self, rng: random.Random, items: list[Item], free: list[int],
                  nodouble: list[set[int]]) -> list[list[int]] | None:
        """The burial X first, as a weighted draw without replacement: each card gets a key
        ``u ** (1 / odds)`` (`bury_odds`: a starter buries low cards of short suits,
        hardly ever trumps or aces) and the cards with the largest keys go to X, skipping
        any whose burial would leave the other cards no room. Then the rest as usual, the
        most constrained first. Hall's condition is tracked throughout (the sets of regions
        left with no slack), so only the pair constraints can dead-end."""
        odds = self.bury_odds
        assert odds is not None
        x = self.places.stock
        xb = 1 << x
        cards = items + [(self.full, f) for f in free]
        cap = list(self.places.caps)
        slack = self._slack(cards, 0, cap)
        if min(slack) < 0:
            return None
        subsets = range(1 << self.places.count)
        tight = [t for t in subsets if slack[t] == 0]
        out: list[list[int]] = [[] for _ in range(self.places.count)]

        def place(mask: int, f: int, r: int) -> None:
            out[r].append(f)
            cap[r] -= 1
            for t in subsets:
                if t >> r & 1 and mask & ~t:
                    slack[t] -= 1
                    if slack[t] == 0:
                        tight.append(t)

        keyed = sorted(((rng.random() ** (1.0 / odds[f]), mask, f) for mask, f in cards
                        if mask & xb), reverse=True)
        rest = [(mask, f) for mask, f in cards if not mask & xb]
        for i, (_, mask, f) in enumerate(keyed):
            if not cap[x]:
                rest += [(m, g) for _, m, g in keyed[i:]]
                break
            if any(t & xb and mask & ~t for t in tight):
                rest.append((mask, f))
                continue
            place(mask, f, x)
        rng.shuffle(rest)
        rest.sort(key=_constraint_rank)
        for mask, f in rest:
            total = 0
            choices: list[int] = []
            for r in _regions_of(mask):
                c = cap[r]
                if not c or (f in nodouble[r] and f in out[r]):
                    continue
                if tight and any(t >> r & 1 and mask & ~t for t in tight):
                    continue
                total += c
                choices.append(r)
            if not choices:
                return None
            place(mask, f, _by_capacity(rng, choices, cap, total))
        return out

    def _slack(self, items: list[Item], free: int, cap: list[int]) -> list[int]:
        """Per set of regions (a bit mask): room there minus the cards that may only go
        there. Hall's condition: the cards fit iff no slack is negative."""
        demand = Counter(m for m, _ in items)
        demand[self.full] += free
        count = self.places.count
        out = []
        for t in range(1 << count):
            room = sum(cap[r] for r in range(count) if t >> r & 1)
            out.append(room - sum(c for m, c in demand.items() if not m & ~t))
        return out


def friend_limits(obs: Observation, places: HiddenPlaces) -> list[dict[int, int]]:
    """Per region, find-a-friend's soft limits: the most copies of a called card the
    starter's hand holds (`tractor.ai.players.friend_belief.starter_limits`), and none in
    the buried cards a seat did not see (a starter keeps the cards it calls)."""
    out: list[dict[int, int]] = [{} for _ in range(places.count)]
    starter = obs.starter
    if not obs.calls or starter is None or starter == obs.seat:
        return out
    if starter in places.seats:
        out[places.seats.index(starter)] = starter_limits(obs)
    if places.stock >= 0 and obs.phase in BURIED:
        out[places.stock] = {c.face: 0 for c in obs.calls}
    return out


#: Relative odds that a plain card of each rank (2..A) is among the buried cards: a
#: starter keeps its top cards and points and buries low cards of short suits.
_BURY_ODDS = (1.5, 1.5, 1.5, 0.35, 1.5, 1.5, 1.4, 1.2, 0.1, 0.8, 0.6, 0.08, 0.03)


def bury_odds(f: int, ladder: Ladder) -> float:
    """How likely (relatively) face ``f`` was buried: trumps hardly ever are."""
    if ladder.esuit[f] == TRUMP:
        return 0.02
    return _BURY_ODDS[f % 13]


def _by_capacity(rng: random.Random, choices: list[int], cap: list[int], total: int) -> int:
    """One of ``choices`` (regions), with a chance proportional to its free places
    (``total`` is their sum)."""
    x = rng.randrange(total)
    for r in choices:
        x -= cap[r]
        if x < 0:
            return r
    return choices[-1]


_POPCOUNT = [i.bit_count() for i in range(4096)]
_REGIONS: dict[int, tuple[int, ...]] = {}


def _constraint_rank(item: Item) -> int:
    """How many regions a card may go to: the fewer, the sooner it is placed."""
    mask = item[0]
    return _POPCOUNT[mask] if mask < 4096 else mask.bit_count()


def _regions_of(mask: int) -> tuple[int, ...]:
    got = _REGIONS.get(mask)
    if got is None:
        got = _REGIONS[mask] = tuple(i for i in range(mask.bit_length()) if mask >> i & 1)
    return got
