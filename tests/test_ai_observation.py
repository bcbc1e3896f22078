"""Strategies decide from their seat's observation and nothing else (`tractor.ai.players.base`).

Two checks, for every strategy, over seeded hands in every phase and rule family:

- a hand whose hidden cards are sealed (another seat's cards, the deck, a talon or burial
  the seat never saw, the action log: their number can be read, never a card) gets the
  same decision as the real hand: a strategy that reads a hidden card fails here at once;
- a hand equal in what the seat observes but with the hidden cards dealt again (a world
  resampled from the seat's observation) and the seat's own cards in another order gets
  the same decision for the same seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from tractor.actions import Draw
from tractor.ai.players.base import Strategy
from tractor.ai.players.heuristic import HeuristicStrategy
from tractor.ai.players.random_ai import RandomStrategy
from tractor.ai.players.search import SearchStrategy
from tractor.ai.players.worlds import Knowledge
from tractor.hand import Hand
from tractor.phases import DEAL, DECLARE, DONE, PLAY, REDEAL, TALON
from tractor.rules import Rules, team_of

MAKERS: dict[str, Callable[[int], Strategy]] = {
    "random": RandomStrategy,
    "heuristic": HeuristicStrategy,
    "search": lambda seed: SearchStrategy(seed=seed, iterations=3),
}


class Sealed:
    """Cards a seat may not see: how many there are can be read, never a card."""

    def __init__(self, count: int, what: str) -> None:
        self.count = count
        self.what = what

    def __len__(self) -> int:
        return self.count

    def _refuse(self, *_: object) -> None:
        raise AssertionError(f"the strategy read {self.what}")

    __iter__ = __getitem__ = __contains__ = __add__ = __radd__ = _refuse


def sealed(hand: Hand, seat: int) -> Hand:
    """A copy of ``hand`` with every card ``seat`` may not know sealed."""
    w = hand.clone()
    for s in range(hand.players):
        if s != seat:
            w.hands[s] = Sealed(len(hand.hands[s]), f"seat {s}'s cards")
    w.deck = Sealed(len(hand.deck), "the deck")
    w.log = Sealed(len(hand.log), "the action log")
    if not (seat == hand.starter and hand.phase in (TALON, PLAY, DONE)):
        w.talon = Sealed(len(hand.talon), "the talon")
    if not (seat == hand.starter or hand.talon_turned()):
        w.buried = Sealed(len(hand.buried), "the buried cards")
    return w


def resampled(hand: Hand, seat: int, rng: random.Random) -> Hand:
    """Another hand the seat observes exactly as ``hand``: its hidden cards dealt again,
    and its own cards held in another order."""
    world = Knowledge.from_hand(hand, seat).sample(rng)
    rng.shuffle(world.hands[seat])
    assert world.observe(seat) == hand.observe(seat)
    return world


def new_hand(rules: Rules, seed: int) -> Hand:
    rng = random.Random(f"test_ai_observation:{seed}")
    deck = [f for f in range(54) for _ in range(rules.decks)]
    rng.shuffle(deck)
    first = rng.randrange(rules.players)
    if rules.declaration == "auction":
        return Hand(rules, deck, ["2", "2"], first)
    return Hand(rules, deck, ["2", "7"], first, starter=first, declarers=team_of(first))


Probe = Callable[[Hand, int], None]


def drive(hand: Hand, probe: Probe, every: int) -> dict[str, int]:
    """Play ``hand`` out with heuristic seats, calling ``probe`` at every ``every``-th
    decision (and for each seat's declaration after every ``every``-th draw round);
    returns how many probes each phase had."""
    seats = [HeuristicStrategy(s) for s in range(hand.players)]
    n = hand.players
    probed: dict[str, int] = {}
    turn = 0
    while hand.phase not in (DONE, REDEAL):
        seat = hand.to_act()
        assert seat is not None
        turn += 1
        if turn % every == 0:
            probe(hand, seat)
            probed[hand.phase] = probed.get(hand.phase, 0) + 1
        action = seats[seat].act(hand, seat)
        hand.apply(action)
        if isinstance(action, Draw) and hand.phase == DEAL and hand.drawn % n == 0:
            for i in range(n):
                s = (hand.first + i) % n
                if turn % every == 0:
                    probe(hand, s)
                decl = seats[s].declare(hand, s)
                if decl is not None:
                    hand.apply(decl)
    return probed


def same_decisions(make: Callable[[int], Strategy], real: Hand, other: Hand, seat: int,
                   seed: int) -> None:
    """``make(seed)`` decides alike in ``real`` and ``other`` for ``seat``."""
    if real.to_act() == seat:
        assert make(seed).act(real.clone(), seat) == make(seed).act(other, seat)
    if real.phase in (DEAL, DECLARE):
        assert make(seed).declare(real.clone(), seat) == make(seed).declare(other, seat)


def check(name: str, rules: Rules, seeds: range, every: int,
          other_of: Callable[[Hand, int, random.Random], Hand]) -> int:
    """Probe strategy ``name`` at the hands of ``seeds``: the same decision in the real
    hand and in ``other_of(hand, seat, rng)``. Returns how many probes moved a card."""
    make = MAKERS[name]
    # The search plays each hand out many times: probe it at fewer decisions.
    every *= 9 if name == "search" else 1
    moved = 0
    for seed in seeds:
        rng = random.Random(seed)

        def probe(hand: Hand, seat: int, seed: int = seed,
                  rng: random.Random = rng) -> None:
            nonlocal moved
            other = other_of(hand, seat, rng)
            moved += other.hands != hand.hands
            same_decisions(make, hand, other, seat, seed)

        probed = drive(new_hand(rules, seed), probe, every)
        assert probed.get(PLAY, 0) >= 2
    return moved


CASES = [
    (Rules(), range(3), 3),
    (Rules(declaration="auction"), range(3, 5), 3),
    (Rules(players=6, decks=3), range(5, 6), 4),
]


@pytest.mark.parametrize("name", sorted(MAKERS))
@pytest.mark.parametrize("rules,seeds,every", CASES)
def test_no_strategy_reads_a_hidden_card(name: str, rules: Rules, seeds: range,
                                         every: int) -> None:
    check(name, rules, seeds, every, lambda hand, seat, _: sealed(hand, seat))


@pytest.mark.parametrize("name", sorted(MAKERS))
@pytest.mark.parametrize("rules,seeds,every", CASES)
def test_same_observation_same_decision(name: str, rules: Rules, seeds: range,
                                        every: int) -> None:
    assert check(name, rules, seeds, every, resampled)


def test_sealed_cards_cannot_be_read() -> None:
    """The check can fail: a strategy that peeks at a sealed card is stopped."""
    hand = new_hand(Rules(), 0)
    seat = hand.to_act()
    view = sealed(hand, seat)
    assert view.observe(seat) == hand.observe(seat)
    with pytest.raises(AssertionError, match="seat .* cards"):
        sorted(view.hands[(seat + 1) % 4])
    with pytest.raises(AssertionError, match="the deck"):
        _ = view.deck[0]
    assert list(view.hands[seat]) == hand.hands[seat]
