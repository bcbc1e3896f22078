"""A full hand from one assignment of the hidden cards: the rules core's own state.

The world is `tractor.hand.Hand.from_public` on the public state rebuilt once from the
seat's observation (`tractor.public.PublicHand.from_observation`), with the hidden cards
filled in: each seat's hand, the talon, the buried cards and the deck's order. So a
search plays on the core's own rules, as OpenSpiel's resampling from an information state
does. Replaying the hand's actions through `Hand.apply` instead is impossible (the order
of draws and declarations, other seats' burials and the deck are not known) and far too
slow for search (about 100 checked actions per sample).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from tractor.ai.players.hidden_places import STOCK, TALON_APART, TALON_TAKEN, HiddenPlaces
from tractor.hand import Hand
from tractor.observation import Observation
from tractor.phases import DEAL, TALON
from tractor.public import PublicHand
from tractor.rules import Rules


class WorldBuilder:
    """Builds the worlds of one observation: ``played[s]`` are the cards seat ``s`` played
    (in order), ``places`` the regions an assignment fills, ``public`` the public state."""

    def __init__(self, rules: Rules, obs: Observation, played: Sequence[Sequence[int]],
                 places: HiddenPlaces, public: PublicHand) -> None:
        self.rules = rules
        self.obs = obs
        self.played = played
        self.places = places
        self.public = public

    def build(self, regions: list[list[int]], rng: random.Random) -> Hand:
        """The world in which region ``i`` holds ``regions[i]`` (``rng``: for the part of a
        talon the seat cannot know)."""
        o = self.obs
        hands: list[list[int]] = [[] for _ in range(self.rules.players)]
        hands[o.seat] = list(o.hand)
        stock: list[int] = []
        for i, s in enumerate(self.places.seats):
            if s == STOCK:
                stock = regions[i]
            else:
                hands[s] = regions[i]
        talon, buried = self._talon_and_buried(hands, stock, rng)
        deck = self._deck(hands, stock, talon, buried)
        return Hand.from_public(self.public, hands, talon, buried, deck)

    def _talon_and_buried(self, hands: list[list[int]], stock: list[int],
                          rng: random.Random) -> tuple[list[int], list[int]]:
        o = self.obs
        if o.phase in TALON_APART:
            return stock, []
        if o.phase not in TALON_TAKEN:
            return [], []
        if o.buried is not None:
            buried = list(o.buried)
        elif o.phase == TALON:
            buried = []
        else:
            buried = stock
        if o.talon is not None:
            return list(o.talon), buried
        return self._unseen_talon(hands, buried, rng), buried

    def _unseen_talon(self, hands: list[list[int]], buried: list[int],
                      rng: random.Random) -> list[int]:
        """The talon as dealt, for a seat that never saw it: the cards turned over, then
        cards the starter may have had from it (not ones it declared: those were dealt)."""
        o = self.obs
        st = o.starter
        assert st is not None
        size = self.rules.talon_size
        pool = Counter(hands[st])
        pool.update(self.played[st])
        pool.update(buried)
        pool.subtract(o.talon_revealed)
        for s, faces in o.declarations:
            if s == st:
                pool.subtract(faces)
        rest = list((+pool).elements())
        need = size - len(o.talon_revealed)
        talon = list(o.talon_revealed) + rng.sample(rest, min(need, len(rest)))
        if len(talon) < size:  # only after a relaxed sample
            extra = Counter(hands[st]) + Counter(self.played[st]) + Counter(buried)
            extra.subtract(talon)
            talon += rng.sample(list((+extra).elements()), size - len(talon))
        return talon

    def _deck(self, hands: list[list[int]], stock: list[int], talon: list[int],
              buried: list[int]) -> list[int]:
        """The deck: what each seat drew, in drawing order, then the undrawn cards (during
        the deal) or the talon."""
        o = self.obs
        n = self.rules.players
        if o.phase == DEAL:
            dealt = hands
            tail = stock
        elif o.thefts:
            # Kitty theft: which buried cards each thief took is partly hidden, and after
            # the deal the order is only a permutation (no card is left to draw): each seat
            # its cards, the kitty's holder less the cards it has yet to bury, then those
            # and the buried ones.
            size = self.rules.hand_size
            dealt = [hands[s] + list(self.played[s]) for s in range(n)]
            holder = o.exchanger
            assert holder is not None
            tail = dealt[holder][size:] + buried
            dealt[holder] = dealt[holder][:size]
        else:
            dealt = []
            for s in range(n):
                d = hands[s] + list(self.played[s])
                if s == o.starter and o.phase in TALON_TAKEN:
                    c = Counter(d)
                    c.update(buried)
                    c.subtract(talon)
                    d = list((+c).elements())
                dealt.append(d)
            tail = talon
        deck = [dealt[(o.first + i) % n][i // n] for i in range(o.cards_dealt)]
        return deck + tail
