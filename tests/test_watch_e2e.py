"""`tractor watch ADDRESS` against a real table: four AI peers play on loopback TCP, and a
watcher that comes once they are seated follows the game in plain lines to its end; on a
terminal, the same watch is the full-screen view."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e

SCRIPT = r"""
import sys
from twisted.internet import task
from twisted.internet.defer import ensureDeferred
from tractor.rules import Rules
from tractor.ai.hosting.runner import play_ai_seats
from tractor.net.lobby.host_protocol import host_table

def seated(seating):
    if seating.seat == 1:
        print("ADDRESS", seating.addresses[1], flush=True)

async def main(reactor):
    host = await host_table(reactor, "watched", Rules(start_level="A"), None,
                            listen="tcp:0:interface=127.0.0.1", announce=False)
    lines = await play_ai_seats(reactor, host.local_address, 4, "heuristic", "easy", 3,
                                interface="127.0.0.1", on_seated=seated)
    print("DONE", lines, flush=True)
    # As a person's screen would, the process outlives the game a moment: what its
    # sockets still hold goes out.
    await task.deferLater(reactor, 2, lambda: None)

task.react(lambda r: ensureDeferred(main(r)))
"""


def test_a_watcher_follows_an_ai_table_to_the_end_of_its_game(tmp_path) -> None:
    env = {**os.environ, "TRACTOR_HOME": str(tmp_path)}
    table = subprocess.Popen([sys.executable, "-P", "-c", SCRIPT], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert table.stdout is not None
        line = table.stdout.readline()
        assert line.startswith("ADDRESS tcp:"), table.stderr.read() if table.stderr else line
        address = line.split()[1][len("tcp:"):]
        watch = subprocess.run([sys.executable, "-P", "-m", "tractor.cli.main", "watch",
                                address], capture_output=True, text=True, timeout=600,
                               env=env)
        out = watch.stdout
        assert watch.returncode == 0, watch.stderr[-2000:] + out[-2000:]
        assert "watching: you see what every seat sees" in out
        assert "hand 1 over: defenders took" in out and "4 of 4 peers verified" in out
        assert "after trick 1: defenders hold" in out
        assert "you may declare" not in out  # a watcher holds no hand
        assert out.rstrip().endswith("the game is over")
        table.wait(timeout=120)
        assert "game over after" in (table.stdout.read() or "")
    finally:
        if table.poll() is None:
            table.kill()
            table.wait()


def test_tractor_watch_on_a_terminal_is_the_full_screen_watch_view(tmp_path) -> None:
    from pty_terminal import Terminal

    env = {**os.environ, "TRACTOR_HOME": str(tmp_path)}
    table = subprocess.Popen([sys.executable, "-P", "-c", SCRIPT], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    term: Terminal | None = None
    try:
        assert table.stdout is not None
        line = table.stdout.readline()
        assert line.startswith("ADDRESS tcp:"), table.stderr.read() if table.stderr else line
        address = line.split()[1][len("tcp:"):]
        term = Terminal([sys.executable, "-P", "-m", "tractor.cli.main", "watch", address],
                        env, cols=80, rows=24)
        assert term.wait_until(lambda s: "watching · you see no hand" in s and "cards" in s,
                               120), term.text()
        screen = term.text()
        assert "(you)" not in screen and "Tractor · hand" in screen
        assert "o tracker" in screen and "q quit" in screen
        term.send("o")
        assert term.wait_for("Still out (not played", 30), term.text()
        assert "your hand" not in term.text()
        term.send("q")  # (it quits with a panel open too)
        assert term.exited(30) == 0, term.written()[-2000:]
        assert "the watch ended: you stopped watching" in term.written() or \
            "the game is over" in term.written()
    finally:
        if term is not None:
            term.close()
        if table.poll() is None:
            table.kill()
            table.wait()


def test_a_seat_that_is_not_there_is_said_in_words(tmp_path) -> None:
    import socket

    with socket.socket() as closed:  # a port nothing listens on once it is closed
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    watch = subprocess.run([sys.executable, "-P", "-m", "tractor.cli.main", "watch",
                            f"127.0.0.1:{port}", "--plain"], capture_output=True, text=True,
                           timeout=60, env={**os.environ, "TRACTOR_HOME": str(tmp_path)})
    assert watch.returncode == 1
    assert f"tractor watch: cannot reach 127.0.0.1:{port}" in watch.stdout
    assert "unexpected error" not in watch.stdout + watch.stderr
