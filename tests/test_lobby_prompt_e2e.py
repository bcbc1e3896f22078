"""The ``lobby>`` prompt on a terminal (issue 10, G): roster changes are printed once each,
above the prompt, and never over what the person is typing.

The host runs in a pseudo-terminal read back through a terminal emulator; a guest joins
from a pipe (a script) and gets ready while the host has half a command typed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest
from pty_terminal import Terminal

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e


def tractor_env(home) -> dict[str, str]:
    return {**os.environ, "TRACTOR_HOME": str(home), "NO_COLOR": "1"}


def wait(cond, seconds: float, term: Terminal) -> bool:
    end = time.time() + seconds
    while time.time() < end:
        term.pump(0.2)
        if cond():
            return True
    return False


def test_roster_changes_print_once_above_the_typed_prompt(tmp_path):
    pytest.importorskip("pyte")
    main = [sys.executable, "-P", "-m", "tractor.cli.main"]
    host = Terminal(main + ["host", "--no-announce", "--listen", "tcp:0:interface=127.0.0.1",
                            "--player", "Hana", "--name", "roster"],
                    tractor_env(tmp_path / "host"))
    guest = None
    try:
        assert host.wait_for("lobby>", 60), host.text()
        address = re.search(r"tractor join (tcp:127\.0\.0\.1:\d+)", host.written())
        assert address, host.written()
        host.send("rea")  # half a command typed when the others arrive
        assert host.wait_for("lobby> rea", 10), host.text()
        guest = subprocess.Popen(main + ["join", address.group(1), "--player", "Jo"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True,
                                 env=tractor_env(tmp_path / "guest"))
        assert wait(lambda: "seat 1: Jo (human" in host.text(), 60, host), host.text()
        assert guest.stdin is not None
        guest.stdin.write("ready\n")
        guest.stdin.flush()
        assert wait(lambda: re.search(r"seat 1: Jo \(human, key \w+\), ready", host.text()),
                    60, host), host.text()
        host.pump(1.0)
        lines = [line.rstrip() for line in host.text().splitlines() if line.strip()]
        # The prompt is the last line and still holds exactly what was typed.
        assert lines[-1] == "lobby> rea", host.text()
        assert [line for line in lines if "lobby>" in line] == ["lobby> rea"], host.text()
        # Each roster line once: the whole roster first, then only what changed.
        assert sum("table 'roster': 4 seats" in line for line in lines) == 1, host.text()
        assert sum("seat 0: Hana" in line for line in lines) == 1, host.text()
        assert sum("seat 1: Jo" in line for line in lines) == 2, host.text()
        # What was typed before the roster printed is still the input: finish the word.
        host.send("dy\r")
        assert wait(lambda: re.search(r"seat 0: Hana \(human, key \w+\), ready", host.text()),
                    30, host), host.text()
        host.send("quit\r")  # Jo is seated: asked first (issue 28)
        assert host.wait_for("leave? the table closes for the others seated (Jo): y/N",
                             10), host.text()
        host.send("y\r")
        assert host.exited(30) is not None, host.text()
        out, _ = guest.communicate(timeout=30)
        # The guest hears the roster again after every lobby message: still once each.
        printed = [line for line in out.splitlines() if line.startswith("  seat ")]
        assert printed and len(printed) == len(set(printed)), out
    finally:
        host.close()
        if guest is not None and guest.poll() is None:
            guest.kill()
            guest.wait()
