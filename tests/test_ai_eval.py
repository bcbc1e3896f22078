"""The duplicate-match benchmark: pair scoring, ties, the Wilson interval, the JSON last
line, independence from the number of jobs, and a floor: heuristic beats random."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from tractor.phases import PLAY
from tractor.rules import Rules

_PATH = Path(__file__).resolve().parent.parent / "bench" / "ai_eval.py"
_spec = importlib.util.spec_from_file_location("ai_eval", _PATH)
assert _spec and _spec.loader
ai_eval = importlib.util.module_from_spec(_spec)
sys.modules["ai_eval"] = ai_eval  # worker processes find play_pair by this name
_spec.loader.exec_module(ai_eval)

HandScore, PairResult, Clock = ai_eval.HandScore, ai_eval.PairResult, ai_eval.Clock


def test_pair_outcome_levels_then_points_then_half() -> None:
    assert ai_eval.pair_outcome(2, -150) == 1.0
    assert ai_eval.pair_outcome(-1, 200) == 0.0
    assert ai_eval.pair_outcome(0, 5) == 1.0
    assert ai_eval.pair_outcome(0, -5) == 0.0
    assert ai_eval.pair_outcome(0, 0) == 0.5


def test_pair_scores_from_a_point_of_view() -> None:
    # A declares and gains 2 (defenders 25); then A defends, takes 130 and gains 1.
    r = PairResult(0, [HandScore(True, 25, 2), HandScore(False, 130, 1)])
    assert r.level_diff == 3 and r.point_diff == 105 and r.outcome == 1.0
    # A declares and B takes over with +1; then A defends, takes 80 and takes over (+0).
    r = PairResult(1, [HandScore(True, 120, -1), HandScore(False, 80, 0)])
    assert r.level_diff == -1 and r.outcome == 0.0
    # Equal level gains: the defenders' points decide; equal points: half.
    r = PairResult(2, [HandScore(True, 40, 1), HandScore(False, 60, -1)])
    assert r.level_diff == 0 and r.point_diff == 20 and r.outcome == 1.0
    r = PairResult(3, [HandScore(True, 40, 1), HandScore(False, 40, -1)])
    assert r.outcome == 0.5


def test_wilson_interval_is_sane() -> None:
    for wins, n in [(0, 10), (10, 10), (7.5, 10), (170, 200), (1, 1)]:
        lo, hi = ai_eval.wilson(wins, n)
        assert 0.0 <= lo <= wins / n <= hi <= 1.0
    assert ai_eval.wilson(0, 10)[0] == 0.0 and ai_eval.wilson(10, 10)[1] == 1.0
    narrow = ai_eval.wilson(170, 200)
    wide = ai_eval.wilson(17, 20)
    assert narrow[1] - narrow[0] < wide[1] - wide[0]
    lo, hi = ai_eval.wilson(50, 100)
    assert abs(lo - 0.4038) < 1e-3 and abs(hi - 0.5962) < 1e-3
    assert ai_eval.wilson(0, 0) == (0.0, 1.0)


def test_summary_counts_ties_as_half() -> None:
    results = [
        PairResult(0, [HandScore(True, 0, 3), HandScore(False, 100, 0)],
                   {"A": Clock([0.1], [0.1], [0.1]), "B": Clock()}),
        PairResult(1, [HandScore(True, 40, 1), HandScore(False, 40, -1)],
                   {"A": Clock([0.3], [0.01], [])}),
        PairResult(2, [HandScore(True, 130, -1), HandScore(False, 10, -2)],
                   {"A": Clock([0.2], [0.2], [0.2])}),
    ]
    s = ai_eval.summarize(results, "x", "y")
    assert s["deal_pairs"] == 3 and s["pairs_won"] == 1.5 and s["share_won"] == 0.5
    assert s["ci_low"] < 0.5 < s["ci_high"]
    assert s["a_decision_max_s"] == 0.3 and s["a_decision_p95_s"] == 0.3
    assert s["a_decision_cpu_max_s"] == 0.2 and s["a_decision_play_p50_s"] == 0.1
    assert s["a_decisions"] == 3 and s["b_decision_max_s"] == 0.0


def test_a_pair_is_the_same_deal_with_the_teams_swapped() -> None:
    rules = Rules()
    r = ai_eval.play_pair(("heuristic", "random", "normal", 5, 3, rules))
    assert len(r.hands) == 2
    # The starter's team declares in both hands, so A declares in exactly one.
    assert sorted(h.a_declares for h in r.hands) == [False, True]
    assert r.times["A"].wall and r.times["B"].play
    again = ai_eval.play_pair(("heuristic", "random", "normal", 5, 3, rules))
    assert again.hands == r.hands


def test_same_strategy_ties_every_pair() -> None:
    results = ai_eval.run_match("heuristic", "heuristic", 3, seed=2)
    assert [r.outcome for r in results] == [0.5, 0.5, 0.5]


@pytest.mark.e2e  # a pool of worker processes
def test_results_do_not_depend_on_jobs() -> None:
    one = ai_eval.run_match("heuristic", "random", 4, seed=9, jobs=1)
    two = ai_eval.run_match("heuristic", "random", 4, seed=9, jobs=2)
    assert [(r.pair, r.hands) for r in one] == [(r.pair, r.hands) for r in two]


def test_command_prints_json_last(capsys: pytest.CaptureFixture[str]) -> None:
    ai_eval.main(["--a", "heuristic", "--b", "random", "--deals", "3", "--seed", "4"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert sum(line.startswith("deal ") for line in lines) == 3
    last = json.loads(lines[-1])
    for key in ("deal_pairs", "share_won", "ci_low", "ci_high", "a_decision_p95_s",
                "a_decision_max_s"):
        assert key in last
    assert last["deal_pairs"] == 3 and 0 <= last["ci_low"] <= last["ci_high"] <= 1


def test_auction_and_six_players_run() -> None:
    for rules in (Rules(declaration="auction"), Rules(players=6, decks=3)):
        r = ai_eval.run_match("heuristic", "random", 1, seed=3, rules=rules)
        assert len(r) == 1 and len(r[0].hands) == 2


def test_heuristic_beats_random() -> None:
    results = ai_eval.run_match("heuristic", "random", 30, seed=11)
    s = ai_eval.summarize(results, "heuristic", "random")
    assert s["share_won"] >= 0.75, s


# --- find-a-friend ----------------------------------------------------------------------------

FRIENDS5 = Rules(players=5, mode="friends")


def test_a_find_a_friend_pair_plays_the_same_start_with_the_seats_swapped() -> None:
    r = ai_eval.play_pair(("heuristic", "random", "normal", 5, 3, FRIENDS5))
    assert len(r.hands) == 2
    # A holds the starter's side-to-be in one hand, the other seats in the other.
    assert sorted(h.a_declares for h in r.hands) == [False, True]
    assert r.times["A"].play and r.times["B"].play
    assert ai_eval.play_pair(("heuristic", "random", "normal", 5, 3, FRIENDS5)).hands == r.hands


def test_the_side_to_be_is_the_starter_and_the_holders_of_called_cards() -> None:
    deck, starter = ai_eval.deal_setup(FRIENDS5, 1, 0)
    seats = [ai_eval.make_strategy("heuristic", seed=s) for s in range(5)]
    hand = ai_eval.play_hand(ai_eval.new_hand(FRIENDS5, deck, starter), seats,
                             [Clock() for _ in range(5)], until=PLAY)
    group = ai_eval.side_to_be(hand)
    assert hand.sides is not None and starter in group
    called = {c.face for c in hand.sides.calls}
    assert all(called & set(hand.hands[s]) for s in group if s != starter)
    assert not any(called & set(hand.hands[s]) for s in range(5) if s not in group)


@pytest.mark.parametrize("players", [5, 6])
def test_same_strategy_ties_every_find_a_friend_pair(players: int) -> None:
    rules = Rules(players=players, mode="friends")
    results = ai_eval.run_match("heuristic", "heuristic", 3, seed=2, rules=rules)
    assert [r.outcome for r in results] == [0.5, 0.5, 0.5]


def test_heuristic_beats_random_at_find_a_friend() -> None:
    results = ai_eval.run_match("heuristic", "random", 20, seed=11, rules=FRIENDS5)
    s = ai_eval.summarize(results, "heuristic", "random")
    assert s["share_won"] >= 0.75 and s["level_diff_ci_low"] > 0, s


def test_find_a_friend_command_prints_json_last(capsys: pytest.CaptureFixture[str]) -> None:
    ai_eval.main(["--a", "heuristic", "--b", "random", "--deals", "2", "--mode", "friends",
                  "--players", "6"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert sum(line.startswith("deal ") for line in lines) == 2
    assert any(line.startswith("friends, 6 players: mean level difference") for line in lines)
    last = json.loads(lines[-1])
    assert last["mode"] == "friends" and last["players"] == 6 and last["deal_pairs"] == 2
    assert last["level_diff_ci_low"] <= last["mean_level_diff"] <= last["level_diff_ci_high"]
