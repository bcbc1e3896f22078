"""The random player: a uniformly random legal move, the floor every other AI must beat.

It reads only its own cards and public state (never another seat's hand or the deck), so
its choice for a given seed is the same in every world consistent with its seat's view.
"""

from __future__ import annotations

import random

from tractor.actions import Action, Bid, Bury, Declare, Draw, NameTrump, Pass, Play, Show
from tractor.cards import SUITS
from tractor.follow import random_follow, random_lead
from tractor.hand import BID, DEAL, DECLARE, NAME, SHOW, TALON, Hand


class RandomStrategy:
    """Random legal actions; declares now and then while the cards are dealt."""

    name = "random"

    def __init__(self, seed: int = 0, declare_chance: float = 0.05) -> None:
        self.rng = random.Random(seed)
        self.declare_chance = declare_chance

    def declare(self, hand: Hand, seat: int) -> Declare | None:
        options = hand.legal_declarations(seat)
        if options and self.rng.random() < self.declare_chance:
            return self.rng.choice(options)
        return None

    def act(self, hand: Hand, seat: int) -> Action:
        rng = self.rng
        phase = hand.phase
        mine = hand.hands[seat]
        if phase in (DEAL, DECLARE):
            # In the final window a declaration is as likely as in a whole deal.
            decl = self.declare(hand, seat)
            if decl is not None:
                return decl
            return Draw(seat) if phase == DEAL else Pass(seat)
        if phase == BID:
            high = hand.high_bid()
            total = hand.rules.total_points
            if high + 5 > total or rng.random() < 0.5:
                return Pass(seat)
            return Bid(seat, min(total, high + 5 * rng.randint(1, 4)))
        if phase == SHOW:
            return Show(seat, (rng.choice(mine),))
        if phase == NAME:
            return NameTrump(seat, rng.choice([*SUITS, None]))
        if phase == TALON:
            return Bury(seat, tuple(rng.sample(mine, hand.rules.talon_size)))
        ladder = hand.ladder
        assert ladder is not None
        if hand.current:
            assert hand.lead_format is not None
            return Play(seat, tuple(random_follow(mine, hand.lead_format, ladder, rng,
                                                  hand.rules.must_play_tractor)))
        return Play(seat, tuple(random_lead(mine, ladder, rng)))
