"""What one seat's observation proves about the other hands: the hard constraints a
sampled world keeps (`tractor.ai.players.sampler`) and the screens' tracker shows.

Deductions used (all sound: the real deal always satisfies them):

- a follower that did not follow the lead's effective suit with every card is void in it;
- a follower that followed a lead with pairs with fewer pairs than the lead has no pair
  left in that suit (it either ran out of the suit or played every pair it had);
- a throw that stood (or the components of a failed throw that were not the one forced)
  shows that no other seat held a higher single (or a higher pair) in that suit then;
  hands only shrink during play, so it still holds;
- declared and shown cards stay in the declarer's hand until played (the starter may also
  have buried them), and the talon cards turned over went into the starter's hand;
- the cards of a failed throw that were not led went back to the thrower's hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tractor.ai.players.hidden_places import BURIED, TALON_TAKEN
from tractor.formats import PAIR, SINGLE, THROW, Component, classify_faces
from tractor.hand import Hand
from tractor.observation import Observation
from tractor.rules import Rules
from tractor.trick import forced_order
from tractor.trump import Ladder

#: A trick as deductions read it: (leader, plays in order, the failed throw it tried).
TrickSeen = tuple[int, Sequence[tuple[int, ...]], tuple[int, ...] | None]


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


class Deductions:
    """The deductions of one observation, per seat (built once; read by the sampler).

    ``voids[s]``: effective suits ``s`` lacks; ``forbidden[s]``: faces it cannot hold (a
    throw stood against it); ``nopair[s]``: suit -> the order above which it holds no
    pair (-1: no pair at all); ``required[s]``: cards it surely holds (or, for a starter
    whose burial the seat did not see, holds or buried); ``taken_back[s]``: the part of
    ``required`` a failed throw gave back. For the screens also ``void_since[s]`` (suit ->
    the trick that showed the void) and ``ceiling[s]`` (suit -> the lowest single of a
    throw that stood against it)."""

    def __init__(self, rules: Rules, obs: Observation, ladder: Ladder | None,
                 played: Sequence[Sequence[int]]) -> None:
        self.rules = rules
        self.obs = obs
        self.ladder = ladder
        n = self.n = rules.players
        self.voids: list[set[int]] = [set() for _ in range(n)]
        self.forbidden: list[set[int]] = [set() for _ in range(n)]
        self.nopair: list[dict[int, int]] = [{} for _ in range(n)]
        self.void_since: list[dict[int, int]] = [{} for _ in range(n)]
        self.ceiling: list[dict[int, int]] = [{} for _ in range(n)]
        tricks = self._tricks()
        if ladder is not None:
            for number, (leader, plays, attempted) in enumerate(tricks, 1):
                self._learn_follows(leader, plays, ladder, number)
                self._learn_throw(leader, plays, attempted, ladder)
        self.required = self._shown_cards(played)
        self.taken_back = self._taken_back(tricks)

    def _tricks(self) -> list[TrickSeen]:
        """The finished tricks and the current one (when begun), in order."""
        o = self.obs
        tricks: list[TrickSeen] = [(t.leader, t.plays, t.attempted) for t in o.tricks]
        if o.current:
            tricks.append((o.leader, tuple(o.current), o.current_attempt))
        return tricks

    # --- from the tricks ------------------------------------------------------------------

    def _learn_follows(self, leader: int, plays: Sequence[tuple[int, ...]], ladder: Ladder,
                       number: int) -> None:
        """Voids and missing pairs shown by the followers of one trick (``number``: 1 for
        the first)."""
        lead = classify_faces(list(plays[0]), ladder)
        es = ladder.esuit
        suit = lead.esuit
        for i in range(1, len(plays)):
            seat = (leader + i) % self.n
            play = plays[i]
            if any(es[f] != suit for f in play):
                self.voids[seat].add(suit)
                self.void_since[seat].setdefault(suit, number)
            elif lead.pairs and _count_pairs(play) < lead.pairs:
                self.nopair[seat][suit] = -1

    def _learn_throw(self, leader: int, plays: Sequence[tuple[int, ...]],
                     attempted: tuple[int, ...] | None, ladder: Ladder) -> None:
        """What a throw that stood (or the parts of a failed one that stood) shows about
        the other hands: no higher single, no higher pair in that suit."""
        n = self.n
        lead = classify_faces(list(plays[0]), ladder)
        seats = [o for o in range(n) if o != leader]
        if attempted is not None:
            tried = classify_faces(list(attempted), ladder)
            key = forced_order(lead.components[0])
            stood = [c for c in tried.components if forced_order(c) < key]
            if self.rules.throw_forced == "first_claimant":
                # Only the first claimant's claims chose the forced part: a lower component
                # stood against it and the seats before it, of which only the seat after the
                # thrower is sure to be one.
                seats = [(leader + 1) % n]
        elif lead.kind == THROW:
            stood = list(lead.components)
        else:
            return
        for c in stood:
            self._stood(c, lead.esuit, seats, ladder)

    def _stood(self, c: Component, suit: int, seats: list[int], ladder: Ladder) -> None:
        """Component ``c`` of suit ``suit`` stood against ``seats``."""
        order = ladder.order
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

    # --- cards known to be held -------------------------------------------------------------

    def _shown_cards(self, played: Sequence[Sequence[int]]) -> list[Counter]:
        """Cards known to be in a seat's hand: declared, shown, the talon turned over into
        the starter's hand; those played since (or buried, when known) taken out."""
        o = self.obs
        required: list[Counter] = [Counter() for _ in range(self.n)]
        # Kitty theft: a seat whose burial another took may have buried what it declared.
        robbed = {o.starter, *(t for t, _ in o.thefts)} - {o.exchanger} if o.thefts else set()
        for s, faces in [*o.declarations, *((s, (f,)) for s, f in o.shown)]:
            if s in robbed:
                continue
            for f, m in Counter(faces).items():
                required[s][f] = max(required[s][f], m)
        if o.starter is not None and o.phase in TALON_TAKEN:
            required[o.starter].update(o.talon_revealed)
        for s in range(self.n):
            required[s].subtract(played[s])
            if s == o.exchanger and o.buried is not None:
                required[s].subtract(o.buried)
            required[s] = +required[s]
        return required

    def _taken_back(self, tricks: list[TrickSeen]) -> list[Counter]:
        """A failed throw shows its cards, and those not led go back to the thrower's hand:
        they stay there until played (later than the throw). Added to ``required``."""
        n = self.n
        taken_back: list[Counter] = [Counter() for _ in range(n)]
        for i, (leader, plays, attempted) in enumerate(tricks):
            if attempted is None or not plays:
                continue
            back = Counter(attempted) - Counter(plays[0])
            for later_leader, later_plays, _ in tricks[i + 1:]:
                place = (leader - later_leader) % n
                if place < len(later_plays):
                    back -= Counter(later_plays[place])
            for f, m in back.items():
                taken_back[leader][f] = max(taken_back[leader][f], m)
                self.required[leader][f] = max(self.required[leader][f], m)
        return taken_back

    # --- reading ------------------------------------------------------------------------------

    def facts(self) -> tuple[SeatFacts, ...]:
        """Per seat (the observing one included), the deductions as a screen shows them."""
        o = self.obs
        ladder = self.ladder
        out = []
        for s in range(self.n):
            no_pair: dict[int, int | None] = {}
            for suit, thr in self.nopair[s].items():
                no_pair[suit] = None if thr < 0 or ladder is None else _face_at(ladder, suit, thr)
            hidden_burial = (s == o.exchanger and o.phase in BURIED and o.buried is None)
            out.append(SeatFacts(
                held=tuple(sorted(self.required[s].elements())),
                # What a failed throw took back came after the burial: not buried.
                held_or_buried=hidden_burial and bool(self.required[s] - self.taken_back[s]),
                taken_back=tuple(sorted(self.taken_back[s].elements())),
                voids=dict(sorted(self.void_since[s].items())),
                no_pair=dict(sorted(no_pair.items())),
                nothing_above=dict(sorted(self.ceiling[s].items()))))
        return tuple(out)

    def violations(self, w: Hand) -> list[str]:
        """Constraints a complete world breaks (empty for the real hand)."""
        o = self.obs
        out: list[str] = []
        own = w.ladder.sort_faces(w.hands[o.seat]) if w.ladder else sorted(w.hands[o.seat])
        if tuple(own) != o.hand:
            out.append("own hand differs")
        if tuple(len(x) for x in w.hands) != o.hand_sizes:
            out.append("hand sizes differ")
        for s in range(self.n):
            if s != o.seat:
                out += self._seat_violations(w, s)
        return out

    def _seat_violations(self, w: Hand, s: int) -> list[str]:
        o = self.obs
        out: list[str] = []
        held = Counter(w.hands[s])
        where = held + Counter(w.buried) if s == o.exchanger and o.phase in BURIED \
            else held
        for f, m in self.required[s].items():
            if where[f] < m:
                out.append(f"seat {s} lacks a declared or shown card {f}")
        ladder = self.ladder
        if ladder is None:
            return out
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


def _face_at(ladder: Ladder, suit: int, order: int) -> int:
    """A card of effective suit ``suit`` at strength ``order`` (off-suit rank cards share
    one: any of them reads the same in "no pair above it")."""
    return next(f for f in ladder.faces_of[suit] if ladder.order[f] == order)


def _count_pairs(faces: Sequence[int]) -> int:
    c: dict[int, int] = {}
    for f in faces:
        c[f] = c.get(f, 0) + 1
    return sum(m // 2 for m in c.values())
