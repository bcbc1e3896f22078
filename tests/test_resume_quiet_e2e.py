"""`tractor resume` of a killed practice game, as the person sees it (issue 28, item 6): the
count of messages checked reaches its total; an AI seat that this machine is starting again
and that is slow to come (held stopped here for longer than a lost link takes to be told)
is waited for without a "no link with seat" warning, and the hand goes on once it comes;
an AI seat whose process dies is still told at once."""

from __future__ import annotations

import os
import re
import signal
import time

import pytest
from processes import Session, ai_processes
from test_resume_e2e import FAST, moves

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e


def killed_practice_game(home) -> dict[str, str]:
    """A practice game a few plays in, killed without warning (its AI peers leave too)."""
    env = {**os.environ, "TRACTOR_HOME": str(home), "NO_COLOR": "1"}
    play = Session(["play", "--plain", *FAST, "--strategy", "heuristic", "--level", "easy",
                    "--player", "You"], env)
    try:
        made = play.answer_prompts(40, 120, stop=lambda out: moves(out) >= 3)
        assert made >= 3, play.out[-2000:]
    finally:
        play.proc.send_signal(signal.SIGKILL)
        play.proc.wait()
    deadline = time.time() + 20
    while ai_processes(home) and time.time() < deadline:
        time.sleep(0.3)
    assert ai_processes(home) == []
    return env


def first_ai_child(home, seconds: float) -> int:
    """The first AI process `tractor resume` starts, caught as it starts (it takes a good
    fraction of a second before it listens)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        found = ai_processes(home)
        if found:
            return min(found)
        time.sleep(0.005)
    raise AssertionError("tractor resume started no AI peer")


def counts(out: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in re.findall(r"checked (\d+) of (\d+) signed messages",
                                                    out)]


def test_a_slow_ai_seat_of_this_machine_is_waited_for_without_a_warning(tmp_path):
    env = killed_practice_game(tmp_path)
    resumed = Session(["resume", "--plain", *FAST], env)
    try:
        late = first_ai_child(tmp_path, 60)
        os.kill(late, signal.SIGSTOP)
        try:
            # Longer than a lost link takes to be told (3 s) after the person's seat is back.
            assert resumed.until(lambda out: "reconnecting to the other seats" in out, 60), \
                resumed.out
            resumed.until(lambda out: "no link with" in out, 8)
        finally:
            os.kill(late, signal.SIGCONT)
        told = counts(resumed.out)
        assert told and told[-1][0] == told[-1][1] > 0, resumed.out[-2000:]
        resumed.answer_prompts(60, 120, stop=lambda out: "Hand 1 is over." in out)
        assert "Hand 1 is over." in resumed.out, resumed.out[-3000:]
        assert "no link with" not in resumed.out, resumed.out[-3000:]
        resumed.send("quit")
        resumed.proc.wait(timeout=60)
    finally:
        if resumed.proc.poll() is None:
            resumed.proc.kill()


def test_an_ai_seat_that_dies_as_it_restarts_is_still_told(tmp_path):
    env = killed_practice_game(tmp_path)
    resumed = Session(["resume", "--plain", *FAST], env)
    try:
        dead = first_ai_child(tmp_path, 60)
        os.kill(dead, signal.SIGKILL)
        assert resumed.until(lambda out: "no link with seat" in out, 30), resumed.out[-2000:]
        assert re.search(r"AI \(seat \d\).*see ai\.log", resumed.out), resumed.out[-2000:]
        resumed.send("quit")
        resumed.proc.wait(timeout=60)
    finally:
        if resumed.proc.poll() is None:
            resumed.proc.kill()
