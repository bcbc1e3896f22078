"""One place that turns a strategy name (and a level) into a player, for the CLI, the
network seats and the benchmark."""

from __future__ import annotations

from tractor.ai.players.base import Strategy
from tractor.ai.players.heuristic import HeuristicStrategy
from tractor.ai.players.random_ai import RandomStrategy
from tractor.ai.players.search import SearchStrategy

STRATEGIES = ("random", "heuristic", "search")
LEVELS = ("easy", "normal", "hard")


def make_strategy(name: str, level: str = "normal", seed: int = 0) -> Strategy:
    """A fresh player. ``level`` matters to the search player only; ``seed`` makes every
    choice reproducible."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}")
    if name == "random":
        return RandomStrategy(seed=seed)
    if name == "heuristic":
        return HeuristicStrategy(seed=seed)
    if name == "search":
        return SearchStrategy(level=level, seed=seed)
    raise ValueError(f"unknown strategy {name!r}: choose one of {', '.join(STRATEGIES)}")
