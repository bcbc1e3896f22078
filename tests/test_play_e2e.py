"""`tractor play` end to end: the person against three AI peer processes over the lobby and
the real protocol on loopback TCP, from the keyboard. ``--plain`` through a pipe (one line
per answer: ask for a hint, accept it), and the full screen in a pseudo-terminal (the
screen read back through a terminal emulator). Both finish a whole hand and check the
summary, then quit."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest
from pty_terminal import Terminal, play_full_screen_hand, quit_screen

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e

#: The person's options a test that is not about them turns off: the deal's pace (10 s a
#: hand) and the hint's thinking (the quickest level).
FAST = ["--deal-pace", "0", "--hint-level", "easy"]
#: `tractor play` has take-backs: its AI seats would wait 1.5 s after each play of the person.
FAST_PLAY = [*FAST, "--takeback-wait", "0"]


def tractor_env(tmp_path) -> dict[str, str]:
    return {**os.environ, "TRACTOR_HOME": str(tmp_path), "NO_COLOR": "1"}


def test_play_plain_a_whole_hand_from_a_pipe(tmp_path):
    # With kitty theft on (a house rule every peer plays): the window after the burial
    # goes round the AI processes, and the person when it holds an overcall.
    script = "hint\n\n" * 70 + "quit\n"
    proc = subprocess.run(
        [sys.executable, "-P", "-m", "tractor.cli.main", "play", "--plain", *FAST_PLAY,
         "--strategy", "heuristic", "--level", "easy", "--seed", "3", "--rules",
         "kitty_theft=true"],
        input=script, capture_output=True, text=True, timeout=600, env=tractor_env(tmp_path))
    out = proc.stdout
    assert "Traceback" not in out + proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == 0, out[-3000:]
    assert "Hand 1 is over." in out
    assert "4 of 4 peers verified the hand: no rule broken" in out
    assert out.count("Refused") == 0
    # Leaving says where the game went (it used to just end: was it lost?).
    assert "saved: `tractor resume` continues this game" in out
    # The game is in the journal: `tractor history` lists it.
    hist = subprocess.run([sys.executable, "-P", "-m", "tractor.cli.main", "history"],
                          capture_output=True, text=True, timeout=60,
                          env=tractor_env(tmp_path))
    assert re.search(r"seat 0 with AI 1, AI 2, AI 3\n +unfinished in hand ([2-9]|\d\d) ",
                     hist.stdout), hist.stdout  # (hand 1 finished: "Hand 1 is over.")


def test_play_full_screen_a_whole_hand_from_the_keyboard(tmp_path):
    pytest.importorskip("pyte")
    # The default pace and hint are the fresh clone's and the pty screen tests' to try.
    term = Terminal([sys.executable, "-P", "-m", "tractor.cli.main", "play", *FAST_PLAY,
                     "--strategy", "heuristic", "--level", "easy", "--seed", "4"],
                    tractor_env(tmp_path))
    try:
        assert term.wait_for("Tractor · hand 1", 120), term.text()
        keys = play_full_screen_hand(term, 400)
        screen = term.text()
        assert "Hand 1 is over." in screen, screen
        assert "verified the hand" in screen
        assert "Traceback" not in screen
        assert keys >= 6  # the plays came from the keyboard (few tricks when big leads win)
        assert quit_screen(term, 5.0) is not None, term.text()  # Ctrl-Q asks, then quits
        assert "saved: `tractor resume` continues this game" in term.written()
    finally:
        term.close()


def test_play_plain_on_a_terminal_answers_question_after_question(tmp_path):
    # On a terminal, --plain asks with prompt_toolkit; a question that came while the
    # "(waiting)" prompt was open replaced it, and the replaced prompt, still tearing down,
    # took the terminal back: the first answer was never read and the game stood still.
    pytest.importorskip("pyte")
    term = Terminal([sys.executable, "-P", "-m", "tractor.cli.main", "play", "--plain", *FAST_PLAY,
                     "--strategy", "heuristic", "--level", "easy", "--player", "Tess"],
                    tractor_env(tmp_path))
    try:
        answered, deadline = 0, time.time() + 300
        while time.time() < deadline and "Hand 1 is over." not in term.written():
            lines = [line.rstrip() for line in term.text().splitlines() if line.strip()]
            if lines and lines[-1].endswith(("declare>", "bury>", "play>")):
                asked = len(term.output)
                term.send("hint\r")
                # The answer was read: the terminal is the prompt's. (What the program
                # wrote, its words alone: plain mode wraps a long hint to the terminal.)
                assert term.wait_until(lambda _, asked=asked: b"Enter alone accepts it" in
                                       b" ".join(term.output[asked:].split()), 10), term.text()
                term.send("\r")
                answered += 1
                term.pump(0.5)
            term.pump(0.2)
        assert "Hand 1 is over." in term.written(), term.written()[-3000:]
        assert answered >= 10, answered
        term.send("quit\r")
        assert term.exited(10) is not None, term.written()[-2000:]
    finally:
        term.close()
