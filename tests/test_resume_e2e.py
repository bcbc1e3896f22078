"""`tractor resume` end to end: a `tractor play` process is killed (SIGKILL) in the middle of
a hand; its AI peer processes leave with it; `tractor resume` brings the person's seat and
the AI seats back from their journals on the same ports, and the hand goes on to its summary
with every peer's verdict."""

from __future__ import annotations

import os
import re
import signal
import time

import pytest
from processes import PROMPTS, Session, ai_processes

from tractor.cli.going_on import GoingOn
from tractor.net.journal.store import Journal

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e

#: The person's options a test that is not about them turns off: the deal's pace (10 s a
#: hand) and the hint's thinking (the quickest level).
FAST = ["--deal-pace", "0", "--hint-level", "easy"]
#: `tractor play` has take-backs: its AI seats would wait 1.5 s after each play of the person.
FAST_PLAY = [*FAST, "--takeback-wait", "0"]


def moves(out: str) -> int:
    """The person's plays so far (leads, throws and follows) in a --plain transcript."""
    return len(re.findall(r"· You (?:plays|leads|throws) ", out))


def resume_to_verified(env: dict[str, str]) -> Session:
    """`tractor resume --plain` takes the killed game back; its hand is played out with the
    hints to every peer's verdict, then the person quits."""
    resumed = Session(["resume", "--plain", *FAST], env)
    try:
        assert resumed.until(lambda out: "resuming game" in out, 60), resumed.out
        resumed.answer_prompts(60, 120, stop=lambda out: "Hand 1 is over." in out)
        assert resumed.until(lambda out: "verified the hand" in out, 60), resumed.out[-3000:]
        assert "4 of 4 peers verified the hand: no rule broken" in resumed.out
        resumed.send("quit")
        resumed.proc.wait(timeout=60)
    finally:
        if resumed.proc.poll() is None:
            resumed.proc.kill()
    return resumed


def test_resume_after_the_play_process_is_killed(tmp_path):
    env = {**os.environ, "TRACTOR_HOME": str(tmp_path), "NO_COLOR": "1"}
    play = Session(["play", "--plain", *FAST_PLAY, "--strategy", "heuristic", "--level", "easy",
                    "--player", "You"], env)
    try:
        # A few tricks in (the person's 4th play: a hand of long throws may end after 5),
        # kill it without warning.
        made = play.answer_prompts(40, 120, stop=lambda out: moves(out) >= 4)
        assert made >= 4, play.out[-2000:]
    finally:
        play.proc.send_signal(signal.SIGKILL)
        play.proc.wait()
    deadline = time.time() + 20
    while ai_processes(tmp_path) and time.time() < deadline:
        time.sleep(0.3)
    assert ai_processes(tmp_path) == []  # the AI peers left with their parent
    resumed = resume_to_verified(env)
    assert "Traceback" not in resumed.out + resumed.proc.stderr.read().decode()


def test_a_lan_host_killed_mid_hand_resumes_with_its_ai_seats(tmp_path):
    # The host's own AI seats leave with it; `tractor resume` did not bring them back and
    # waited on them ("no link with seat 1 (AI 1)") until the hand ended without a result.
    env = {**os.environ, "TRACTOR_HOME": str(tmp_path), "NO_COLOR": "1"}
    host = Session(["host", *FAST, "--name", "lan", "--ai", "3", "--plain", "--no-announce",
                    "--listen", "tcp:0:interface=127.0.0.1", "--strategy", "heuristic",
                    "--level", "easy", "--player", "You"], env)
    try:
        assert host.until(lambda out: "lobby commands" in out, 60), host.out
        host.send("ready")
        made = host.answer_prompts(40, 120, stop=lambda out: moves(out) >= 4)
        assert made >= 4, host.out[-2000:]
    finally:
        host.proc.send_signal(signal.SIGKILL)
        host.proc.wait()
    deadline = time.time() + 20
    while ai_processes(tmp_path) and time.time() < deadline:
        time.sleep(0.3)
    assert ai_processes(tmp_path) == []
    # What `tractor resume` needs to go on at a new table as this run would have (a
    # resumed host kept none, and its guests found its lobby closed: `cli.going_on`).
    journal = Journal(str(tmp_path / "journal.sqlite"), read_only=True)
    going = GoingOn.from_meta(journal.meta(journal.games()[0].id))
    address = host.out.split("tractor join ")[1].split("`")[0]
    assert going is not None and (going.lobby, going.host, going.player) == (
        address, True, "You"), going
    assert going.ai is not None and (going.ai.strategy, going.ai.level) == ("heuristic", "easy")
    resume_to_verified(env)


def test_an_ai_peer_that_dies_in_a_practice_game_comes_back_and_the_hand_goes_on(tmp_path):
    env = {**os.environ, "TRACTOR_HOME": str(tmp_path), "NO_COLOR": "1"}
    play = Session(["play", "--plain", *FAST_PLAY, "--strategy", "heuristic", "--level", "easy",
                    "--player", "You"], env)
    try:
        play.answer_prompts(40, 120, stop=lambda out: moves(out) >= 4)
        victims = ai_processes(tmp_path)
        assert len(victims) == 3
        os.kill(victims[1], signal.SIGKILL)
        play.answer_prompts(60, 120, stop=lambda out: "Hand 1 is over." in out)
        assert play.until(lambda out: "verified the hand" in out, 60), play.out[-3000:]
        assert "4 of 4 peers verified the hand: no rule broken" in play.out
        assert len(ai_processes(tmp_path)) == 3  # the dead one was started again
        play.send("quit")
        play.proc.wait(timeout=60)
    finally:
        if play.proc.poll() is None:
            play.proc.kill()



