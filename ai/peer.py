"""An AI strategy seated at a peer-to-peer table.

`StrategyPlayer` is the `tractor.net.table.Player` of an AI peer: at each decision it
rebuilds what its seat knows from the table's observation alone (the same dict the
rules core's ``Hand.observation`` gives), samples one world consistent with it, and asks
the strategy, which reads only its own seat's part of that world. So an AI peer is an
ordinary peer on the wire and gets no private information.
"""

from __future__ import annotations

import random
from typing import Any

from twisted.logger import Logger

from tractor.actions import Action, Bury, Declare, Draw, Pass, Play
from tractor.follow import follow_error, lead_error
from tractor.hand import Hand
from tractor.net.table import RandomPlayer, SeatView
from tractor.rules import Rules

from .base import Strategy
from .worlds import Knowledge


def _legal(view: SeatView, faces: list[int], must_play_tractor: bool) -> bool:
    """The rules core's check of a play from the seat's own hand (a strategy's bug must not
    become a broken rule at the table)."""
    if view.ladder is None:
        return False
    held = list(view.hand)
    for f in faces:
        if f not in held:
            return False
        held.remove(f)
    if view.lead is None:
        return lead_error(view.hand, faces, view.ladder) is None
    return follow_error(view.hand, view.lead, faces, view.ladder, must_play_tractor) is None


class StrategyPlayer:
    """Decisions of ``strategy`` for one seat, from the seat's observation only."""

    log = Logger()

    def __init__(self, strategy: Strategy, rules: Rules, seed: int = 0) -> None:
        self.strategy = strategy
        self.rules = rules
        self.rng = random.Random(seed)
        self._fallback = RandomPlayer(seed)

    def world(self, observation: dict[str, Any]) -> Hand:
        """One world consistent with what the seat knows."""
        return Knowledge.from_observation(self.rules, observation).sample(self.rng)

    def action(self, observation: dict[str, Any]) -> Action:
        """What the strategy does now for the observing seat (a hint for a person, too)."""
        world = self.world(observation)
        seat = observation["seat"]
        if world.phase in ("deal", "declare"):
            return self.strategy.declare(world, seat) or (
                Draw(seat) if world.phase == "deal" else Pass(seat))
        return self.strategy.act(world, seat)

    def declare(self, view: SeatView, options: list[tuple[int, ...]]) -> tuple[int, ...] | None:
        if not options:
            return None
        try:
            d = self.strategy.declare(self.world(view.observation), view.seat)
        except Exception as exc:  # a strategy bug must not stall a table: decide simply
            self._complain(exc)
            return None
        if not isinstance(d, Declare):
            return None
        faces = tuple(d.faces)
        return faces if faces in options else None

    def bury(self, view: SeatView, count: int) -> list[int]:
        try:
            a = self.action(view.observation)
            if isinstance(a, Bury) and len(a.faces) == count:
                return list(a.faces)
        except Exception as exc:
            self._complain(exc)
        return self._fallback.bury(view, count)

    def play(self, view: SeatView) -> list[int]:
        try:
            a = self.action(view.observation)
            if isinstance(a, Play) and _legal(view, list(a.faces),
                                                      self.rules.must_play_tractor):
                return list(a.faces)
        except Exception as exc:
            self._complain(exc)
        return self._fallback.play(view)

    def _complain(self, exc: Exception) -> None:
        self.log.failure("the {name} strategy failed; deciding at random this once",
                         name=getattr(self.strategy, "name", "?"))
