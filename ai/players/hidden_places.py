"""Where the cards one seat cannot see may lie, and how many each place holds.

The places (*regions*) are the other seats' hands that hold cards, then, when there is
one, the *stock*: the unseen pile (during the deal the undrawn deck; before the starter
takes the talon, the talon; after the burial, the buried cards the seat did not see).
A sampled world (`tractor.ai.players.sampler`) puts every hidden card in one region,
each region taking exactly its capacity. Sets of regions are bit masks: region ``i`` is
bit ``1 << i``.
"""

from __future__ import annotations

from dataclasses import dataclass

from tractor.observation import Observation
from tractor.phases import BID, CALL, DEAL, DECLARE, DONE, NAME, PLAY, REDEAL, SHOW, TALON, THEFT
from tractor.rules import Rules

#: Phases in which every card is drawn and the talon still lies apart, unseen by anyone.
TALON_APART = (DECLARE, BID, SHOW, NAME, REDEAL)
#: Phases after the starter took the talon into hand.
TALON_TAKEN = (TALON, THEFT, CALL, PLAY, DONE)
#: Phases after the starter (with kitty theft: the seat holding the kitty, the
#: observation's ``exchanger``) buried; find-a-friend calls its friends in between.
BURIED = (THEFT, CALL, PLAY, DONE)
#: The seat number a region of the stock stands for in `HiddenPlaces.seats`.
STOCK = -1


@dataclass(frozen=True)
class HiddenPlaces:
    """The regions of one observation: ``seats[i]`` is the seat whose hand region ``i`` is
    (`STOCK` for the stock), ``caps[i]`` how many hidden cards it holds."""

    seats: tuple[int, ...]
    caps: tuple[int, ...]

    @classmethod
    def of(cls, rules: Rules, obs: Observation) -> HiddenPlaces:
        """The places of the cards ``obs``'s seat cannot see."""
        seats = [s for s in range(rules.players) if s != obs.seat and obs.hand_sizes[s]]
        caps = [obs.hand_sizes[s] for s in seats]
        stock = _stock_size(rules, obs)
        if stock:
            seats.append(STOCK)
            caps.append(stock)
        return cls(tuple(seats), tuple(caps))

    @property
    def count(self) -> int:
        return len(self.seats)

    @property
    def room(self) -> int:
        """Hidden cards the places hold in all."""
        return sum(self.caps)

    @property
    def full(self) -> int:
        """The mask of every region."""
        return (1 << self.count) - 1

    @property
    def stock(self) -> int:
        """The stock's region, or -1 when there is none."""
        return self.seats.index(STOCK) if STOCK in self.seats else -1

    def bits(self) -> dict[int, int]:
        """Seat -> the bit of its hand's region (seats holding hidden cards only)."""
        return {s: 1 << i for i, s in enumerate(self.seats) if s != STOCK}


def _stock_size(rules: Rules, obs: Observation) -> int:
    """Cards in the unseen pile: the undrawn deck, the talon apart, or a burial not seen."""
    if obs.phase == DEAL:
        return rules.total_cards - obs.cards_dealt
    if obs.phase in TALON_APART:
        return rules.talon_size
    if obs.phase in BURIED and obs.buried is None:
        return rules.talon_size
    return 0
