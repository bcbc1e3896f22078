"""What a hand leaves behind: each finished `Trick`, the `HandResult`, and the scoring of
a finished hand (`hand_result`, and a failed throw's penalty, `throw_penalty_points`).

>>> from tractor.rules import Rules
>>> r = hand_result(Rules(), card_points=90, talon_points=10, last_lead_cards=1,
...                 defenders_won_last=True, declarers=0, starter=0)
>>> r.defender_points, r.talon_bonus, r.next_declarers, r.levels_gained, r.next_starter
(110, 20, 1, 0, 1)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .cards import format_cards, parse_faces
from .friends import next_starter
from .phases import Face, Seat
from .rules import Rules
from .scoring import score_outcome, talon_multiplier


@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick. ``attempted`` is a failed throw's original lead (else None)."""

    leader: Seat
    plays: tuple[tuple[Face, ...], ...]  #: in playing order from the leader
    winner: Seat
    points: int
    attempted: tuple[Face, ...] | None = None
    penalty: int = 0

    def to_data(self) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "plays": [format_cards(p) for p in self.plays],
            "winner": self.winner,
            "points": self.points,
            "attempted": format_cards(self.attempted) if self.attempted else None,
            "penalty": self.penalty,
        }

    @classmethod
    def from_data(cls, d: dict[str, Any]) -> Trick:
        """Read `to_data` output back."""
        return cls(d["leader"], tuple(tuple(parse_faces(p)) for p in d["plays"]), d["winner"],
                   d["points"], tuple(parse_faces(d["attempted"])) if d["attempted"] else None,
                   d["penalty"])


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended and what it means for the next one.

    In find-a-friend (`Rules.mode` "friends") there are no teams: ``side`` is the starter's
    side at the end (the starter first, then its friends as they joined), ``gaining`` the
    seats whose levels go up, and ``gaining_team`` and ``next_declarers`` are 0 when the
    starter's side gained, 1 when the defenders did."""

    defender_points: int  #: card points, penalties and talon bonus included
    talon_points: int  #: points buried (public only when the talon is turned over)
    talon_bonus: int
    next_declarers: int  #: team
    levels_gained: int
    gaining_team: int
    next_starter: Seat
    #: The defenders won the last trick and turned the talon over (seed 000).
    talon_turned: bool = False
    side: tuple[Seat, ...] = ()  #: find-a-friend only
    gaining: tuple[Seat, ...] = ()  #: find-a-friend only

    def to_data(self) -> dict[str, Any]:
        """The public record: the buried points only when the talon was turned over."""
        return {
            "defender_points": self.defender_points,
            "talon_turned": self.talon_turned,
            "talon_points": self.talon_points if self.talon_turned else None,
            "talon_bonus": self.talon_bonus,
            "next_declarers": self.next_declarers,
            "levels_gained": self.levels_gained,
            "gaining_team": self.gaining_team,
            "next_starter": self.next_starter,
            **({"side": list(self.side), "gaining": list(self.gaining)} if self.side else {}),
        }

    @classmethod
    def from_data(cls, d: dict[str, Any]) -> HandResult:
        """Read `to_data` output back; buried points it does not show read as 0."""
        return cls(d["defender_points"], d["talon_points"] or 0, d["talon_bonus"],
                   d["next_declarers"], d["levels_gained"], d["gaining_team"],
                   d["next_starter"], d["talon_turned"], tuple(d.get("side", ())),
                   tuple(d.get("gaining", ())))

    def public(self) -> HandResult:
        """The result as every seat sees it: the buried points only when the talon was
        turned over (0 otherwise), as in `to_data`."""
        return self if self.talon_turned or not self.talon_points else replace(
            self, talon_points=0)


def throw_penalty_points(penalty: int, thrower_defends: bool) -> int:
    """What a failed throw's penalty does to the defenders' points. Seed 000: the thrower
    "transfers" 10 points per withdrawn card, so a defender's failed throw costs the
    defenders and a declarer's gives them the points.

    >>> throw_penalty_points(20, True), throw_penalty_points(20, False)
    (-20, 20)
    """
    return -penalty if thrower_defends else penalty


def hand_result(rules: Rules, card_points: int, talon_points: int, last_lead_cards: int,
                defenders_won_last: bool, declarers: int, starter: Seat) -> HandResult:
    """Score a finished hand: the talon bonus, the level change and the next starter
    (``card_points``: the defenders' points from tricks and throw penalties)."""
    bonus = 0
    if defenders_won_last:
        bonus = talon_points * talon_multiplier(last_lead_cards, rules.talon_multiplier)
    total = card_points + bonus
    side, gain = score_outcome(total, rules.decks, rules.level_step)
    if side == "declarers":
        team, nxt = declarers, starter + 2
    else:
        team, nxt = 1 - declarers, starter + 1
    return HandResult(total, talon_points, bonus, team, gain, team, nxt % rules.players,
                      talon_turned=defenders_won_last)



def friends_result(rules: Rules, card_points: int, talon_points: int, last_lead_cards: int,
                   defenders_won_last: bool, starter: Seat,
                   side: tuple[Seat, ...]) -> HandResult:
    """Score a finished hand of find-a-friend: the same talon bonus and scoring table as
    with teams, the levels to every seat of the side that gains (one more to a starter's
    side smaller than called that wins, `Rules.smaller_side_bonus`), and the next starter
    on that side (`tractor.friends.next_starter`).

    >>> r = friends_result(Rules(players=5, mode="friends"), 30, 5, 1, False, 2, (2, 4))
    >>> r.gaining_team, r.gaining, r.levels_gained, r.next_starter
    (0, (2, 4), 2, 4)
    >>> friends_result(Rules(players=5, mode="friends"), 30, 5, 1, False, 2, (2,)).levels_gained
    3
    """
    bonus = 0
    if defenders_won_last:
        bonus = talon_points * talon_multiplier(last_lead_cards, rules.talon_multiplier)
    total = card_points + bonus
    outcome, gain = score_outcome(total, rules.decks, rules.level_step)
    side_won = outcome == "declarers"
    if side_won and rules.smaller_side_bonus and len(side) < 1 + rules.friend_calls:
        gain += 1
    gaining = side if side_won else tuple(s for s in range(rules.players) if s not in side)
    team = 0 if side_won else 1
    return HandResult(total, talon_points, bonus, team, gain, team,
                      next_starter(rules.players, starter, side, side_won),
                      talon_turned=defenders_won_last, side=side, gaining=gaining)


def friends_forfeit(rules: Rules, offender: Seat, starter: Seat,
                    side: tuple[Seat, ...]) -> HandResult:
    """A hand of find-a-friend ended before its time by ``offender`` (a stall, a seat gone).
    **Choice** (shengji and the seats are silent): its side may still be secret, so the
    offender loses alone: every other seat gains what a side holding every point against
    the offender's would (3 levels by the default table), the offender nothing; the
    starter starts again unless it is the offender (then the seat after it).

    >>> r = friends_forfeit(Rules(players=5, mode="friends"), 3, 0, (0,))
    >>> r.gaining, r.levels_gained, r.next_starter
    ((0, 1, 2, 4), 3, 0)
    """
    declares = offender in side
    points = rules.total_points if declares else 0
    _, gain = score_outcome(points, rules.decks, rules.level_step)
    gaining = tuple(s for s in range(rules.players) if s != offender)
    nxt = starter if starter != offender else (starter + 1) % rules.players
    team = 1 if declares else 0
    return HandResult(points, 0, 0, team, gain, team, nxt, side=side, gaining=gaining)
