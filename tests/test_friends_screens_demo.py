"""Issue 31: `tractor demo --rules players=5,mode=friends` prints a hand of find-a-friend as
a person reads it (the calls, the moment each friend is revealed, the sides, the seats
that go up and every player's level), and the teams demo reads as it always did."""

from __future__ import annotations

import re

import pytest

from tractor import Rules
from tractor.cli.demo import first_hand
from tractor.cli.main import main
from tractor.friends import Sides


def run_demo(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["demo", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("players,seed", [(5, 0), (5, 3), (6, 4), (7, 1)])
def test_friends_demo_tells_calls_reveals_sides_and_levels(capsys, players, seed) -> None:
    code, out, err = run_demo(capsys, "--rules", f"players={players},mode=friends",
                              "--seed", str(seed))
    assert code == 0 and err == ""
    rules = Rules(players=players, mode="friends")
    hand = first_hand(rules, seed)  # the same hand, from the rules core
    assert hand.sides is not None and hand.result is not None
    starter, calls, result = hand.starter, hand.sides.calls, hand.result
    lines = out.splitlines()
    assert lines[0].startswith(f"seed {seed}: {players} players, find-a-friend; starter "
                               f"seat {starter}, trump ")
    called = f"  seat {starter} calls " + " and ".join(str(c) for c in calls)
    if len(calls) > 2:
        called = f"  seat {starter} calls " + ", ".join(str(c) for c in calls[:-1]) + \
            f" and {calls[-1]}"
    assert called in lines
    # Each friend is told right under the trick in which it played the called card.
    sides = Sides(rules, starter, calls)
    for number, trick in enumerate(hand.tricks, 1):
        joined = []
        for k, faces in enumerate(trick.plays):
            seat = (trick.leader + k) % players
            if sides.on_play(seat, faces):
                joined.append(seat)
        at = lines.index(next(line for line in lines if line.startswith(
            f"  trick {number:2}: ")))
        told = []
        for line in lines[at + 1:]:
            if not line.startswith("            * "):
                break
            told.append(line)
        assert [int(re.search(r"seat (\d+) is", t).group(1)) for t in told
                if " is seat " in t] == joined
    side = ", ".join(f"seat {s}" for s in result.side[:-1])
    side = f"{side} and seat {result.side[-1]}" if len(result.side) > 1 else \
        f"seat {result.side[0]} (alone)"
    assert any(line.startswith(f"Starter's side: {side}; defenders: ") for line in lines)
    levels = next(line for line in lines if line.startswith("Levels: "))
    assert len(levels.split(", ")) == players  # one level per player
    for s in range(players):
        rises = f"seat {s} 2 → " in levels
        assert rises == (s in result.gaining and result.levels_gained > 0)
    assert lines[-1] == f"Next starter: seat {result.next_starter}."


def test_friends_demo_names_a_call_falling_to_the_starter() -> None:
    """A hand where the starter plays its own called card: the demo says the call fell to
    the starter itself (found by searching seeds with the rules core)."""
    rules = Rules(players=5, mode="friends")
    for seed in range(60):
        hand = first_hand(rules, seed)
        assert hand.sides is not None
        if hand.starter in hand.sides.friends:
            break
    else:
        pytest.skip("no seed below 60 has a call falling to the starter")
    lines: list[str] = []
    from tractor.cli.demo import demo

    demo(seed, rules, lines.append)
    assert any("falls to seat" in line and "the starter itself" in line for line in lines)


def test_teams_demo_reads_as_before(capsys) -> None:
    code, out, _ = run_demo(capsys, "--seed", "3")
    lines = out.splitlines()
    assert code == 0
    assert lines[:3] == ["seed 3: starter seat 1, declarers team 1, trump rank 2, ♥",
                         "  seat 1 declared ♥2",
                         "  buried: ♦2 ♣7 ♣10 ♥J ♥5 ♣8 ♠5 ♦Q"]
    assert lines[-1] == ("defender points 100 (talon 20, bonus 0); team 0 gains 0 levels; "
                         "next starter seat 2")
    assert len(lines) == 28 and "calls" not in out and "Levels" not in out


def test_demo_rules_refused_with_the_reason(capsys) -> None:
    code, out, err = run_demo(capsys, "--rules", "players=5")
    assert code == 2 and out == ""
    assert "players must be an even number" in err and "mode=friends" in err
    code, _, err = run_demo(capsys, "--rules", "colour=red")
    assert code == 2 and "unknown rules option" in err


def test_demo_rules_win_over_players(capsys) -> None:
    code, out, _ = run_demo(capsys, "--players", "6", "--rules", "players=5,mode=friends")
    assert code == 0 and "5 players, find-a-friend" in out
