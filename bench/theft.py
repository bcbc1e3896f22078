"""Kitty theft (`Rules.kitty_theft`) and the heuristic's answer to it, in-process on the
rules core: how often a seat may take the kitty, how often it does, and what it brings.

    python bench/theft.py --deals N [--seed S] [--jobs J]
    python bench/theft.py --branches --deals N [--seed S] [--jobs J]

By default each seeded deal (the same decks, starters and seat seeds as bench/ai_eval.py's
later hands at level 2) is played twice with every seat the heuristic: the seats of side A
answer the theft window with the heuristic's `choose_theft`, those of side B always pass;
then the sides are swapped, so the luck of the cards cancels. Printed: the window's turns,
the opportunities (a seat to answer it holds a legal overcall) and the thefts of each side,
and A's gains over B per deal pair (levels, and defender points signed for A) with 95%
intervals. The search player answers the window as the heuristic does (its own part is
the card play only).

With ``--branches``, at each opportunity of the first window (the seats before it
passed) the hand is played to the end twice from there, the seat taking the kitty with
its best overcall (by `trump_choice.above_fair`) or passing, every other decision the
heuristic's; the gains of taking it are grouped by thief (an opponent of the seat that
buried, or its partner), by overcall (a pair, or jokers) and by how much weaker the
overcall's trump leaves the thief's hand than the standing one (``above_fair`` of each):
the figures that set `trump_choice.OPPONENT_MARGIN` and `PARTNER_MARGIN`.

The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing import Pool
from typing import Any

from ai_eval import Clock, deal_setup, mean_interval, new_hand, play_hand, seat_seed

from tractor.actions import Action, Declare, Pass
from tractor.ai.players.base import ObservingStrategy
from tractor.ai.players.heuristic import HeuristicStrategy
from tractor.ai.players.trump_choice import above_fair
from tractor.ai.players.worlds import Knowledge
from tractor.dealing import declared_trump
from tractor.hand import Hand
from tractor.observation import Observation
from tractor.phases import THEFT
from tractor.rules import Rules, team_of

RULES = Rules(kitty_theft=True)
#: The bins of ``--branches``: how much weaker the overcall leaves the hand.
EDGES = (-1.0, -0.25, -0.2, -0.15, -0.1, -0.05, 0.0, 0.1, 1.0)


class Passer(ObservingStrategy):
    """The heuristic, passing at every kitty-theft window."""

    name = "passer"

    def __init__(self, seed: int) -> None:
        self.inner = HeuristicStrategy(seed)

    def decide(self, obs: Observation, rules: Rules) -> Action:
        if obs.phase == THEFT:
            return Pass(obs.seat)
        return self.inner.decide(obs, rules)

    def decide_declaration(self, obs: Observation, rules: Rules) -> Declare | None:
        return self.inner.decide_declaration(obs, rules)


@dataclass
class Tally:
    """What one side did at the windows of some hands."""

    turns: int = 0
    chances: int = 0  #: turns holding a legal overcall
    thefts: int = 0

    def add(self, other: Tally) -> None:
        self.turns += other.turns
        self.chances += other.chances
        self.thefts += other.thefts


@dataclass
class PairOutcome:
    """One deal played with A at the even seats, then at the odd ones."""

    levels: int = 0  #: levels A gained minus levels B gained, over both hands
    points: int = 0  #: defender points signed for A, over both hands
    hands_with_chance: int = 0
    hands_with_theft: int = 0
    tallies: dict[str, Tally] = field(default_factory=lambda: {"A": Tally(), "B": Tally()})


def play(hand: Hand, seats: Sequence[ObservingStrategy], sides: Sequence[str],
         tallies: dict[str, Tally]) -> Hand:
    """``hand`` to the end (`ai_eval.play_hand`: declarations after each round of draws,
    as between peers), counting each side's turns in the theft windows."""
    clocks = [Clock() for _ in seats]
    while play_hand(hand, seats, clocks, until=THEFT).phase == THEFT:
        seat = hand.to_act()
        assert seat is not None
        action = seats[seat].act(hand, seat)
        tally = tallies[sides[seat]]
        tally.turns += 1
        tally.chances += bool(hand.declarable(seat, hand.hands[seat]))
        tally.thefts += isinstance(action, Declare)
        hand.apply(action)
    return hand


def play_pair(job: tuple[int, int]) -> PairOutcome:
    seed, pair = job
    deck, starter = deal_setup(RULES, seed, pair)
    out = PairOutcome()
    for a_team in (0, 1):
        sides = ["A" if team_of(s) == a_team else "B" for s in range(RULES.players)]
        seats = [HeuristicStrategy(seat_seed(seed, pair, s)) if sides[s] == "A"
                 else Passer(seat_seed(seed, pair, s)) for s in range(RULES.players)]
        tallies = {"A": Tally(), "B": Tally()}
        hand = play(new_hand(RULES, list(deck), starter), seats, sides, tallies)
        res = hand.result
        assert res is not None
        out.levels += res.levels_gained if res.gaining_team == a_team else -res.levels_gained
        out.points += res.defender_points * (-1 if hand.declarers == a_team else 1)
        out.hands_with_chance += any(t.chances for t in tallies.values())
        out.hands_with_theft += any(t.thefts for t in tallies.values())
        for side, tally in tallies.items():
            out.tallies[side].add(tally)
    return out


