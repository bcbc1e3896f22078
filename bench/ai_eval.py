"""Duplicate matches between two AI strategies, in-process on the rules core.

    python bench/ai_eval.py --a search --b heuristic --deals N [--jobs J] [--seed S]
                            [--level normal] [--auction] [--players 4 --decks 2]

Each deal (a seeded shuffled deck, starter and strategy seeds) is played twice with the
teams swapped: strategy A at the even seats and B at the odd seats, then the other way
round, so the luck of the cards cancels. The hand is a later hand of a game with both
teams at level 2: the seeded starter's team declares, trump is declared during the deal
by whichever seats choose to (or, if nobody does, turned up from the talon), then the
starter buries the talon and the 25 tricks are played. (A first hand would tie the
declaring team to who declares and redeal when nobody does, which breaks the pairing.)
With ``--auction`` the hand uses the seed-001 auction from the seeded dealer instead.

With ``--mode friends`` (find-a-friend, ``--players`` 4 to 12, odd too) the hand is a later
hand with every player at level 2 and the seeded starter. The deal, the burial and the
calls are the heuristic's for every seat (the search player's are the heuristic's too), so
both hands of a pair reach the same first trick; then A plays the starter's side-to-be (the
starter and every seat holding a copy of a called card, `side_to_be`) and B the others, and
in the second hand the other way round. Each hand's level change is summed over seats: the
levels A's seats gained minus those B's seats gained; the points are the defenders', signed
as A's when A holds the starter's seat. So every seat is played once by each strategy.

A deal pair goes to the side whose level gains over its two hands are larger (each hand's
level change signed from A's point of view); equal gains are broken by the defenders'
points (A's points as defender minus B's); a full tie counts half. The share of pairs won
by A comes with a 95% Wilson interval, the mean level difference per pair with a 95% normal
interval. Every ``act``/``declare`` call is timed per side.

Per-pair seeds derive from ``--seed`` and the pair number only, so results do not depend
on ``--jobs``. The last line printed is one JSON object: ``{"deal_pairs", "share_won",
"ci_low", "ci_high", "a_decision_p95_s", "a_decision_max_s", ..., "mode", "players",
"level_diff_ci_low", "level_diff_ci_high"}``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing import Pool
from typing import Any

from tractor.actions import Draw
from tractor.ai.players.base import Strategy
from tractor.ai.players.strategies import LEVELS, STRATEGIES, make_strategy
from tractor.hand import Hand
from tractor.phases import CALL, DEAL, DONE, PLAY, TALON, Phase
from tractor.rules import Rules, team_of

SIDES = ("A", "B")


@dataclass
class HandScore:
    """One hand from A's point of view."""

    a_declares: bool
    defender_points: int
    levels: int  #: levels A gained (negative: levels B gained)

    @property
    def a_points(self) -> int:
        """Defender points signed for A: A's own as defender, minus B's as defender."""
        return -self.defender_points if self.a_declares else self.defender_points


