"""The player behind a person's hint: the search player, on a time budget.

A hint is asked for on the screen's thread and answered before the screen draws again,
so its search is capped at `HINT_SECONDS` whatever the level (the search returns its
best play so far when the time is up; ``hard`` keeps its larger cap of worlds, so on a
fast machine it still looks further than ``normal``). While it thinks, the decks' worker
of the process waits (`FOREGROUND`, as for an AI peer's search): the hint gets the
processor, and the second of waiting is not made longer. Declarations, burying and the
auction are the heuristic's, as for the search player at the table.
"""

from __future__ import annotations

from collections.abc import Callable

from tractor.actions import Action
from tractor.ai.players.base import Strategy
from tractor.ai.players.search import SearchStrategy
from tractor.net.deck.worker import FOREGROUND
from tractor.observation import Observation
from tractor.rules import Rules

#: The longest a hint may think, in seconds (a person waits for it).
HINT_SECONDS = 1.0
#: The hint's level when the person chose none: within the budget on two cores.
HINT_LEVEL = "normal"


def hint_strategy(level: str = HINT_LEVEL, seed: int = 0) -> Strategy:
    """The search player of ``level`` with its thinking time capped at `HINT_SECONDS`."""
    strategy = SearchStrategy(level=level, seed=seed)
    if strategy.max_seconds is None or strategy.max_seconds > HINT_SECONDS:
        strategy.max_seconds = HINT_SECONDS
    return strategy


def observation_hinter(rules: Rules, level: str = HINT_LEVEL,
                       seed: int = 0) -> Callable[[Observation], Action]:
    """A hint from the seat's observation alone (a peer table's seat): one world is
    sampled from what it knows, as for an AI peer (`StrategyPlayer.action`)."""
    from tractor.ai.hosting.peer import (
        StrategyPlayer,  # the peer's machinery: not for `tractor --help`
    )

    player = StrategyPlayer(hint_strategy(level, seed), rules, seed)

    def hint(observation: Observation) -> Action:
        with FOREGROUND.running():
            return player.action(observation)
    return hint
