"""`tractor demo`: one hand of random legal moves on the rules core, printed readably.

With fixed teams: the declarations, the burial, every trick and the result. In
find-a-friend (``--rules players=5,mode=friends``) also the starter's calls, the moment
each call falls to a seat (the friend revealed, in the trick it played the called card),
the sides at the end, the seats that go up and every player's level.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from tractor import Game, Rules
from tractor.cards import format_cards
from tractor.cli.screen.friends_view import call_words, result_lines, reveal_words, reveals_in
from tractor.cli.screen.theft_words import theft_words
from tractor.cli.screen.words import count
from tractor.hand import Hand
from tractor.trump import Trump


def trump_text(trump: Trump | None) -> str:
    if trump is None:
        return "not declared"
    if trump.rank is None:
        return "jokers only (no trump suit, no trump rank)"
    suit = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}.get(trump.suit or "", "no suit")
    return f"rank {trump.rank}, {suit}"


def first_hand(rules: Rules, seed: int) -> Hand:
    """The game's first hand, played to its end by seeded random legal moves."""
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    while game.hand_no == 0:
        game.apply(game.random_action(rng))
    return game.hands_played[0]


def demo(seed: int, rules: Rules, write: Callable[[str], object] = print) -> None:
    """Play and print one hand of random legal moves."""
    hand = first_hand(rules, seed)
    result = hand.result
    assert result is not None
    friends = rules.mode == "friends"
    if friends:
        write(f"seed {seed}: {rules.players} players, find-a-friend; starter seat "
              f"{hand.starter}, trump {trump_text(hand.trump)}")
    else:
        write(f"seed {seed}: starter seat {hand.starter}, declarers team {hand.declarers}, "
              f"trump {trump_text(hand.trump)}")
    dealt = len(hand.declarations) - len(hand.thefts)  # the thefts come last
    for seat, faces in hand.declarations[:dealt]:
        write(f"  seat {seat} declared {format_cards(faces, symbols=True)}")
    for seat, faces in hand.thefts:
        write(f"  {theft_words(f'seat {seat}', faces)}")
    write(f"  buried: {format_cards(hand.buried, symbols=True)}")
    revealed: dict[int, list[str]] = {}
    if friends:
        assert hand.sides is not None and hand.starter is not None
        calls, starter = hand.sides.calls, hand.starter
        write(f"  {call_words(f'seat {starter}', calls)}")
        for r in reveals_in(rules, starter, calls, hand.tricks):
            revealed.setdefault(r.trick, []).append(reveal_words(
                f"seat {r.seat}", f"seat {starter}", calls[r.call], r.seat == starter))
    for i, trick in enumerate(hand.tricks, 1):
        plays = "  ".join(
            f"{(trick.leader + k) % rules.players}:{format_cards(p, symbols=True)}"
            for k, p in enumerate(trick.plays))
        extra = ""
        if trick.attempted:
            extra = (f"  (failed throw {format_cards(trick.attempted, symbols=True)}, "
                     f"penalty {trick.penalty})")
        write(f"  trick {i:2}: {plays}  -> seat {trick.winner} +{trick.points}{extra}")
        for line in revealed.get(i, []):
            write(f"            * {line}")
    if not friends:
        write(f"defender points {result.defender_points} (talon {result.talon_points}, "
              f"bonus {result.talon_bonus}); team {result.gaining_team} gains "
              f"{count(result.levels_gained, 'level')}; next starter seat "
              f"{result.next_starter}")
        return
    write(f"defender points {result.defender_points} (talon {result.talon_points}, "
          f"bonus {result.talon_bonus})")
    for line in result_lines(rules, hand.levels, result.side, result.gaining,
                             result.levels_gained, result.next_starter, lambda s: f"seat {s}"):
        write(line)
