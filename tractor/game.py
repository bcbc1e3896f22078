"""A whole game: hands one after another until a team passes Ace.

`Game` is deterministic from its rules and seed (the seed decides every
shuffle), so a game is stored as ``rules + seed + action log`` and replays.
The interface follows OpenSpiel: ``to_act()``, ``legal_actions(seat)``,
``apply(action)``, ``observation(seat)`` (plain data; ``observe(seat)``: typed).

>>> import random
>>> g = Game(seed=7)
>>> rng = random.Random(1)
>>> while g.hand_no == 0 and not g.over:
...     g.apply(g.random_action(rng))
>>> g.hands_played[-1].result is not None
True
>>> Game.from_data(g.to_data()).observation(0) == g.observation(0)
True
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from .actions import Action, action_from_data
from .errors import CoreError
from .hand import Hand
from .observation import GameRecord, Observation
from .phases import DONE, REDEAL, IllegalAction
from .records import HandResult
from .rules import Rules, team_of
from .scoring import advance_levels, score_outcome


class GameDataError(CoreError):
    """A game record (`Game.to_data` output) that is not well formed."""


def after_hand(rules: Rules, levels: list[str], first: int, result: HandResult
               ) -> tuple[int | None, int | None, int, tuple[int, ...]]:
    """A game after a finished hand, for the rules core's `Game` and the peers' session
    alike: moves ``levels`` on (in place) and returns the next hand's declaring team and
    starter (None: its auction decides), its first drawer, and the seats that won the game
    by this hand (empty: the game goes on; with teams, the winning team's seats).
    Seed 001's auction: the deal passes to the next seat; else the result names the
    declarers and the starter, who draws first. Find-a-friend: ``levels`` are the
    players', the gaining seats move on, and there are no declaring teams (None)."""
    if rules.mode == "friends":
        return None, result.next_starter, result.next_starter, winners_of(rules, levels, result)
    past = advance_levels(levels, result.gaining_team, result.levels_gained, rules.win,
                          rules.must_defend_levels, declarers_gained(rules, result))
    winners = tuple(s for s in range(rules.players)
                    if team_of(s) == result.gaining_team) if past else ()
    if rules.declaration == "auction":
        return None, None, (first + 1) % rules.players, winners
    return result.next_declarers, result.next_starter, result.next_starter, winners


def game_winner(rules: Rules, result: HandResult, winners: tuple[int, ...]) -> int:
    """`Game.winner` of a game ``after_hand`` ended: the winning team, or in find-a-friend
    the first winning seat."""
    return result.gaining_team if rules.mode == "teams" else winners[0]


def winners_of(rules: Rules, levels: list[str], result: HandResult) -> tuple[int, ...]:
    """Find-a-friend: move the gaining seats' ``levels`` on (in place); the seats that win
    the game by it (the game ends when any seat passes Ace, or reaches it by `Rules.win`:
    **Choice**, every such seat of the gaining side wins)."""
    # Must-defend levels (`Rules.must_defend`): the seats of the starter's side declared.
    side = set(result.side)
    return tuple(s for s in result.gaining
                 if advance_levels(levels, s, result.levels_gained, rules.win,
                                   rules.must_defend_levels, s in side))


def declarers_gained(rules: Rules, result: HandResult) -> bool:
    """Whether the side that gains by ``result`` declared in that hand (so it passes a
    must-defend level it was at, `Rules.must_defend`). Find-a-friend: the starter's side
    is team 0 (`winners_of` asks seat by seat: a forfeit's gaining seats may be mixed).
    Teams: the scoring table names the side from the defenders' points, as
    `tractor.records.hand_result` did (a forfeit too is scored by it)."""
    if rules.mode == "friends":
        return result.gaining_team == 0
    side, _ = score_outcome(result.defender_points, rules.decks, rules.level_step)
    return side == "declarers"


def after_redeal(rules: Rules, first: int) -> int:
    """The first drawer of a first hand dealt again because nobody declared: the next
    seat (a Choice: so a table where one seat keeps drawing first cannot stall)."""
    return (first + 1) % rules.players


class Game:
    def __init__(self, rules: Rules | None = None, seed: int | str = 0) -> None:
        self.rules = rules or Rules()
        self.seed = seed
        self.levels = [self.rules.start_level] * self.rules.level_count
        self.hand_no = 0  #: hands completed
        self.deal_no = 0  #: shuffles so far (a first hand nobody declares is dealt again)
        self.starter: int | None = None
        self.declarers: int | None = None
        rng = random.Random(f"{seed}:lot")
        self.first_seat = rng.randrange(self.rules.players)  # first drawer / dealer, by lot
        self.dealer = self.first_seat
        #: The winning team once the game is over (find-a-friend: the first winning seat);
        #: `winners`: the seats that won.
        self.winner: int | None = None
        self.winners: tuple[int, ...] = ()
        self.hands_played: list[Hand] = []
        self.actions: list[Action] = []
        self.hand = self._new_hand()

    def _deck(self) -> list[int]:
        deck = [f for f in range(54) for _ in range(self.rules.decks)]
        random.Random(f"{self.seed}:deal:{self.deal_no}").shuffle(deck)
        self.deal_no += 1
        return deck

    def _new_hand(self) -> Hand:
        if self.rules.declaration == "auction":
            return Hand(self.rules, self._deck(), self.levels, first=self.dealer)
        first = self.starter if self.starter is not None else self.first_seat
        return Hand(self.rules, self._deck(), self.levels, first=first,
                    starter=self.starter, declarers=self.declarers)

    def clone(self) -> Game:
        """An independent copy (finished hands are shared: they no longer change)."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.levels = list(self.levels)
        other.hands_played = list(self.hands_played)
        other.actions = list(self.actions)
        other.hand = self.hand.clone()
        return other

    @property
    def over(self) -> bool:
        return self.winner is not None

    def to_act(self) -> int | None:
        return None if self.over else self.hand.to_act()

    def legal_actions(self, seat: int) -> Iterator[Action]:
        if self.over:
            return iter(())
        return self.hand.legal_actions(seat)

    def random_action(self, rng: random.Random) -> Action:
        if self.winner is not None:  # over
            raise IllegalAction("the game is over")
        return self.hand.random_action(rng)

    def apply(self, action: Action) -> None:
        """Check and perform one action; raises `IllegalAction` with the reason."""
        if self.winner is not None:  # over
            raise IllegalAction("the game is over")
        hand = self.hand
        hand.apply(action)
        self.actions.append(action)
        if hand.phase == REDEAL:
            self.first_seat = after_redeal(self.rules, self.first_seat)
            self.hand = self._new_hand()
        elif hand.phase == DONE:
            self._end_hand()

    def _end_hand(self) -> None:
        hand = self.hand
        res = hand.result
        assert res is not None
        self.hands_played.append(hand)
        self.hand_no += 1
        self.declarers, self.starter, first, winners = after_hand(self.rules, self.levels,
                                                                  hand.first, res)
        if self.rules.declaration == "auction":
            self.dealer = first
        if winners:
            self.winners, self.winner = winners, game_winner(self.rules, res, winners)
            return
        self.hand = self._new_hand()

    def record(self) -> GameRecord:
        """The game's public record: rules, hands completed, levels, winner, results."""
        return GameRecord(self.rules, self.hand_no, tuple(self.levels), self.winner,
                          tuple(h.result.public() for h in self.hands_played if h.result))

    def observe(self, seat: int) -> Observation:
        """What ``seat`` may know, typed: the current hand's view with the game's record."""
        return replace(self.hand.observe(seat), game=self.record())

    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may know as plain data: the current hand's view plus the game's
        public record (`Observation.to_data`)."""
        return self.observe(seat).to_data()

    # --- plain data -----------------------------------------------------------------------

    def to_data(self) -> dict[str, Any]:
        """Rules, seed and action log: everything needed to rebuild the game."""
        return {"rules": self.rules.to_data(), "seed": self.seed,
                "actions": [a.to_data() for a in self.actions]}

    @classmethod
    def from_data(cls, data: Any) -> Game:
        """Replay a game from `to_data` output; every action is checked again.

        Raises `GameDataError` for a malformed record, `RulesError`, `ActionDataError` or
        `IllegalAction` for bad rules, a malformed action or an action the rules refuse.
        """
        if not isinstance(data, dict) or set(data) != {"rules", "seed", "actions"}:
            raise GameDataError("a game record is a map with rules, seed and actions")
        seed, actions = data["seed"], data["actions"]
        if not (type(seed) is int or (type(seed) is str and len(seed) <= 200)):
            raise GameDataError("a game seed is a whole number or a short text")
        if not isinstance(actions, list):
            raise GameDataError("a game's actions are a list")
        game = cls(Rules.from_data(data["rules"]), seed)
        for item in actions:
            game.apply(action_from_data(item))
        return game
