"""`tractor play` end to end: the person against three AI peer processes over the lobby and
the real protocol on loopback TCP, from the keyboard. ``--plain`` through a pipe (one line
per answer: ask for a hint, accept it), and the full screen in a pseudo-terminal (the
screen read back through a terminal emulator). Both finish a whole hand and check the
summary, then quit."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time

import pytest


def tractor_env(tmp_path) -> dict[str, str]:
    return {**os.environ, "TRACTOR_HOME": str(tmp_path), "NO_COLOR": "1"}


def test_play_plain_a_whole_hand_from_a_pipe(tmp_path):
    script = "hint\n\n" * 70 + "quit\n"
    proc = subprocess.run(
        [sys.executable, "-P", "-m", "tractor.cli.main", "play", "--plain", "--strategy",
         "heuristic", "--level", "easy", "--seed", "3"],
        input=script, capture_output=True, text=True, timeout=600, env=tractor_env(tmp_path))
    out = proc.stdout
    assert "Traceback" not in out + proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == 0, out[-3000:]
    assert "Hand 1 is over." in out
    assert "4 of 4 peers verified the hand: no rule broken" in out
    assert out.count("Refused") == 0
    # The game is in the journal: `tractor history` lists it.
    hist = subprocess.run([sys.executable, "-P", "-m", "tractor.cli.main", "history"],
                          capture_output=True, text=True, timeout=60,
                          env=tractor_env(tmp_path))
    assert re.search(r"seat 0 with AI 1, AI 2, AI 3  [1-9] hand\(s\)", hist.stdout), hist.stdout


class Terminal:
    """A child process on a pseudo-terminal, its screen kept by a terminal emulator."""

    def __init__(self, argv: list[str], env: dict[str, str], cols: int = 100,
                 rows: int = 30) -> None:
        import pty

        import pyte

        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the program
            os.environ.update(env)
            os.environ["COLUMNS"], os.environ["LINES"] = str(cols), str(rows)
            os.execv(argv[0], argv)
        import fcntl
        import struct
        import termios

        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def pump(self, seconds: float) -> None:
        end = time.time() + seconds
        while True:
            left = end - time.time()
            if left <= 0:
                return
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:
                    return
                if not data:
                    return
                self.stream.feed(data)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def wait_for(self, needle: str, seconds: float) -> bool:
        end = time.time() + seconds
        while time.time() < end:
            self.pump(0.2)
            if needle in self.text():
                return True
        return False

    def close(self) -> int | None:
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        for _ in range(50):
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return status
            time.sleep(0.1)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        return None


def test_play_full_screen_a_whole_hand_from_the_keyboard(tmp_path):
    pytest.importorskip("pyte")
    term = Terminal([sys.executable, "-P", "-m", "tractor.cli.main", "play", "--strategy",
                     "heuristic", "--level", "easy", "--seed", "4"], tractor_env(tmp_path))
    try:
        assert term.wait_for("Tractor · hand 1", 120), term.text()
        deadline = time.time() + 400
        keys = 0
        while time.time() < deadline and "is over" not in term.text():
            status = term.text().splitlines()[0]
            if "you may declare trumps" in status:
                term.send("p")  # pass in the declaration panel
                keys += 1
            elif "your turn" in status:
                term.send("i")  # hint: the AI's move is preselected
                term.pump(0.2)
                term.send("\r")  # Enter plays it
                keys += 2
            term.pump(0.3)
        screen = term.text()
        assert "Hand 1 is over." in screen, screen
        assert "verified the hand" in screen
        assert "Traceback" not in screen
        assert keys >= 20  # the plays came from the keyboard (fewer tricks when pairs lead)
        term.send("\x11")  # Ctrl-Q quits
        term.pump(2.0)
    finally:
        term.close()
