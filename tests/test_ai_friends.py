"""The AI seats in find-a-friend (`Rules(mode="friends")`, 4 to 12 seats): every strategy
answers every decision legally (the call too) through whole games; the starter's calls;
the belief over who the friends are; worlds sampled consistently with the friends state;
the hints that explain it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from tractor.actions import Action, Call
from tractor.ai.players import search as search_mod
from tractor.ai.players.base import Strategy
from tractor.ai.players.strategies import LEVELS, make_strategy
from tractor.friends import call_error
from tractor.game import Game
from tractor.phases import CALL, DONE
from tractor.rules import Rules

SEATS = (4, 5, 6, 7, 12)


def friends(players: int, **options: object) -> Rules:
    return Rules(players=players, mode="friends", **options)  # type: ignore[arg-type]


def play_game(game: Game, seats: Sequence[Strategy],
              probe: Callable[[Game, int, Action], None] | None = None) -> Game:
    """Play a game to its end, each seat deciding from its own observation;
    `Game.apply` refuses any illegal action."""
    rules = game.rules
    while not game.over:
        seat = game.to_act()
        assert seat is not None
        action = seats[seat].decide(game.observe(seat), rules)
        if probe is not None:
            probe(game, seat, action)
        game.apply(action)
    return game


def check_call(game: Game, seat: int, action: Action) -> None:
    """A call is the rules' number of distinct calls the rules core accepts."""
    if game.hand.phase != CALL:
        return
    assert isinstance(action, Call)
    hand = game.hand
    assert hand.trump is not None
    assert call_error(game.rules, hand.trump, hand.levels[seat], action.calls) is None
    assert len(action.calls) == game.rules.friend_calls


# --- legal, through whole games ---------------------------------------------------------------

@pytest.mark.parametrize("players", SEATS)
@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_random_and_heuristic_seats_finish_games_legally(name: str, players: int) -> None:
    """Several seeded games per table size, from level Q so each ends in a few hands."""
    for seed in range(3):
        rules = friends(players, start_level="Q")
        game = Game(rules, seed=f"{name}:{players}:{seed}")
        seats = [make_strategy(name, seed=seed * 20 + s) for s in range(players)]
        play_game(game, seats, check_call)
        assert game.winners and game.hand_no >= 1
        assert all(h.result is not None and h.result.side for h in game.hands_played)


@pytest.mark.parametrize("players", SEATS)
@pytest.mark.parametrize("level", LEVELS)
def test_search_seats_at_every_level_finish_games_legally(
        level: str, players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Search seats (each level's player, its budget cut short for time) with heuristic and
    random seats, every seat once a searcher over the games."""
    worlds, _ = search_mod.LEVELS[level]
    monkeypatch.setitem(search_mod.LEVELS, level, (min(worlds, 3), 0.05))
    names = ["search", "heuristic", "random"]
    for seed in range(2):
        rules = friends(players, start_level="K")
        game = Game(rules, seed=f"search:{level}:{players}:{seed}")
        seats = [make_strategy(names[(s + seed) % 3], level, seed * 20 + s)
                 for s in range(players)]
        play_game(game, seats, check_call)
        assert game.winners


@pytest.mark.parametrize("options", [
    dict(friend_cards="trump_too"), dict(friend_cards="no_highest"),
    dict(friend_cards="no_points", start_level="A"), dict(friend_join="no_double"),
    dict(friends=3, decks=3), dict(smaller_side_bonus=False),
])
def test_every_call_policy_is_answered_legally(options: dict[str, object]) -> None:
    players = 7 if options.get("friends") == 3 else 5
    for seed in range(2):
        rules = friends(players, **options)
        game = Game(rules, seed=f"policy:{seed}")
        seats = [make_strategy("heuristic" if s % 2 else "random", seed=s)
                 for s in range(players)]
        while game.hand_no < 1:
            seat = game.to_act()
            assert seat is not None
            action = seats[seat].decide(game.observe(seat), rules)
            check_call(game, seat, action)
            game.apply(action)
        assert game.hands_played[0].phase == DONE
