"""A LAN table from two terminals: `tractor host --ai 2` and `tractor join ADDRESS`, each
in its own pseudo-terminal read back through a terminal emulator. Both people type
``ready`` at the ``lobby>`` prompt (a prompt_toolkit prompt, as on a real terminal), then
play from the keyboard on the full screen: the screen must follow the table (the cards
dealt are shown, the trick count advances) and take keys (hint, Enter, Ctrl-Q).

This is the user's report of a frozen play screen after the lobby (issue 10, A): the
lobby's prompt, cancelled when the game started, was still tearing down when the play
screen started, and then took the terminal back from it.
"""

from __future__ import annotations

import os
import re
import sys
import time

import pytest
from pty_terminal import Terminal, quit_screen, take_hint

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e

#: The person's options a test that is not about them turns off: the deal's pace (10 s a
#: hand) and the hint's thinking (the quickest level).
FAST = ["--deal-pace", "0", "--hint-level", "easy"]

CARD = re.compile(r"[♠♥♦♣](?:10|[2-9JQKA])|BJ|RJ")
HEADER = re.compile(r"^ Tractor · hand \d+ · trick (\d+) ·", re.M)  # the status line


def tractor_env(home) -> dict[str, str]:
    return {**os.environ, "TRACTOR_HOME": str(home), "NO_COLOR": "1"}


def hand_pane_cards(screen: str) -> int:
    """Cards shown in the hand pane: its rows (a suit label, or the indent of a row
    that goes on) under the separator."""
    lines = screen.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith("─" * 20))
    count = 0
    for line in lines[rule + 1:]:
        if not re.match(r"(trumps\??|[♠♥♦♣]) |        ", line):
            break  # the message line under the hand
        count += len(CARD.findall(line))
    return count


def own_row_cards(screen: str, name: str) -> int | None:
    """The cards left of the person's own place at the table: the ``N cards`` under
    ``NAME (you)``, in the same columns (other seats' places share the line)."""
    lines = screen.splitlines()
    for i, line in enumerate(lines[:-1]):
        me = re.search(rf"{name} \(you\)", line)
        if me is None:
            continue
        centre = (me.start() + me.end()) / 2
        below = list(re.finditer(r"(\d+) cards?\b", lines[i + 1]))
        if below:
            near = min(below, key=lambda m: abs((m.start() + m.end()) / 2 - centre))
            return int(near.group(1))
    return None


class Person:
    """One person at the table: their terminal and what they did there."""

    def __init__(self, name: str, term: Terminal) -> None:
        self.name = name
        self.term = term
        self.plays = 0
        self.tricks_seen: set[int] = set()
        self.hand_checked = False

    def step(self) -> None:
        """Answer what the screen asks, as a person would: pass on declarations, take
        the hint and play it; and check the hand shown against the seats list."""
        screen = self.term.text()
        status = screen.splitlines()[0]
        header = HEADER.search(screen)
        if header:
            self.tricks_seen.add(int(header.group(1)))
        if "your turn" in status:
            shown, held = hand_pane_cards(screen), own_row_cards(screen, self.name)
            assert held is not None, screen
            assert shown == held, f"{self.name} holds {held} but the hand shows {shown}\n{screen}"
            self.hand_checked = self.hand_checked or (held > 0 and "(no cards)" not in screen)
            take_hint(self.term)  # i: the search player's move preselected; Enter plays it
            self.plays += 1
            self.term.pump(0.3)
        elif "you may declare trumps" in status:
            self.term.send("p")
            self.term.pump(0.3)


def test_host_and_joiner_ready_at_the_lobby_prompt_then_play_the_full_screen(tmp_path):
    pytest.importorskip("pyte")
    main = [sys.executable, "-P", "-m", "tractor.cli.main"]
    host = Terminal(main + ["host", *FAST, "--ai", "2", "--no-announce", "--strategy", "heuristic",
                            "--listen", "tcp:0:interface=127.0.0.1", "--player", "Hana"],
                    tractor_env(tmp_path / "host"))
    guest = None
    try:
        assert host.wait_for("lobby>", 60), host.text()
        address = re.search(r"tractor join (tcp:127\.0\.0\.1:\d+)", host.written())
        assert address, host.written()
        guest = Terminal(main + ["join", address.group(1), *FAST, "--player", "Jo"],
                         tractor_env(tmp_path / "guest"))
        assert guest.wait_for("lobby>", 60), guest.text()
        host.send("ready\r")
        guest.send("ready\r")
        people = [Person("Hana", host), Person("Jo", guest)]
        for p in people:
            assert p.term.wait_for("Tractor · hand 1", 120), p.term.text()
        deadline = time.time() + 400
        screens, moved = [""] * len(people), time.time()
        while time.time() < deadline and not all(
                p.plays >= 3 and max(p.tricks_seen, default=0) >= 3 for p in people):
            for i, p in enumerate(people):
                p.term.pump(0.2)
                p.step()
                if p.term.text() != screens[i]:
                    screens[i], moved = p.term.text(), time.time()
            if time.time() - moved > 90:
                break  # no screen changed for long: a frozen screen holds the table
        for p in people:
            screen = p.term.text()
            assert "Traceback" not in screen
            assert p.hand_checked, screen
            assert p.plays >= 3, screen  # the plays came from this keyboard
            assert max(p.tricks_seen, default=0) >= 3, screen  # and the table went on
        for p in people:
            # Ctrl-Q asks, a second leaves the screen (and the program).
            assert quit_screen(p.term) is not None, p.term.text()
    finally:
        host.close()
        if guest is not None:
            guest.close()
