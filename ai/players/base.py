"""The one interface every AI strategy implements: what a seat observes in, an action out.

A strategy decides from the seat's typed observation (`tractor.observation.Observation`:
its own cards, the public state, the talon and burial when the seat knows them) under the
hand's rules, and from nothing else: `Strategy.decide` and `Strategy.decide_declaration`
are never given the other seats' cards or the deck, so they cannot depend on them. A
strategy that wants to look ahead (the search player) resamples full states consistent
with the observation (`tractor.ai.players.worlds.Knowledge.sample`) and plays them out on
the rules core's own `Hand`.

A caller that holds the whole hand (an in-process match, `bench/ai_eval.py`, a search's
rollouts, a world sampled for a peer) asks through `Strategy.act` / `Strategy.declare`:
`ObservingStrategy` implements them once, by handing the strategy ``hand.observe(seat)``
and the rules, so even then the strategy sees only what its seat may see.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Protocol

from tractor.actions import Action, Declare
from tractor.hand import Hand
from tractor.observation import Observation
from tractor.rules import Rules


class Strategy(Protocol):
    """Decides for one seat: the seat is ``obs.seat``."""

    name: str

    def decide(self, obs: Observation, rules: Rules) -> Action:
        """A legal action for the observing seat, whose turn it is (in the deal: what
        `decide_declaration` answers, else Draw/Pass)."""
        ...

    def decide_declaration(self, obs: Observation, rules: Rules) -> Declare | None:
        """During the deal (reveal style), whatever seat is to act: the declaration the
        observing seat would make now (one the rules allow it), or None. Between peers
        every seat answers this once after each draw round."""
        ...

    def act(self, hand: Hand, seat: int) -> Action:
        """`decide` for ``seat`` of a whole hand, from ``hand.observe(seat)`` alone."""
        ...

    def declare(self, hand: Hand, seat: int) -> Declare | None:
        """`decide_declaration` for ``seat`` of a whole hand, from its observation alone."""
        ...


class ObservingStrategy(ABC):
    """A strategy's base: `act` and `declare` reduce the whole hand to the seat's
    observation before the strategy sees anything."""

    name: str

    @abstractmethod
    def decide(self, obs: Observation, rules: Rules) -> Action:
        ...

    @abstractmethod
    def decide_declaration(self, obs: Observation, rules: Rules) -> Declare | None:
        ...

    def act(self, hand: Hand, seat: int) -> Action:
        return self.decide(hand.observe(seat), hand.rules)

    def declare(self, hand: Hand, seat: int) -> Declare | None:
        return self.decide_declaration(hand.observe(seat), hand.rules)
