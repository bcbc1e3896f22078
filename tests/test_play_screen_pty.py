"""The play screen as a person sees it: `tractor play` in a pseudo-terminal of 80x24, then
resized to 100x32, and a table of six; the screen read back with pyte.

The checks are about the places, not the words: you at the bottom, the seat that plays
after you on the right, your partner opposite (a ring at six), every line inside the
terminal, the log beside the table once there are 100 columns, the trick's cards under
the seat that played them.
"""

from __future__ import annotations

import fcntl
import os
import re
import struct
import sys
import termios
from dataclasses import dataclass

import pytest
from pty_terminal import Terminal, quit_screen, take_hint

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e

CARD = re.compile(r"(?:[♠♥♦♣](?:10|[2-9JQKA])|BJ|RJ)")


def tractor_env(home: object) -> dict[str, str]:
    return {**os.environ, "TRACTOR_HOME": str(home), "NO_COLOR": "1"}


@dataclass(frozen=True)
class Place:
    row: int
    start: int
    end: int

    @property
    def centre(self) -> float:
        return (self.start + self.end) / 2


def table_area(lines: list[str]) -> tuple[int, int, int]:
    """Rows (first, last + 1) and columns (up to the log's separator) of the seats."""
    rules = [i for i, line in enumerate(lines) if line.startswith(("── latest", "─" * 40))]
    assert rules, "no table on the screen:\n" + "\n".join(lines)
    last = rules[0]
    sep = lines[2].find("│") if "│" in lines[2] else len(lines[0])
    return 2, last, sep


def place(lines: list[str], name: str) -> Place:
    """Where ``name`` sits: its first whole-word occurrence in the seats' area."""
    first, last, cols = table_area(lines)
    for row in range(first, last):
        line = lines[row][:cols]
        # A place's name line: the name after the line's start, two spaces or ▶, and
        # before its end, two spaces, ★ or (you) (not "trick 1 to AI 1" in the middle).
        m = re.search(rf"(?:^|(?<=  )|(?<=▶ )){re.escape(name)}(?=$| ★| \(you\)|  )",
                      line)
        if m:
            return Place(row, m.start(), m.end())
    raise AssertionError(f"{name!r} is not at the table:\n" + "\n".join(lines))


def cards_under(lines: list[str], at: Place, width: int) -> list[str]:
    """The cards shown under a seat's name (its trick cards), in the columns of its place:
    the left or right third of the table (those are aligned to the edge), else the
    middle third."""
    _, last, cols = table_area(lines)
    third = cols // 3
    if at.start < third:
        lo, hi = 0, third
    elif at.end > cols - third:
        lo, hi = cols - third, cols
    else:
        lo, hi = third, cols - third
    found: list[str] = []
    for row in range(at.row + 1, min(last, at.row + 5)):  # the side line may be joined
        found += CARD.findall(lines[row][lo:hi])
    return found