def branch_deal(job: tuple[int, int]) -> list[dict[str, Any]]:
    """Each opportunity of one deal's first window, played out both ways."""
    seed, pair = job
    deck, starter = deal_setup(RULES, seed, pair)
    seats = [HeuristicStrategy(seat_seed(seed, pair, s)) for s in range(RULES.players)]
    hand = new_hand(RULES, list(deck), starter)
    n = hand.players
    play_hand(hand, seats, [Clock() for _ in seats], until=THEFT)  # (the deal and burial)
    rows = []
    while hand.phase == THEFT:
        seat = hand.to_act()
        assert seat is not None and hand.exchanger is not None and hand.trump is not None
        obs = hand.observe(seat)
        options = Knowledge.from_observation(RULES, obs).legal_declarations()
        if options:
            best = max(options, key=lambda d: above_fair(obs.hand, declared_trump(
                d.faces, obs.trump_rank)))
            gap = above_fair(obs.hand, declared_trump(best.faces, obs.trump_rank)) \
                - above_fair(obs.hand, hand.trump)
            team = team_of(seat)
            outcomes = []
            for first in (best, Pass(seat)):
                world = hand.clone()
                world.apply(first)
                res = play(world, seats, ["A"] * n, {"A": Tally()}).result
                assert res is not None
                levels = res.levels_gained * (1 if res.gaining_team == team else -1)
                points = res.defender_points * (-1 if world.declarers == team else 1)
                outcomes.append((levels, points))
            (took_l, took_p), (passed_l, passed_p) = outcomes
            rows.append({"partner": team_of(hand.exchanger) == team,
                         "jokers": best.faces[0] >= 52, "gap": gap,
                         "levels": took_l - passed_l, "points": took_p - passed_p})
        hand.apply(Pass(seat))
    return rows


def run(fn: Any, jobs: list[tuple[int, int]], workers: int) -> list[Any]:
    if workers <= 1:
        return [fn(job) for job in jobs]
    with Pool(workers) as pool:
        return list(pool.imap(fn, jobs, chunksize=4))


def match(seed: int, deals: int, workers: int) -> dict[str, Any]:
    pairs: list[PairOutcome] = run(play_pair, [(seed, i) for i in range(deals)], workers)
    totals = {"A": Tally(), "B": Tally()}
    for p in pairs:
        for side in totals:
            totals[side].add(p.tallies[side])
    levels = [p.levels for p in pairs]
    points = [p.points for p in pairs]
    lv_lo, lv_hi = mean_interval(levels)
    pt_lo, pt_hi = mean_interval(points)
    hands = 2 * deals
    print(f"{deals} deal pairs ({hands} hands), A: the heuristic's choose_theft, B: passes")
    print(f"hands with a chance to steal: {sum(p.hands_with_chance for p in pairs)}, "
          f"with a theft: {sum(p.hands_with_theft for p in pairs)}")
    for side, t in totals.items():
        print(f"  {side}: {t.turns} window turns, {t.chances} with an overcall in hand, "
              f"{t.thefts} thefts")
    print(f"A's gain per deal pair: levels {sum(levels) / deals:+.3f} "
          f"(95% CI {lv_lo:+.3f} to {lv_hi:+.3f}), defender points "
          f"{sum(points) / deals:+.1f} (95% CI {pt_lo:+.1f} to {pt_hi:+.1f})")
    return {"deal_pairs": deals, "hands_with_chance": sum(p.hands_with_chance for p in pairs),
            "hands_with_theft": sum(p.hands_with_theft for p in pairs),
            **{f"{s.lower()}_{k}": v for s, t in totals.items() for k, v in vars(t).items()},
            "mean_level_gain": round(sum(levels) / deals, 4),
            "level_ci": [round(lv_lo, 4), round(lv_hi, 4)],
            "mean_point_gain": round(sum(points) / deals, 2),
            "point_ci": [round(pt_lo, 2), round(pt_hi, 2)]}


def branches(seed: int, deals: int, workers: int) -> dict[str, Any]:
    rows = [r for rs in run(branch_deal, [(seed, i) for i in range(deals)], workers)
            for r in rs]
    print(f"{len(rows)} opportunities in the first window of {deals} hands: gain of taking "
          "the kitty over passing, by how much weaker the overcall leaves the hand")
    table = []
    for partner in (False, True):
        for jokers in (False, True):
            who = ("partner" if partner else "opponent") + (", jokers" if jokers else ", pair")
            for lo, hi in zip(EDGES, EDGES[1:], strict=False):
                cell = [r for r in rows if r["partner"] == partner and r["jokers"] == jokers
                        and lo <= r["gap"] < hi]
                if not cell:
                    continue
                pts = [r["points"] for r in cell]
                p_lo, p_hi = mean_interval(pts)
                mean_l = sum(r["levels"] for r in cell) / len(cell)
                print(f"  {who:17s} [{lo:+.2f},{hi:+.2f}) n={len(cell):4d} points "
                      f"{sum(pts) / len(pts):+6.1f} ({p_lo:+6.1f} to {p_hi:+6.1f}) "
                      f"levels {mean_l:+.2f}")
                table.append({"who": who, "gap": [lo, hi], "n": len(cell),
                              "points": round(sum(pts) / len(pts), 2),
                              "levels": round(mean_l, 3)})
    return {"opportunities": len(rows), "cells": table}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--branches", action="store_true",
                        help="each opportunity played out both ways")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    summary = (branches if args.branches else match)(args.seed, args.deals, args.jobs)
    summary["wall_seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(summary))
    sys.stdout.flush()
    return summary


if __name__ == "__main__":
    main()
