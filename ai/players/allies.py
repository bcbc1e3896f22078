"""Who plays with the observing seat: its partners and opponents, surely or by belief.

With fixed teams a seat's partners are its team (`tractor.rules.team_of`), for sure. In
find-a-friend the sides are made during the hand: the seats known to be on the starter's
side are partners of each other for sure, and every other seat is weighted by the seat's
belief (`tractor.ai.players.friend_belief`): ``chance[s]`` is the chance seat ``s`` ends the
hand on the observing seat's side. A seat is treated as a partner (fed points, not feared
as a threat to a winning play) from `ALLY` on.
"""

from __future__ import annotations

from collections.abc import Sequence

from tractor.ai.players.friend_belief import FriendBelief, friend_belief
from tractor.observation import Observation
from tractor.rules import Rules, team_of
from tractor.trump import Ladder

#: The chance of sharing a side from which a seat is played as a partner.
ALLY = 0.7


class Allies:
    """The observing ``seat``'s partners: ``chance[s]`` (1 for itself) that ``s`` ends on
    its side; ``declaring``: the seat is (most likely) on the declaring side; ``belief``:
    find-a-friend's belief, None with fixed teams."""

    __slots__ = ("seat", "chance", "declaring", "belief")

    def __init__(self, seat: int, chance: Sequence[float], declaring: bool,
                 belief: FriendBelief | None = None) -> None:
        self.seat = seat
        self.chance = tuple(chance)
        self.declaring = declaring
        self.belief = belief

    @classmethod
    def of_teams(cls, obs: Observation) -> Allies:
        team = team_of(obs.seat)
        chance = [1.0 if team_of(s) == team else 0.0 for s in range(obs.players)]
        return cls(obs.seat, chance, team == obs.declarers)

    @classmethod
    def of_belief(cls, belief: FriendBelief) -> Allies:
        """Find-a-friend: the observing seat is on the starter's side with chance ``q``
        (its own belief), another seat with chance ``p``; they share a side when both
        are on it or neither is."""
        me = belief.seat
        q = belief.at_end[me]
        chance = [1.0 if s == me else q * p + (1.0 - q) * (1.0 - p)
                  for s, p in enumerate(belief.at_end)]
        return cls(me, chance, q >= 0.5, belief)

    def partner(self, seat: int) -> bool:
        return self.chance[seat] >= ALLY

    def partners(self) -> list[int]:
        """The other seats played as partners."""
        return [s for s in range(len(self.chance)) if s != self.seat and self.partner(s)]

    def opponents(self) -> list[int]:
        return [s for s in range(len(self.chance)) if not self.partner(s)]


def allies_of(obs: Observation, rules: Rules, ladder: Ladder,
              voids: Sequence[set[int] | frozenset[int]], unseen: Sequence[int]) -> Allies:
    """The observing seat's allies under the hand's rules (``voids`` and ``unseen`` as the
    seat counts them, for find-a-friend's belief)."""
    if rules.mode != "friends":
        return Allies.of_teams(obs)
    return Allies.of_belief(friend_belief(obs, rules, ladder, voids, unseen))
