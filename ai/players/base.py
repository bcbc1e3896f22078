"""The one interface every AI strategy implements: a seat's view of a hand in, an action out.

A strategy is handed a rules-core `Hand` and the seat to decide for. The hand may be
the real one (in-process matches, `bench/ai_eval.py`) or a world sampled from what the
seat knows (`tractor.ai.players.worlds`, used over the network and by the search player): a
strategy must read only what its seat may know, so its decision is the same in every
world consistent with the seat's observation. It may read:

- ``hand.hands[seat]``, ``hand.rules``, ``hand.levels``, ``hand.first``, ``hand.starter``,
  ``hand.declarers``, ``hand.phase``, ``hand.to_act()``, ``hand.drawn``, the declarations,
  ``hand.trump``/``hand.ladder``, ``hand.tricks``, ``hand.leader``, ``hand.current``,
  ``hand.current_attempt``, ``hand.lead_format``, ``hand.defender_points``,
  ``hand.talon_revealed``, bids and shows;
- ``hand.talon``/``hand.buried`` only when ``seat`` is the starter (it took the talon);
- ``len(h)`` of any other seat's hand;

and never the other seats' cards or ``hand.deck``. `tests/test_ai_*.py` check this by
shuffling the hidden cards and asking again.
"""

from __future__ import annotations

from typing import Protocol

from tractor.actions import Action, Declare
from tractor.hand import Hand


class Strategy(Protocol):
    """Decides for one seat. ``act`` is called only when ``hand.to_act() == seat``."""

    name: str

    def act(self, hand: Hand, seat: int) -> Action:
        """A legal action for ``seat`` now (in the deal: `declare`'s answer, else Draw/Pass)."""
        ...

    def declare(self, hand: Hand, seat: int) -> Declare | None:
        """During the deal (reveal style), whatever seat is to act: the declaration ``seat``
        would make now (one of ``hand.legal_declarations(seat)``), or None. Between peers
        every seat answers this once after each draw round."""
        ...