def test_a_seat_gone_past_the_grace_period_is_taken_by_an_ai_and_the_game_goes_on(tmp_path):
    env = {**os.environ, "TRACTOR_HOME": str(tmp_path), "NO_COLOR": "1"}
    play = Session(["play", "--plain", *FAST_PLAY, "--strategy", "heuristic", "--level", "easy",
                    "--grace", "2", "--player", "You"], env)
    try:
        play.answer_prompts(40, 120, stop=lambda out: moves(out) >= 3)
        victims = ai_processes(tmp_path)
        assert len(victims) == 3
        os.kill(victims[0], signal.SIGKILL)  # gone for good: the grace (2 s) runs out first
        play.answer_prompts(20, 60, stop=lambda out: "the table goes on with an AI" in out)
        assert "the table goes on with an AI in that seat" in play.out, play.out[-3000:]
        # The hand was in play: the gone seat's team loses it (seeds/README.md).
        assert "forfeits the hand: the team of" in play.out, play.out[-3000:]
        play.answer_prompts(60, 180, stop=lambda out: "Hand 1 is over." in out)
        assert play.until(lambda out: "verified the hand" in out, 60), play.out[-3000:]
        assert "4 of 4 peers verified the hand: no rule broken" in play.out
        play.send("quit")
        play.proc.wait(timeout=60)
    finally:
        if play.proc.poll() is None:
            play.proc.kill()
    assert "Traceback" not in play.out
    # Both tables' games are a practice game's, their AI seats' level known (issue 32).
    journal = Journal(str(tmp_path / "journal.sqlite"), read_only=True)
    first, carried = (journal.meta(g.id) for g in journal.games())
    assert carried["carried"] and carried["practice"] and carried["level"] == "easy"
    for meta in (first, carried):
        assert meta["ai_levels"] == [None, "easy", "easy", "easy"], meta


def answer_both(sessions: list[Session], done, seconds: float) -> bool:
    """Accept hints at every prompt of several interactive sessions until ``done``."""
    answered = [0] * len(sessions)
    end = time.time() + seconds
    while time.time() < end:
        for i, s in enumerate(sessions):
            s.until(lambda out: False, 0.05)
            if s.out.endswith(PROMPTS) and len(s.out) != answered[i]:
                s.send("hint")
                s.until(lambda out: out.endswith(PROMPTS) and "hint:" in out[-400:], 10)
                answered[i] = len(s.out)  # a prompt after this one is a new question
                s.send("")
        if done():
            return True
    return False


def test_on_a_lan_table_the_host_reopens_and_a_guest_rejoins_after_a_seat_is_gone(tmp_path):
    env_host = {**os.environ, "TRACTOR_HOME": str(tmp_path / "host"), "NO_COLOR": "1"}
    env_guest = {**os.environ, "TRACTOR_HOME": str(tmp_path / "guest"), "NO_COLOR": "1"}
    host = Session(["host", *FAST, "--name", "lan", "--ai", "2", "--plain", "--no-announce",
                    "--player", "You",
                    "--listen", "tcp:0:interface=127.0.0.1", "--grace", "2", "--strategy",
                    "heuristic", "--level", "easy"], env_host)
    guest = None
    try:
        assert host.until(lambda out: "tractor join tcp:" in out, 60), host.out
        address = host.out.split("tractor join ")[1].split("`")[0]
        host.send("ready")
        guest = Session(["join", address, "--plain", *FAST, "--grace", "2", "--player", "Gus"],
                        env_guest)
        guest.send("ready")
        both = [host, guest]
        assert answer_both(both, lambda: moves(host.out) >= 3, 180), (
            host.out[-1500:], guest.out[-1500:])
        victims = ai_processes(tmp_path / "host")
        assert len(victims) == 2
        os.kill(victims[0], signal.SIGKILL)
        # (A plain screen prints what happened when it is not waiting at a prompt.)
        assert answer_both(both, lambda: "the table goes on with an AI" in host.out
                           and "waiting for the host to go on" in guest.out, 90), (
            host.out[-1500:], guest.out[-1500:])
        assert all("forfeits the hand: the team of" in s.out for s in both), (
            host.out[-1500:], guest.out[-1500:])  # the same verdict on both screens
        assert answer_both(both, lambda: all("Hand 1 is over." in s.out for s in both), 300), (
            host.out[-1500:], guest.out[-1500:])
        for s in both:
            assert s.until(lambda out: "verified the hand" in out, 60)
            assert "4 of 4 peers verified the hand: no rule broken" in s.out
            assert "Traceback" not in s.out
    finally:
        for s in [host, guest]:
            if s is not None and s.proc.poll() is None:
                s.proc.kill()
    # Each seat's journal: the first table's game says where it went on (`tractor
    # history`), the new one keeps how to go on again after `tractor resume`.
    for who, lobby, is_host in (("host", address, True), ("guest", address, False)):
        journal = Journal(str(tmp_path / who / "journal.sqlite"), read_only=True)
        first, carried = journal.games()
        assert journal.meta(first.id)["went_on"] == carried.id
        going = GoingOn.from_meta(journal.meta(carried.id))
        assert going is not None and (going.lobby, going.host) == (lobby, is_host), going
