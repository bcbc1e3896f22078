"""What one seat knows about a hand, and random worlds consistent with it.

Search plays in *sampled worlds* (determinization): the cards a seat cannot see are dealt at
random, subject to everything the seat can deduce, and the resulting omniscient `Hand` is
played out. `Knowledge` is the seat's side of that: the seat's typed observation
(`tractor.observation.Observation`), from the real hand (`Knowledge.from_hand`, which is
`Hand.observe`) or from the peers' table (`Knowledge.from_observation`); both give equal
knowledge. A sampled world is the rules core's own: the public state rebuilt from the
observation (`PublicHand.from_observation`) and a full hand made of it with the sampled
hidden cards (`Hand.from_public`).

Deductions used (all sound: the real deal always satisfies them):

- a follower that did not follow the lead's effective suit with every card is void in it;
- a follower that followed a lead with pairs with fewer pairs than the lead has no pair
  left in that suit (it either ran out of the suit or played every pair it had);
- a throw that stood (or the components of a failed throw that were not the one forced)
  shows that no other seat held a higher single (or a higher pair) in that suit then;
  hands only shrink during play, so it still holds;
- declared and shown cards stay in the declarer's hand until played (the starter may also
  have buried them), and the talon cards turned over went into the starter's hand.

Beyond these hard constraints one soft belief is used: a starter buries low cards of short
suits and hardly ever trumps, aces or points, so (by default) the buried cards a seat did
not see are drawn with those odds; uniform buried cards would put a fair share of the
trumps and points there and mislead the search about the talon bonus and the trumps out.

Sampling never fails: the hard constraints are kept by a sequential assignment that tracks
Hall's condition; should they ever be contradictory (they cannot be for a real deal), they
are relaxed one kind at a time (`Knowledge.stats` counts it).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from tractor.formats import PAIR, SINGLE, THROW, classify_faces
from tractor.hand import (
    BID,
    DEAL,
    DECLARE,
    DONE,
    NAME,
    PLAY,
    REDEAL,
    SHOW,
    TALON,
    Hand,
)
from tractor.observation import Observation
from tractor.public import PublicHand
from tractor.rules import Rules
from tractor.trick import forced_order
from tractor.trump import TRUMP, Ladder

#: Phases in which every card is drawn and the talon still lies apart, unseen by anyone.
TALON_APART = (DECLARE, BID, SHOW, NAME, REDEAL)
#: Phases after the starter took the talon into hand.
TALON_TAKEN = (TALON, PLAY, DONE)


@dataclass(frozen=True)
class SeatFacts:
    """What one seat's observation proves about another seat's hand now: the deductions
    sampling keeps (see the module's list), in a form a screen can show. Effective suits
    are the hand's (`tractor.trump.TRUMP` for trumps); with no trump known yet only
    ``held`` can be non-empty. Only what holds *now* is listed: played cards are gone
    from ``held``, and voids, missing pairs and ceilings never stop holding.
    """

    #: Cards known to be in the hand (declared, shown in the auction, the talon turned
    #: over into the starter's hand, shown in a failed throw and taken back), played ones
    #: taken out; sorted by face.
    held: tuple[int, ...] = ()
    #: The seat is a starter whose burial this seat did not see: the ``held`` cards (but
    #: those of ``taken_back``) are in its hand or among the buried.
    held_or_buried: bool = False
    #: Of ``held``, the cards a failed throw of the seat showed and took back.
    taken_back: tuple[int, ...] = ()
    #: Effective suit -> the trick (1 for the first) in which the seat showed out of it.
    voids: Mapping[int, int] = field(default_factory=dict)
    #: Effective suit -> None (no pair at all in it) or a face (no pair above that card).
    no_pair: Mapping[int, int | None] = field(default_factory=dict)
    #: Effective suit -> a face: no card above it (a throw of it stood against the seat).
    nothing_above: Mapping[int, int] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.held or self.voids or self.no_pair or self.nothing_above)


@dataclass(frozen=True)
class Knowledge:
    """Everything one seat knows about a hand: its observation (``obs``) under the hand's
    ``rules`` (compare two with ``==``)."""

    rules: Rules
    obs: Observation
    #: Sampling statistics (not part of the knowledge): samples drawn and how many needed
    #: a constraint relaxed.
    stats: Counter = field(default_factory=Counter, compare=False, repr=False)

    # --- construction ----------------------------------------------------------------------

    @classmethod
    def from_hand(cls, hand: Hand, seat: int) -> Knowledge:
        """What ``seat`` may know of the real hand (never another seat's cards)."""
        return cls(hand.rules, hand.observe(seat))

    @classmethod
    def from_observation(cls, rules: Rules, obs: Observation) -> Knowledge:
        """Knowledge from a seat's observation (`Hand.observe`, or the peers' table's: what
        a network peer has). A `Game`'s record in it is left out: it tells nothing more
        about this hand's cards."""
        return cls(rules, replace(obs, game=None) if obs.game is not None else obs)

    # --- derived facts ----------------------------------------------------------------------

    @cached_property
    def ladder(self) -> Ladder | None:
        r, trump = self.rules, self.obs.trump
        return (trump.ladder(r.tractor_across_rank, r.rank_and_jokers_in_tractors)
                if trump is not None else None)

    @cached_property
    def played(self) -> list[list[int]]:
        """Cards each seat has played (tricks and the current trick), in order."""
        n = self.rules.players
        o = self.obs
        out: list[list[int]] = [[] for _ in range(n)]
        for t in o.tricks:
            for i, p in enumerate(t.plays):
                out[(t.leader + i) % n].extend(p)
        for i, p in enumerate(o.current):
            out[(o.leader + i) % n].extend(p)
        return out

    @cached_property
    def unseen(self) -> Counter:
        """Cards the seat has not seen: not in its hand, not played, not known buried."""
        o = self.obs
        left = Counter({f: self.rules.decks for f in range(54)})
        left.subtract(o.hand)
        for p in self.played:
            left.subtract(p)
        if o.buried is not None and o.phase in (PLAY, DONE):
            left.subtract(o.buried)
        return +left

    @cached_property
    def _model(self) -> _Model:
        return _Model(self)

    def voids(self, seat: int) -> frozenset[int]:
        """Effective suits ``seat`` is known to be void in."""
        return frozenset(self._model.voids[seat])

    def public_facts(self) -> tuple[SeatFacts, ...]:
        """Per seat (this one included), what this seat's observation proves about that
        hand: the deductions `sample` keeps, for the screens' tracker, so they are made in
        one place. Never more than this seat may know: it reads only the observation."""
        m = self._model
        o = self.obs
        ladder = self.ladder
        out = []
        for s in range(m.n):
            no_pair: dict[int, int | None] = {}
            for suit, thr in m.nopair[s].items():
                no_pair[suit] = None if thr < 0 or ladder is None else _face_at(ladder, suit, thr)
            hidden_burial = (s == o.starter and o.phase in (PLAY, DONE) and o.buried is None)
            out.append(SeatFacts(
                held=tuple(sorted(m.required[s].elements())),
                # What a failed throw took back came after the burial: not buried.
                held_or_buried=hidden_burial and bool(m.required[s] - m.taken_back[s]),
                taken_back=tuple(sorted(m.taken_back[s].elements())),
                voids=dict(sorted(m.void_since[s].items())),
                no_pair=dict(sorted(no_pair.items())),
                nothing_above=dict(sorted(m.ceiling[s].items()))))
        return tuple(out)

    def violations(self, world: Hand) -> list[str]:
        """Constraints a complete world breaks (empty for the real hand and for samples that
        needed no relaxing); for tests and debugging."""
        return self._model.violations(world)

    # --- sampling ---------------------------------------------------------------------------

    def sample(self, rng: random.Random, weighted: bool = True) -> Hand:
        """A full omniscient `Hand` at this very point of the hand whose hidden cards are a
        random assignment consistent with everything known. ``weighted``: the buried cards
        (unseen by this seat) are drawn with the odds of a sensible burial rather than
        uniformly (see `_bury_odds`); either way every constraint holds."""
        return self._model.sample(rng, weighted)


class _Model:
    """The constraint model of one `Knowledge` and the sampler over it (built once)."""

    def __init__(self, k: Knowledge) -> None:
        self.k = k
        o = k.obs
        rules = k.rules
        n = rules.players
        self.n = n
        phase = o.phase
        me = o.seat
        ladder = k.ladder
        # Regions: the other seats' hands, then X: the unseen stock (deal: the undrawn
        # deck; before the talon is taken: the talon; after: the buried cards).
        if phase == DEAL:
            x_cap = rules.total_cards - o.cards_dealt
        elif phase in TALON_APART:
            x_cap = rules.talon_size
        elif phase in (PLAY, DONE) and o.buried is None:
            x_cap = rules.talon_size
        else:
            x_cap = 0
        self.region_seat: list[int] = [s for s in range(n) if s != me and o.hand_sizes[s]]
        self.cap0 = [o.hand_sizes[s] for s in self.region_seat]
        self.x = -1
        if x_cap:
            self.x = len(self.region_seat)
            self.region_seat.append(-1)
            self.cap0.append(x_cap)
        self.R = len(self.region_seat)
        self.full = (1 << self.R) - 1
        self.bit = {s: 1 << i for i, s in enumerate(self.region_seat) if s >= 0}
        self.hidden = k.unseen
        if sum(self.hidden.values()) != sum(self.cap0):
            raise ValueError("inconsistent knowledge: hidden cards do not fill the hidden "
                             "places")
        # Deductions from play.
        self.voids: list[set[int]] = [set() for _ in range(n)]
        self.forbidden: list[set[int]] = [set() for _ in range(n)]
        self.nopair: list[dict[int, int]] = [{} for _ in range(n)]
        #: For the screens (`Knowledge.public_facts`): per seat, the trick number of each
        #: void's first show, and per suit the lowest single of a throw that stood against
        #: it (``forbidden`` holds every card above it).
        self.void_since: list[dict[int, int]] = [{} for _ in range(n)]
        self.ceiling: list[dict[int, int]] = [{} for _ in range(n)]
        if ladder is not None:
            for i, t in enumerate(o.tricks, 1):
                self._learn(t.leader, list(t.plays), t.attempted, ladder, i)
            if o.current:
                self._learn(o.leader, list(o.current), o.current_attempt, ladder,
                            len(o.tricks) + 1)
        # Cards known to be in a seat's hand (declared, shown, the turned talon).
        self.required: list[Counter] = [Counter() for _ in range(n)]
        for s, faces in [*o.declarations, *((s, (f,)) for s, f in o.shown)]:
            c = Counter(faces)
            for f, m in c.items():
                self.required[s][f] = max(self.required[s][f], m)
        if o.starter is not None and phase in TALON_TAKEN:
            self.required[o.starter].update(o.talon_revealed)
        for s in range(n):
            self.required[s].subtract(k.played[s])
            if s == o.starter and o.buried is not None:
                self.required[s].subtract(o.buried)
            self.required[s] = +self.required[s]
        # A failed throw shows its cards, and those not led go back to the thrower's hand:
        # they stay there until played (later than the throw).
        self.taken_back: list[Counter] = [Counter() for _ in range(n)]
        tricks = [(t.leader, t.plays, t.attempted) for t in o.tricks]
        if o.current:
            tricks.append((o.leader, tuple(o.current), o.current_attempt))
        for i, (leader, plays, attempted) in enumerate(tricks):
            if attempted is None or not plays:
                continue
            back = Counter(attempted) - Counter(plays[0])
            for later_leader, later_plays, _ in tricks[i + 1:]:
                place = (leader - later_leader) % n
                if place < len(later_plays):
                    back -= Counter(later_plays[place])
            for f, m in back.items():
                self.taken_back[leader][f] = max(self.taken_back[leader][f], m)
                self.required[leader][f] = max(self.required[leader][f], m)
        self.stats = k.stats
        self._template: PublicHand | None = None
        #: Per face, the relative odds that it was buried (None: X is not the burial).
        self.bury_odds: list[float] | None = None
        if self.x >= 0 and phase in (PLAY, DONE) and ladder is not None:
            self.bury_odds = [_bury_odds(f, ladder) for f in range(54)]

    def _learn(self, leader: int, plays: list[tuple[int, ...]],
               attempted: tuple[int, ...] | None, ladder: Ladder, number: int) -> None:
        """Deductions from one trick (finished or not; ``number``: 1 for the first)."""
        n = self.n
        lead = classify_faces(list(plays[0]), ladder)
        es = ladder.esuit
        suit = lead.esuit
        for i in range(1, len(plays)):
            seat = (leader + i) % n
            play = plays[i]
            if any(es[f] != suit for f in play):
                self.voids[seat].add(suit)
                self.void_since[seat].setdefault(suit, number)
            elif lead.pairs and _count_pairs(play) < lead.pairs:
                self.nopair[seat][suit] = -1
        # What a throw that stood shows about the other hands.
        seats = [o for o in range(n) if o != leader]
        if attempted is not None:
            tried = classify_faces(list(attempted), ladder)
            forced = lead.components[0]
            key = forced_order(forced)
            stood = [c for c in tried.components if forced_order(c) < key]
            if self.k.rules.throw_forced == "first_claimant":
                # Only the first claimant's claims chose the forced part: a lower component
                # stood against it and the seats before it, of which only the seat after the
                # thrower is sure to be one.
                seats = [(leader + 1) % n]
        elif lead.kind == THROW:
            stood = list(lead.components)
        else:
            return
        order = ladder.order
        for c in stood:
            if c.kind == SINGLE:
                above = {f for f in ladder.faces_of[suit] if order[f] > c.top}
                for o in seats:
                    self.forbidden[o] |= above
                    low = self.ceiling[o].get(suit)
                    if low is None or order[low] > c.top:
                        self.ceiling[o][suit] = c.faces[0]
            elif c.kind == PAIR:
                for o in seats:
                    d = self.nopair[o]
                    d[suit] = min(d.get(suit, c.top), c.top)

    # --- the assignment ---------------------------------------------------------------------

    def _items(self, level: int) -> tuple[list[tuple[int, int]], list[int], list[set[int]]]:
        """(constrained cards as (mask, face), unconstrained faces, per-region faces that must
        not be doubled) under relaxation ``level`` (0: every constraint; 1: no pair
        constraints; 2: no throw constraints either; 3: no voids; 4: only sizes)."""
        k = self.k
        o = k.obs
        ladder = k.ladder
        es = ladder.esuit if ladder is not None else None
        order = ladder.order if ladder is not None else None
        left = Counter(self.hidden)
        items: list[tuple[int, int]] = []
        x_bit = (1 << self.x) if self.x >= 0 else 0
        if level < 4:
            for s in range(self.n):
                mask = self.bit.get(s, 0)
                if s == o.starter and o.phase in (PLAY, DONE):
                    mask |= x_bit  # the starter may have buried it
                if not mask:
                    continue
                for f, m in self.required[s].items():
                    m = min(m, left[f])
                    if m > 0:
                        left[f] -= m
                        items += [(mask & self._static(f, level) or mask, f)] * m
        nodouble: list[set[int]] = [set() for _ in range(self.R)]
        if level == 0 and es is not None and order is not None:
            for i, s in enumerate(self.region_seat):
                if s >= 0 and self.nopair[s]:
                    for suit, thr in self.nopair[s].items():
                        nodouble[i].update(f for f in ladder.faces_of[suit] if order[f] > thr)
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

    def _static(self, f: int, level: int) -> int:
        """Regions that may hold face ``f`` under voids (and throws below ``level`` 2)."""
        mask = self.full
        if self.k.ladder is None:
            return mask
        suit = self.k.ladder.esuit[f]
        for s, b in self.bit.items():
            if suit in self.voids[s] or (level < 2 and f in self.forbidden[s]):
                mask &= ~b
        return mask

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
        cap = list(self.cap0)
        out: list[list[int]] = [[] for _ in range(self.R)]
        if items:
            rng.shuffle(items)
            items.sort(key=lambda it: _POPCOUNT[it[0]] if it[0] < 4096 else it[0].bit_count())
            regions = _regions_of
            slack: list[int] = []
            if exact:
                slack = self._slack(items, len(free), cap)
                if min(slack) < 0:
                    return None
            subsets = range(1 << self.R)
            for mask, f in items:
                total = 0
                choices = []
                for r in regions(mask):
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
        for r in range(self.R):
            c = cap[r]
            if c:
                out[r] += free[i:i + c]
                i += c
        return out

    def _weighted(self, rng: random.Random, items: list[tuple[int, int]], free: list[int],
                  nodouble: list[set[int]]) -> list[list[int]] | None:
        """The burial X first, as a weighted draw without replacement: each card gets a key
        ``u ** (1 / odds)`` (`_bury_odds`: a starter buries low cards of short suits,
        hardly ever trumps or aces) and the cards with the largest keys go to X, skipping
        any whose burial would leave the other cards no room. Then the rest as usual, the
        most constrained first. Hall's condition is tracked throughout (the sets of regions
        left with no slack), so only the pair constraints can dead-end."""
        odds = self.bury_odds
        assert odds is not None
        x = self.x
        xb = 1 << x
        cards = items + [(self.full, f) for f in free]
        cap = list(self.cap0)
        slack = self._slack(cards, 0, cap)
        if min(slack) < 0:
            return None
        subsets = range(1 << self.R)
        tight = [t for t in subsets if slack[t] == 0]
        out: list[list[int]] = [[] for _ in range(self.R)]

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
        rest.sort(key=lambda it: _POPCOUNT[it[0]] if it[0] < 4096 else it[0].bit_count())
        regions = _regions_of
        for mask, f in rest:
            total = 0
            choices: list[int] = []
            for r in regions(mask):
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

    def _slack(self, items: list[tuple[int, int]], free: int, cap: list[int]) -> list[int]:
        """Per set of regions (a bit mask): room there minus the cards that may only go
        there. Hall's condition: the cards fit iff no slack is negative."""
        demand = Counter(m for m, _ in items)
        demand[self.full] += free
        out = []
        for t in range(1 << self.R):
            room = sum(cap[r] for r in range(self.R) if t >> r & 1)
            out.append(room - sum(c for m, c in demand.items() if not m & ~t))
        return out

    def sample(self, rng: random.Random, weighted: bool = True) -> Hand:
        self.stats["samples"] += 1
        plan = [(0, False, True)] * (8 if weighted and self.bury_odds is not None else 0)
        for level in range(4):
            plan += [(level, False, False)] * 8 + [(level, True, False)] * 8
        plan.append((4, False, False))
        for level, exact, weigh in plan:
            got = self._assign(rng, level, exact, weigh)
            if got is not None:
                if level:
                    self.stats[f"relaxed{level}"] += 1
                return self._world(got, rng)
        raise AssertionError("unreachable: level 4 always succeeds")

    # --- building the Hand ------------------------------------------------------------------

    def _world(self, regions: list[list[int]], rng: random.Random) -> Hand:
        """The world of one assignment: the rules core's `Hand.from_public` on the public
        state rebuilt once from the observation (`PublicHand.from_observation`), with the
        hidden cards (hands, talon, buried, the deck's order) filled in. Replaying the
        hand's actions through `Hand.apply` is impossible (the order of draws and
        declarations, other seats' burials and the deck are not known) and far too slow
        for search (about 100 checked actions per sample)."""
        k = self.k
        o = k.obs
        rules = k.rules
        n = self.n
        hands: list[list[int]] = [[] for _ in range(n)]
        hands[o.seat] = list(o.hand)
        x_cards: list[int] = []
        for i, s in enumerate(self.region_seat):
            if s >= 0:
                hands[s] = regions[i]
            else:
                x_cards = regions[i]
        phase = o.phase
        st = o.starter
        # Talon and buried.
        if phase in TALON_TAKEN:
            if o.buried is not None:
                buried = list(o.buried)
            elif phase == TALON:
                buried = []
            else:
                buried = x_cards
            if o.talon is not None:
                talon = list(o.talon)
            else:
                assert st is not None
                pool = Counter(hands[st])
                pool.update(k.played[st])
                pool.update(buried)
                pool.subtract(o.talon_revealed)
                # Declared cards were dealt, so they are not in the talon.
                for s, faces in o.declarations:
                    if s == st:
                        pool.subtract(faces)
                rest = list((+pool).elements())
                need = rules.talon_size - len(o.talon_revealed)
                talon = list(o.talon_revealed) + rng.sample(rest, min(need, len(rest)))
                if len(talon) < rules.talon_size:  # only after a relaxed sample
                    extra = Counter(hands[st]) + Counter(k.played[st]) + Counter(buried)
                    extra.subtract(talon)
                    talon += rng.sample(list((+extra).elements()),
                                        rules.talon_size - len(talon))
        elif phase in TALON_APART:
            talon, buried = x_cards, []
        else:
            talon, buried = [], []
        # The deck: what each seat drew, in drawing order, then the undrawn cards or talon.
        drawn = o.cards_dealt
        if phase == DEAL:
            dealt = hands
            tail = x_cards
        else:
            dealt = []
            for s in range(n):
                d = hands[s] + k.played[s]
                if s == st and phase in TALON_TAKEN:
                    c = Counter(d)
                    c.update(buried)
                    c.subtract(talon)
                    d = list((+c).elements())
                dealt.append(d)
            tail = talon
        first = o.first
        deck = [dealt[(first + i) % n][i // n] for i in range(drawn)]
        deck += tail
        return Hand.from_public(self._base(), hands, talon, buried, deck)

    def _base(self) -> PublicHand:
        """The public part of the world, built once from the observation."""
        if self._template is None:
            self._template = PublicHand.from_observation(self.k.rules, self.k.obs)
        return self._template

    # --- checking ---------------------------------------------------------------------------

    def violations(self, w: Hand) -> list[str]:
        k = self.k
        o = k.obs
        out: list[str] = []
        own = w.ladder.sort_faces(w.hands[o.seat]) if w.ladder else sorted(w.hands[o.seat])
        if tuple(own) != o.hand:
            out.append("own hand differs")
        if tuple(len(x) for x in w.hands) != o.hand_sizes:
            out.append("hand sizes differ")
        ladder = k.ladder
        for s in range(self.n):
            if s == o.seat:
                continue
            held = Counter(w.hands[s])
            where = held + Counter(w.buried) if s == o.starter and o.phase in (PLAY, DONE) \
                else held
            for f, m in self.required[s].items():
                if where[f] < m:
                    out.append(f"seat {s} lacks a declared or shown card {f}")
            if ladder is None:
                continue
            for f, m in held.items():
                suit = ladder.esuit[f]
                if suit in self.voids[s]:
                    out.append(f"seat {s} holds {f} in a void suit")
                if f in self.forbidden[s]:
                    out.append(f"seat {s} holds {f}, above a throw that stood")
                thr = self.nopair[s].get(suit)
                if thr is not None and m >= 2 and ladder.order[f] > thr:
                    out.append(f"seat {s} holds a pair of {f} it cannot have")
        return out


#: Relative odds that a plain card of each rank (2..A) is among the buried cards: a
#: starter keeps its top cards and points and buries low cards of short suits.
_BURY_ODDS = (1.5, 1.5, 1.5, 0.35, 1.5, 1.5, 1.4, 1.2, 0.1, 0.8, 0.6, 0.08, 0.03)


def _bury_odds(f: int, ladder: Ladder) -> float:
    """How likely (relatively) face ``f`` was buried: trumps hardly ever are."""
    if ladder.esuit[f] == TRUMP:
        return 0.02
    return _BURY_ODDS[f % 13]


def _face_at(ladder: Ladder, suit: int, order: int) -> int:
    """A card of effective suit ``suit`` at strength ``order`` (off-suit rank cards share
    one: any of them reads the same in "no pair above it")."""
    return next(f for f in ladder.faces_of[suit] if ladder.order[f] == order)


def _by_capacity(rng: random.Random, choices: list[int], cap: list[int], total: int) -> int:
    """One of ``choices`` (regions), with a chance proportional to its free places
    (``total`` is their sum)."""
    x = rng.randrange(total)
    for r in choices:
        x -= cap[r]
        if x < 0:
            return r
    return choices[-1]


def _count_pairs(faces: Sequence[int]) -> int:
    c: dict[int, int] = {}
    for f in faces:
        c[f] = c.get(f, 0) + 1
    return sum(m // 2 for m in c.values())


_POPCOUNT = [i.bit_count() for i in range(4096)]
_REGIONS: dict[int, tuple[int, ...]] = {}


def _regions_of(mask: int) -> tuple[int, ...]:
    got = _REGIONS.get(mask)
    if got is None:
        got = _REGIONS[mask] = tuple(i for i in range(mask.bit_length()) if mask >> i & 1)
    return got
