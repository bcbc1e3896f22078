"""`tractor resume` end to end: a `tractor play` process is killed (SIGKILL) in the middle of
a hand; its AI peer processes leave with it; `tractor resume` brings the person's seat and
the AI seats back from their journals on the same ports, and the hand goes on to its summary
with every peer's verdict."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time

PROMPTS = ("play> ", "bury> ", "declare> ")


class Session:
    """A `tractor ... --plain` process answered one prompt at a time."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "tractor.cli.main", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.out = ""
        self.chunks: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            data = os.read(self.proc.stdout.fileno(), 4096)
            if not data:
                return
            self.chunks.put(data)

    def until(self, test, seconds: float) -> bool:
        end = time.time() + seconds
        while time.time() < end:
            try:
                self.out += self.chunks.get(timeout=0.2).decode(errors="replace")
            except queue.Empty:
                pass
            if test(self.out):
                return True
        return False

    def answer_prompts(self, count: int, seconds: float, stop=lambda out: False) -> int:
        """Accept the hint at ``count`` prompts (or until ``stop``); returns how many."""
        done = 0
        while done < count:
            seen = len(self.out)
            if not self.until(lambda out, seen=seen: out.endswith(PROMPTS) and len(out) > seen
                              or stop(out), seconds):
                break
            if stop(self.out):
                break
            self.send("hint")
            self.until(lambda out, seen=seen: "hint" in out[seen:] and out.endswith(PROMPTS),
                       seconds)
            self.send("")
            done += 1
        return done

    def send(self, line: str) -> None:
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()


def children_of(home) -> list[int]:
    """AI peer processes of this test (their command line names the test's data folder)."""
    pids = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
            except OSError:
                continue
            if str(home) in cmd and "\0ai\0" in cmd:
                pids.append(int(pid))
    return pids


def test_resume_after_the_play_process_is_killed(tmp_path):
    env = {**os.environ, "TRACTOR_HOME": str(tmp_path), "NO_COLOR": "1"}
    play = Session(["play", "--plain", "--strategy", "heuristic", "--level", "easy"], env)
    try:
        # A few tricks in (the person's 6th play), kill it without warning.
        made = play.answer_prompts(40, 120, stop=lambda out: out.count("(You) plays") >= 6)
        assert made >= 6, play.out[-2000:]
    finally:
        play.proc.send_signal(signal.SIGKILL)
        play.proc.wait()
    deadline = time.time() + 20
    while children_of(tmp_path) and time.time() < deadline:
        time.sleep(0.3)
    assert children_of(tmp_path) == []  # the AI peers left with their parent
    resumed = Session(["resume", "--plain"], env)
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
    assert "Traceback" not in resumed.out + resumed.proc.stderr.read().decode()


def test_an_ai_peer_that_dies_in_a_practice_game_comes_back_and_the_hand_goes_on(tmp_path):
    env = {**os.environ, "TRACTOR_HOME": str(tmp_path), "NO_COLOR": "1"}
    play = Session(["play", "--plain", "--strategy", "heuristic", "--level", "easy"], env)
    try:
        play.answer_prompts(40, 120, stop=lambda out: out.count("(You) plays") >= 4)
        victims = children_of(tmp_path)
        assert len(victims) == 3
        os.kill(victims[1], signal.SIGKILL)
        play.answer_prompts(60, 120, stop=lambda out: "Hand 1 is over." in out)
        assert play.until(lambda out: "verified the hand" in out, 60), play.out[-3000:]
        assert "4 of 4 peers verified the hand: no rule broken" in play.out
        assert len(children_of(tmp_path)) == 3  # the dead one was started again
        play.send("quit")
        play.proc.wait(timeout=60)
    finally:
        if play.proc.poll() is None:
            play.proc.kill()

