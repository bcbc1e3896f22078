"""What one seat knows about a hand (`Knowledge`, its information state), and random
worlds consistent with it.

`Knowledge` is the seat's typed observation (`tractor.observation.Observation`) under the
hand's rules: from the real hand (`Knowledge.from_hand`, which is `Hand.observe`) or from
the peers' table (`Knowledge.from_observation`); both give equal knowledge. It is what a
strategy decides from (`tractor.ai.players.base`), with the rules' answers about it: the
trump ladder, the lead's format, the declarations open to the seat.

Search plays in *sampled worlds* (determinization, OpenSpiel's resampling from an
information state): `Knowledge.sample` deals the cards the seat cannot see at random,
subject to everything the seat can deduce, and returns the rules core's own full `Hand`.
The pieces, each in its own module:

- `tractor.ai.players.hidden_places`: where the hidden cards may lie, how many each place
  holds;
- `tractor.ai.players.deductions`: what the observation proves about the other hands
  (voids, missing pairs, throws that stood, cards shown): `SeatFacts` for the screens;
- `tractor.ai.players.sampler`: the random assignment that keeps those deductions;
- `tractor.ai.players.world_builder`: the full hand of one assignment.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import cached_property

from tractor.actions import Declare
from tractor.ai.players.deductions import Deductions, SeatFacts
from tractor.ai.players.hidden_places import BURIED, TALON_APART, TALON_TAKEN, HiddenPlaces
from tractor.ai.players.sampler import WorldSampler
from tractor.ai.players.world_builder import WorldBuilder
from tractor.dealing import declaration_options
from tractor.formats import Format, classify_faces
from tractor.hand import Hand
from tractor.observation import Observation
from tractor.phases import THEFT
from tractor.public import PublicHand
from tractor.rules import Rules
from tractor.trump import Ladder

__all__ = ["Knowledge", "SeatFacts", "TALON_APART", "TALON_TAKEN"]


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

    # --- what the seat sees, and the rules' answers about it -------------------------------

    @property
    def seat(self) -> int:
        return self.obs.seat

    @cached_property
    def ladder(self) -> Ladder | None:
        r, trump = self.rules, self.obs.trump
        return (trump.ladder(r.tractor_across_rank, r.rank_and_jokers_in_tractors)
                if trump is not None else None)

    @cached_property
    def lead_format(self) -> Format | None:
        """The format of the current trick's lead (None before it is led)."""
        if not self.obs.current or self.ladder is None:
            return None
        return classify_faces(list(self.obs.current[0]), self.ladder)

    @cached_property
    def public(self) -> PublicHand:
        """The public state of the hand, rebuilt by the rules core from the observation."""
        return PublicHand.from_observation(self.rules, self.obs)

    def legal_declarations(self) -> list[Declare]:
        """The declarations the seat may make now (the rules core's, from its own cards)."""
        public = self.public
        if public.phase == THEFT:  # the kitty-theft window: an overcall in turn
            if public.to_act() != self.seat:
                return []
        elif not public.declaration_open():
            return []
        standing = public.declaration[1] if public.declaration else None
        return [Declare(self.seat, f)
                for f in declaration_options(self.obs.hand, public.trump_rank(), standing)]

    # --- what the seat has seen -------------------------------------------------------------

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
        if o.buried is not None and o.phase in BURIED:
            left.subtract(o.buried)
        return +left

    # --- what it proves about the other hands -----------------------------------------------

    @cached_property
    def places(self) -> HiddenPlaces:
        """Where the unseen cards may lie."""
        return HiddenPlaces.of(self.rules, self.obs)

    @cached_property
    def deductions(self) -> Deductions:
        """What the observation proves about each hand (raises ValueError when the
        observation is impossible: its unseen cards do not fill the hidden places)."""
        if sum(self.unseen.values()) != self.places.room:
            raise ValueError("inconsistent knowledge: hidden cards do not fill the hidden "
                             "places")
        return Deductions(self.rules, self.obs, self.ladder, self.played)

    def voids(self, seat: int) -> frozenset[int]:
        """Effective suits ``seat`` is known to be void in."""
        return frozenset(self.deductions.voids[seat])

    def public_facts(self) -> tuple[SeatFacts, ...]:
        """Per seat (this one included), what this seat's observation proves about that
        hand: the deductions `sample` keeps, for the screens' tracker, so they are made in
        one place. Never more than this seat may know: it reads only the observation."""
        return self.deductions.facts()

    def violations(self, world: Hand) -> list[str]:
        """Constraints a complete world breaks (empty for the real hand and for samples that
        needed no relaxing); for tests and debugging."""
        return self.deductions.violations(world)

    # --- sampling ---------------------------------------------------------------------------

    @cached_property
    def sampler(self) -> WorldSampler:
        builder = WorldBuilder(self.rules, self.obs, self.played, self.places, self.public)
        return WorldSampler(self.obs, self.ladder, self.unseen, self.deductions, self.places,
                            builder, self.stats)

    def sample(self, rng: random.Random, weighted: bool = True) -> Hand:
        """A full omniscient `Hand` at this very point of the hand whose hidden cards are a
        random assignment consistent with everything known. ``weighted``: the buried cards
        (unseen by this seat) are drawn with the odds of a sensible burial rather than
        uniformly (`tractor.ai.players.sampler.bury_odds`); either way every constraint
        holds."""
        return self.sampler.sample(rng, weighted)
