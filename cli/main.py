"""The `tractor` command.

Until the terminal client exists (issue 6), ``tractor`` prints the rules summary;
``tractor demo`` plays one hand of random legal moves on the rules core and
prints it trick by trick.
"""

from __future__ import annotations

import argparse
import random
import sys

from tractor import Game, Rules, RulesError
from tractor.cards import format_cards
from tractor.cli.rules_text import RULES_SUMMARY
from tractor.trump import Trump


def _trump_text(trump: Trump | None) -> str:
    if trump is None:
        return "not declared"
    if trump.rank is None:
        return "jokers only (no trump suit, no trump rank)"
    suit = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}.get(trump.suit or "", "no suit")
    return f"rank {trump.rank}, {suit}"


def demo(seed: int, rules: Rules) -> None:
    """Play and print one hand of random legal moves."""
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    while game.hand_no == 0:
        game.apply(game.random_action(rng))
    hand = game.hands_played[0]
    result = hand.result
    assert result is not None
    print(f"seed {seed}: starter seat {hand.starter}, declarers team {hand.declarers}, "
          f"trump {_trump_text(hand.trump)}")
    for seat, faces in hand.declarations:
        print(f"  seat {seat} declared {format_cards(faces, symbols=True)}")
    print(f"  buried: {format_cards(hand.buried, symbols=True)}")
    for i, trick in enumerate(hand.tricks, 1):
        plays = "  ".join(
            f"{(trick.leader + k) % rules.players}:{format_cards(p, symbols=True)}"
            for k, p in enumerate(trick.plays))
        extra = ""
        if trick.attempted:
            extra = (f"  (failed throw {format_cards(trick.attempted, symbols=True)}, "
                     f"penalty {trick.penalty})")
        print(f"  trick {i:2}: {plays}  -> seat {trick.winner} +{trick.points}{extra}")
    print(f"defender points {result.defender_points} (talon {result.talon_points}, "
          f"bonus {result.talon_bonus}); team {result.gaining_team} gains "
          f"{result.levels_gained} level(s); next starter seat {result.next_starter}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tractor", description="Tractor (Sheng Ji) played peer to peer.")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("rules", help="print the rules summary")
    p_demo = sub.add_parser("demo", help="play one hand of random legal moves and print it")
    p_demo.add_argument("--seed", type=int, default=0, help="shuffle and play seed")
    p_demo.add_argument("--players", type=int, default=4)
    p_demo.add_argument("--decks", type=int, default=2)
    p_demo.add_argument("--auction", action="store_true",
                        help="seed 001 style: points auction, then a card-play for the starter")
    args = parser.parse_args(argv)
    if args.command == "demo":
        try:
            rules = Rules(players=args.players, decks=args.decks,
                          declaration="auction" if args.auction else "reveal")
        except RulesError as exc:
            print(f"tractor: {exc}", file=sys.stderr)
            return 2
        demo(args.seed, rules)
        return 0
    print(RULES_SUMMARY)
    return 0


if __name__ == "__main__":
    sys.exit(main())