def resize(term: Terminal, cols: int, rows: int) -> None:
    """What a terminal window does when it is resized: the emulator's size changes and the
    program gets SIGWINCH (the kernel sends it on TIOCSWINSZ)."""
    term.screen.resize(rows, cols)
    fcntl.ioctl(term.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def until_my_play(term: Terminal, seconds: float = 120) -> list[str]:
    """Pass on declarations until the screen asks for a lead or a follow."""
    def ready(text: str) -> bool:
        status = text.splitlines()[0]
        if "you may declare trumps" in status:
            term.send("p")
            return False
        return "your turn: lead" in status or "your turn: follow" in status

    assert term.wait_until(ready, seconds), term.text()
    term.pump(0.3)  # the rest of the drawing
    return term.text().splitlines()


def assert_fits(lines: list[str], cols: int, rows: int) -> None:
    assert len(lines) == rows
    assert all(len(line.rstrip()) <= cols for line in lines)
    assert re.match(r" Tractor · hand 1 · trick \d+ · trump ", lines[0]), lines[0]
    assert lines[1].startswith("Trump "), lines[1]
    assert "declarers team" in lines[1] and "defenders team" in lines[1]
    assert lines[-2].startswith("play>") and lines[-1].startswith(" Enter play")


def play_hint(term: Terminal) -> None:
    take_hint(term)
    term.pump(0.5)


def test_four_seats_at_80x24_then_resized_to_100x32(tmp_path):
    pytest.importorskip("pyte")
    term = Terminal([sys.executable, "-P", "-m", "tractor.cli.main", "play", "--strategy",
                     "heuristic", "--level", "easy", "--seed", "4", "--player", "Tess",
                     "--takeback-wait", "0"],
                    tractor_env(tmp_path), cols=80, rows=24)
    try:
        lines = until_my_play(term)
        assert_fits(lines, 80, 24)
        me, right, top, left = (place(lines, n) for n in ("Tess", "AI 1", "AI 2", "AI 3"))
        assert "▶" in lines[me.row] and "(you)" in lines[me.row]
        assert top.row < right.row == left.row < me.row, lines
        assert left.start == 0 and re.search(r"AI 1( ★)?$", lines[right.row].rstrip())
        assert abs(top.centre - 40) <= 4 and abs(me.centre - 40) <= 6
        # Every card of the trick so far is under the seat that played it.
        while (led_by := re.search(r"^AI (\d) led (.+?): follow", term.text(), re.M)) is None:
            play_hint(term)  # this seat leads: wait for a trick another seat led
            lines = until_my_play(term)
        leader = {"1": right, "2": top, "3": left}[led_by.group(1)]
        led = CARD.findall(led_by.group(2))
        assert led and cards_under(lines, leader, 26) == led, lines
        # The newest events under the table, the whole log on g.
        assert any(line.startswith("── latest") for line in lines)
        play_hint(term)

        resize(term, 100, 32)
        lines = until_my_play(term)
        assert term.wait_until(lambda text: len(text.splitlines()[2]) >= 70, 10)
        lines = term.text().splitlines()
        assert_fits(lines, 100, 32)
        seps = {line.find("│") for line in lines[2:20]}
        assert seps == {69}, lines  # the log beside the table, every row
        assert not any(line.startswith("── latest") for line in lines)
        me, right, top, left = (place(lines, n) for n in ("Tess", "AI 1", "AI 2", "AI 3"))
        assert top.row < right.row == left.row < me.row
        assert left.start == 0 and right.end in (67, 69)  # " ★" after the starter
        log = [line[70:].rstrip() for line in lines[2:] if "│" in line]  # "  " goes on
        last = [x for x in log if x][-1]
        assert re.match(r"(AI [123]|Tess) (leads|plays|throws) |trick \d+ to |  ", last), log
        assert quit_screen(term) is not None, term.text()
        assert "saved: `tractor resume` continues this game" in term.written()
    finally:
        term.close()


def test_six_seats_sit_in_a_ring(tmp_path):
    pytest.importorskip("pyte")
    term = Terminal([sys.executable, "-P", "-m", "tractor.cli.main", "play", "--deal-pace",
                     "0", "--takeback-wait", "0", "--rules", "players=6,decks=3", "--strategy",
                     "heuristic", "--level", "easy",
                     "--seed", "2", "--player", "Tess"], tractor_env(tmp_path), cols=80,
                    rows=24)
    try:
        lines = until_my_play(term)
        assert_fits(lines, 80, 24)
        me = place(lines, "Tess")
        seats = {n: place(lines, f"AI {n}") for n in range(1, 6)}
        # Counter-clockwise from you: bottom right, top right, top, top left, bottom left.
        assert seats[1].row == seats[5].row == me.row, lines
        assert seats[2].row == seats[3].row == seats[4].row < me.row, lines
        assert seats[5].start == 0 and seats[4].start == 0
        assert seats[5].centre < me.centre < seats[1].centre
        assert seats[4].centre < seats[3].centre < seats[2].centre
        for right in (1, 2):  # the right column is right-aligned (★: the starter)
            assert re.search(rf"AI {right}( ★)?$", lines[seats[right].row].rstrip()), lines
        play_hint(term)
        resize(term, 100, 32)
        until_my_play(term)  # a whole drawing of the table, at the new size

        def redrawn(text: str) -> bool:
            rows = text.splitlines()
            return "│" in rows[3] and any(row.startswith("─" * 40) for row in rows)

        assert term.wait_until(redrawn, 10), term.text()
        lines = term.text().splitlines()
        assert len(lines) == 32 and all(len(line.rstrip()) <= 100 for line in lines)
        me = place(lines, "Tess")
        assert place(lines, "AI 3").row < me.row == place(lines, "AI 1").row
        assert quit_screen(term) is not None, term.text()
    finally:
        term.close()
