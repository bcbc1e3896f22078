"""Rules-core speed on one core: complete random-legal hands, and legal-move queries.

    python bench/rules.py [--hands N] [--seed S]

A hand is everything from the first card drawn to the score: drawing with random
declarations, the final declaration window (and redeals), burying the talon, and
25 tricks of random legal play, every action checked by ``Game.apply``.
A legal-move query is one ``follow_error`` call: is this play a legal follow of
this lead from this hand? Queries are replayed from positions met in those hands,
half of them the legal play made there and half a random same-size pick.

The last line printed is one JSON object:
``{"hands_per_second": ..., "legal_queries_per_second": ...}``.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from tractor import Game, Play, Rules
from tractor.follow import follow_error
from tractor.phases import PLAY


def play_hands(count: int, seed: int, rules: Rules) -> tuple[float, list[tuple]]:
    """CPU seconds for ``count`` complete hands, and the follow positions met."""
    positions: list[tuple] = []
    rng = random.Random(seed)
    elapsed = 0.0
    for i in range(count):
        game = Game(rules, seed=f"{seed}:{i}")
        t0 = time.process_time()
        while game.hand_no == 0:
            game.apply(game.random_action(rng))
        elapsed += time.process_time() - t0
        positions += _sample_positions(game, seed + i)
    return elapsed, positions


def _sample_positions(game: Game, seed: int) -> list[tuple]:
    """Replay the finished hand and keep (hand, lead format, ladder, play) at each follow."""
    rng = random.Random(seed)
    replay = Game(game.rules, game.seed)
    out = []
    for action in game.actions:
        hand = replay.hand
        if (isinstance(action, Play) and hand.phase == PLAY and hand.current
                and rng.random() < 0.2):
            cards = list(hand.hands[action.seat])
            legal = list(action.faces)
            pick = rng.sample(cards, len(legal))
            rules = game.rules
            out.append((cards, hand.lead_format, hand.ladder, legal, rules.must_play_tractor))
            out.append((cards, hand.lead_format, hand.ladder, pick, rules.must_play_tractor))
        replay.apply(action)
    return out


def time_queries(positions: list[tuple], repeat: int) -> float:
    t0 = time.process_time()
    for _ in range(repeat):
        for hand, lead, ladder, play, must in positions:
            follow_error(hand, lead, play, ladder, must)
    return len(positions) * repeat / (time.process_time() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = Rules()
    elapsed, positions = play_hands(args.hands, args.seed, rules)
    hands_per_second = args.hands / elapsed
    queries_per_second = time_queries(positions, repeat=5)
    print(f"complete random-legal hands: {args.hands} in {elapsed:.2f} CPU s "
          f"= {hands_per_second:.0f} hands/s")
    print(f"legal-move queries: {len(positions)} positions x 5 = {queries_per_second:.0f} /s")
    print(json.dumps({"hands_per_second": round(hands_per_second, 1),
                      "legal_queries_per_second": round(queries_per_second, 1)}))


if __name__ == "__main__":
    main()