@dataclass
class Clock:
    """Decision times of one side: wall seconds of every ``act``/``declare`` call, the CPU
    seconds of the same calls (wall time also counts other processes on a busy machine),
    and wall seconds of the card-play decisions alone (burying and tricks)."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    play: list[float] = field(default_factory=list)

    def call(self, fn: Callable[[Hand, int], Any], hand: Hand, seat: int) -> Any:
        playing = hand.phase in (TALON, CALL, PLAY)
        c0 = time.thread_time()
        t0 = time.perf_counter()
        out = fn(hand, seat)
        wall = time.perf_counter() - t0
        self.cpu.append(time.thread_time() - c0)
        self.wall.append(wall)
        if playing:
            self.play.append(wall)
        return out


@dataclass
class PairResult:
    pair: int
    hands: list[HandScore]
    times: dict[str, Clock] = field(default_factory=dict)

    @property
    def level_diff(self) -> int:
        return sum(h.levels for h in self.hands)

    @property
    def point_diff(self) -> int:
        return sum(h.a_points for h in self.hands)

    @property
    def outcome(self) -> float:
        return pair_outcome(self.level_diff, self.point_diff)


def pair_outcome(level_diff: int, point_diff: int) -> float:
    """A's score for a deal pair: 1 won, 0 lost, 0.5 a full tie."""
    if level_diff:
        return 1.0 if level_diff > 0 else 0.0
    if point_diff:
        return 1.0 if point_diff > 0 else 0.0
    return 0.5


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a share (ties may make ``wins`` fractional)."""
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(q / 100 * len(s)) - 1))
    return s[k]


def deal_setup(rules: Rules, seed: int, pair: int) -> tuple[list[int], int]:
    """The deck and the starter (or auction dealer) of one deal pair."""
    rng = random.Random(f"ai_eval:{seed}:{pair}")
    deck = [f for f in range(54) for _ in range(rules.decks)]
    rng.shuffle(deck)
    return deck, rng.randrange(rules.players)


def seat_seed(seed: int, pair: int, seat: int) -> int:
    return zlib.crc32(f"ai_eval:{seed}:{pair}:{seat}".encode())


def new_hand(rules: Rules, deck: list[int], starter: int) -> Hand:
    if rules.mode == "friends":
        return Hand(rules, deck, [rules.start_level] * rules.level_count, first=starter,
                    starter=starter, declarers=None)
    levels = [rules.start_level] * 2
    if rules.declaration == "auction":
        return Hand(rules, deck, levels, first=starter)
    return Hand(rules, deck, levels, first=starter, starter=starter,
                declarers=team_of(starter))


def play_hand(hand: Hand, seats: Sequence[Strategy], clocks: Sequence[Clock],
              until: Phase = DONE) -> Hand:
    """Play ``hand`` to the end (or to phase ``until``); ``clocks[s]`` times seat ``s``'s
    decisions. During the deal every seat is asked to declare after each round of draws,
    as between peers."""
    n = hand.players
    while hand.phase not in (DONE, until):
        seat = hand.to_act()
        assert seat is not None, f"hand stuck in phase {hand.phase}"
        action = clocks[seat].call(seats[seat].act, hand, seat)
        hand.apply(action)
        if isinstance(action, Draw) and hand.phase == DEAL and hand.drawn % n == 0:
            for i in range(n):
                s = (hand.first + i) % n
                decl = clocks[s].call(seats[s].declare, hand, s)
                if decl is not None:
                    hand.apply(decl)
    return hand


def play_pair(job: tuple[str, str, str, int, int, Rules]) -> PairResult:
    """Both hands of one deal pair: A at the even seats, then at the odd seats (in
    find-a-friend: `play_friends_pair`)."""
    a, b, level, seed, pair, rules = job
    if rules.mode == "friends":
        return play_friends_pair(job)
    deck, starter = deal_setup(rules, seed, pair)
    n = rules.players
    times = {"A": Clock(), "B": Clock()}
    hands = []
    for a_team in (0, 1):
        names = [a if team_of(s) == a_team else b for s in range(n)]
        seats = [make_strategy(names[s], level, seat_seed(seed, pair, s)) for s in range(n)]
        side_times = [times["A" if team_of(s) == a_team else "B"] for s in range(n)]
        hand = play_hand(new_hand(rules, list(deck), starter), seats, side_times)
        res = hand.result
        assert res is not None and hand.declarers is not None
        gain = res.levels_gained if res.gaining_team == a_team else -res.levels_gained
        hands.append(HandScore(hand.declarers == a_team, res.defender_points, gain))
    return PairResult(pair, hands, times)


def side_to_be(hand: Hand) -> tuple[int, ...]:
    """Find-a-friend at the first trick: the starter and the seats holding a copy of a
    called card (those that can answer a call)."""
    assert hand.sides is not None and hand.starter is not None
    called = {c.face for c in hand.sides.calls}
    return tuple(s for s in range(hand.players) if s == hand.starter
                 or called & set(hand.hands[s]))


def play_friends_pair(job: tuple[str, str, str, int, int, Rules]) -> PairResult:
    """Both hands of one find-a-friend deal pair: the same deal, burial and calls (the
    heuristic's), then A at the starter's side-to-be and B at the other seats, then the
    other way round."""
    a, b, level, seed, pair, rules = job
    deck, starter = deal_setup(rules, seed, pair)
    n = rules.players
    before = [make_strategy("heuristic", level, seat_seed(seed, pair, s)) for s in range(n)]
    start = play_hand(new_hand(rules, list(deck), starter), before,
                      [Clock() for _ in range(n)], until=PLAY)
    group = side_to_be(start)
    times = {"A": Clock(), "B": Clock()}
    hands = []
    for a_seats in (group, tuple(s for s in range(n) if s not in group)):
        seats = [make_strategy(a if s in a_seats else b, level, seat_seed(seed, pair, s))
                 for s in range(n)]
        side_times = [times["A" if s in a_seats else "B"] for s in range(n)]
        hand = play_hand(start.clone(), seats, side_times)
        res = hand.result
        assert res is not None
        gain = sum((res.levels_gained if s in res.gaining else 0) * (1 if s in a_seats else -1)
                   for s in range(n))
        hands.append(HandScore(starter in a_seats, res.defender_points, gain))
    return PairResult(pair, hands, times)


def run_match(a: str, b: str, deals: int, seed: int = 1, level: str = "normal",
              rules: Rules | None = None, jobs: int = 1,
              report: Callable[[PairResult], None] | None = None) -> list[PairResult]:
    """Play ``deals`` deal pairs (spread over ``jobs`` processes), in pair order."""
    rules = rules or Rules()
    work = [(a, b, level, seed, i, rules) for i in range(deals)]
    results: list[PairResult] = []
    if jobs <= 1:
        for job in work:
            r = play_pair(job)
            results.append(r)
            if report:
                report(r)
        return results
    with Pool(jobs) as pool:
        for r in pool.imap_unordered(play_pair, work, chunksize=1):
            results.append(r)
            if report:
                report(r)
    results.sort(key=lambda r: r.pair)
    return results


def summarize(results: Sequence[PairResult], a: str, b: str) -> dict[str, Any]:
    """The match figures: share of pairs won by A with its interval, decision times."""
    n = len(results)
    won = sum(r.outcome for r in results)
    lo, hi = wilson(won, n)
    out: dict[str, Any] = {
        "deal_pairs": n,
        "share_won": round(won / n, 4) if n else 0.0,
        "ci_low": round(lo, 4),
        "ci_high": round(hi, 4),
    }
    for side in SIDES:
        clocks = [r.times[side] for r in results if side in r.times]
        key = side.lower()
        for what, stat in (("", "wall"), ("_cpu", "cpu"), ("_play", "play")):
            ts = [t for c in clocks for t in getattr(c, stat)]
            out[f"{key}_decision{what}_p50_s"] = round(percentile(ts, 50), 6)
            out[f"{key}_decision{what}_p95_s"] = round(percentile(ts, 95), 6)
            out[f"{key}_decision{what}_max_s"] = round(max(ts, default=0.0), 6)
        out[f"{key}_decisions"] = sum(len(c.wall) for c in clocks)
    out.update({
        "a": a, "b": b,
        "pairs_won": won,
        "mean_level_diff": round(sum(r.level_diff for r in results) / n, 3) if n else 0.0,
        "mean_point_diff": round(sum(r.point_diff for r in results) / n, 2) if n else 0.0,
    })
    lo, hi = mean_interval([r.level_diff for r in results])
    out.update({"level_diff_ci_low": round(lo, 3), "level_diff_ci_high": round(hi, 3)})
    return out


def mean_interval(values: Sequence[float], z: float = 1.96) -> tuple[float, float]:
    """The 95% normal interval of a mean (the mean itself for fewer than two values)."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0
    mean = sum(values) / n
    if n < 2:
        return mean, mean
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return mean - z * sd / math.sqrt(n), mean + z * sd / math.sqrt(n)


def describe_pair(r: PairResult) -> str:
    parts = []
    for h in r.hands:
        role = "A declares" if h.a_declares else "A defends"
        parts.append(f"{role}: defenders {h.defender_points:3d} pts, A {h.levels:+d}")
    verdict = {1.0: "A", 0.0: "B", 0.5: "tie"}[r.outcome]
    return (f"deal {r.pair:4d}: " + " | ".join(parts)
            + f" -> levels {r.level_diff:+d}, points {r.point_diff:+d}: {verdict}")


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--a", default="heuristic", choices=STRATEGIES)
    parser.add_argument("--b", default="random", choices=STRATEGIES)
    parser.add_argument("--deals", type=int, default=100, help="deal pairs to play")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", default="normal", choices=LEVELS)
    parser.add_argument("--auction", action="store_true", help="seed-001 auction hands")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--decks", type=int, default=2)
    parser.add_argument("--mode", default="teams", choices=("teams", "friends"),
                        help="friends: find-a-friend (any player count from 4 to 12)")
    args = parser.parse_args(argv)
    rules = Rules(players=args.players, decks=args.decks, mode=args.mode,
                  declaration="auction" if args.auction else "reveal")
    t0 = time.perf_counter()
    results = run_match(args.a, args.b, args.deals, args.seed, args.level, rules, args.jobs,
                        report=lambda r: print(describe_pair(r), flush=True))
    wall = time.perf_counter() - t0
    summary = summarize(results, args.a, args.b)
    summary["wall_seconds"] = round(wall, 1)
    summary["mode"], summary["players"] = args.mode, args.players
    print(f"A={args.a} vs B={args.b} ({args.level}), {summary['deal_pairs']} deal pairs: "
          f"A won {summary['pairs_won']:g} = {100 * summary['share_won']:.1f}% "
          f"(95% CI {100 * summary['ci_low']:.1f}%-{100 * summary['ci_high']:.1f}%); "
          f"mean per pair: levels {summary['mean_level_diff']:+.2f}, "
          f"points {summary['mean_point_diff']:+.1f}")
    unit = "seat-levels" if args.mode == "friends" else "levels"
    print(f"{args.mode}, {args.players} players: mean level difference per pair "
          f"{summary['mean_level_diff']:+.2f} {unit} (95% CI "
          f"{summary['level_diff_ci_low']:+.2f} to {summary['level_diff_ci_high']:+.2f})")
    for side, name in zip(SIDES, (args.a, args.b), strict=True):
        k = side.lower()
        print(f"decision time {side}={name} over {summary[f'{k}_decisions']} calls:")
        for what, label in (("", "all, wall"), ("_cpu", "all, CPU"), ("_play", "card play")):
            ms = [1000 * summary[f"{k}_decision{what}_{q}_s"] for q in ("p50", "p95", "max")]
            print(f"  {label:10s} p50 {ms[0]:.3f} ms, p95 {ms[1]:.3f} ms, max {ms[2]:.3f} ms")
    print(f"wall time {wall:.1f} s with {args.jobs} job(s)")
    print(json.dumps(summary))
    sys.stdout.flush()
    return summary


if __name__ == "__main__":
    main()
