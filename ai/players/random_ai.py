"""The random player: a uniformly random legal move, the floor every other AI must beat.

It decides from its seat's observation alone (`tractor.ai.players.base`), so its choice
for a given seed is the same in every world consistent with that observation.
"""

from __future__ import annotations

import random

from tractor.actions import Action, Bid, Bury, Call, Declare, Draw, NameTrump, Pass, Play, Show
from tractor.ai.players.base import ObservingStrategy
from tractor.ai.players.worlds import Knowledge
from tractor.cards import SUITS
from tractor.follow import random_follow, random_lead
from tractor.friends import callable_cards
from tractor.observation import Observation
from tractor.phases import BID, CALL, DEAL, DECLARE, NAME, SHOW, TALON, THEFT
from tractor.rules import Rules


class RandomStrategy(ObservingStrategy):
    """Random legal actions; declares now and then while the cards are dealt."""

    name = "random"

    def __init__(self, seed: int = 0, declare_chance: float = 0.05) -> None:
        self.rng = random.Random(seed)
        self.declare_chance = declare_chance

    def decide_declaration(self, obs: Observation, rules: Rules) -> Declare | None:
        return self._declaration(Knowledge.from_observation(rules, obs))

    def _declaration(self, know: Knowledge) -> Declare | None:
        options = know.legal_declarations()
        if options and self.rng.random() < self.declare_chance:
            return self.rng.choice(options)
        return None

    def decide(self, obs: Observation, rules: Rules) -> Action:
        know = Knowledge.from_observation(rules, obs)
        rng = self.rng
        seat = obs.seat
        phase = obs.phase
        mine = list(obs.hand)
        if phase in (DEAL, DECLARE, THEFT):
            # In the final window a declaration is as likely as in a whole deal.
            decl = self._declaration(know)
            if decl is not None:
                return decl
            return Draw(seat) if phase == DEAL else Pass(seat)
        if phase == BID:
            high = know.public.high_bid()
            total = rules.total_points
            if high + 5 > total or rng.random() < 0.5:
                return Pass(seat)
            return Bid(seat, min(total, high + 5 * rng.randint(1, 4)))
        if phase == SHOW:
            return Show(seat, (rng.choice(mine),))
        if phase == NAME:
            return NameTrump(seat, rng.choice([*SUITS, None]))
        if phase == TALON:
            return Bury(seat, tuple(rng.sample(mine, rules.talon_size)))
        if phase == CALL:
            # Distinct calls the rules allow: a legal set (`tractor.friends.call_error`).
            assert obs.trump is not None
            options = callable_cards(rules, obs.trump, obs.levels[seat])
            return Call(seat, tuple(rng.sample(options, rules.friend_calls)))
        ladder = know.ladder
        assert ladder is not None
        if know.lead_format is not None:
            return Play(seat, tuple(random_follow(mine, know.lead_format, ladder, rng,
                                                  rules.must_play_tractor)))
        return Play(seat, tuple(random_lead(mine, ladder, rng)))
