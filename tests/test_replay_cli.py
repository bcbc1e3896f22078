"""`tractor replay` and `tractor history` as a person meets them (issue 28, items 7 and 9):
every Enter shows the next step at once (the first step is shown before the first pause,
and an Enter typed while the game is read is not taken as one), no line comes twice, a
game or hand that is not there is refused at once with what there is, and at 60, 80 or
100 columns no line is wider than the terminal or breaks inside a word or a card."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pty_terminal import Terminal

from tractor.cli.history import fit, replay
from tractor.net.journal.store import Journal

GAME = "loopback-8"
NAMES = ["Ann", "Bartholomew", "Cy", "Di"]
TRACTOR = shutil.which("tractor")
#: A card as replay writes it (``♣10``, ``♥A``, ``BJ``), maybe after a seat (``3:♦A``).
CARD = re.compile(r"(\d+:)?([♠♥♦♣](10|[2-9JQKA])|BJ|RJ)")


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """A data folder whose journal holds a game of two finished hands (seat 1's)."""
    runs = tmp_path_factory.mktemp("loopback")
    proc = subprocess.run([sys.executable, "-P", "-m", "tractor.net.mesh.loopback", "--hands", "2",
                           "--seed", "8", "--journal-dir", str(runs)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    home = tmp_path_factory.mktemp("home")
    shutil.copy(runs / "seat1.sqlite", home / "journal.sqlite")
    journal = Journal(str(home / "journal.sqlite"))
    journal.set_meta(GAME, {"names": NAMES})
    journal.close()
    return home


def env(home: Path, columns: int | None = None) -> dict[str, str]:
    extra = {} if columns is None else {"COLUMNS": str(columns)}
    return {"TRACTOR_HOME": str(home), "PATH": os.environ["PATH"], **extra}


def run(home: Path, *args: str, columns: int | None = None) -> subprocess.CompletedProcess:
    assert TRACTOR is not None, "the tractor command is not installed"
    return subprocess.run([TRACTOR, *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, env=env(home, columns))


# --- stepping ------------------------------------------------------------------------------------


@pytest.mark.e2e
def test_each_pause_follows_one_step_shown(home):
    """Driven with a scripted pause: the deal is out before the first pause, then each
    pause is preceded by exactly one new step, and q stops at once."""
    journal = Journal(str(home / "journal.sqlite"), read_only=True)
    out = io.StringIO()
    chunks: list[list[str]] = []
    seen = [0]

    def pause() -> bool:
        text = out.getvalue()
        chunks.append(text[seen[0]:].splitlines())
        seen[0] = len(text)
        return len(chunks) < 6  # q after the fifth trick

    assert replay(journal, GAME, out, hand_no=1, pause=pause) == 0
    first, *steps = chunks
    assert first[0] == f"reading game {GAME}: checking every move again..."
    assert first[1] == "(Enter for the next step; q and Enter to stop)"
    assert first[2].startswith("hand 1: starter seat ") and first[-1].startswith("  buried: ")
    assert not any("trick" in line for line in first)
    assert [len(step) for step in steps] == [1] * 5
    assert [step[0].split(":")[0] for step in steps] == [f"  trick {i:2}" for i in range(1, 6)]
    assert out.getvalue() == "\n".join(first + [s[0] for s in steps]) + "\n"  # then stopped
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    assert len(lines) == len(set(lines))


@pytest.mark.e2e
def test_every_enter_shows_the_next_step_at_once(home):
    """On a terminal: an Enter typed before anything is shown is not taken for the first
    step (before: the deal and the first trick came together, one step ahead of the
    person's Enters ever after); then each Enter shows exactly the next trick."""
    term = Terminal([TRACTOR, "replay", GAME, "--hand", "1"], env(home), cols=100, rows=60)
    try:
        term.send("\r")  # typed at once: nothing on the screen answers it yet
        assert term.wait_for("buried:", 60), term.written()
        term.pump(1.0)
        assert "trick" not in term.written(), term.written()
        for number in range(1, 5):
            before = len(term.output)
            term.send("\r")
            assert term.wait_until(lambda _t, n=number: f"trick {n:2}:" in term.written(), 10)
            term.pump(0.5)
            new = bytes(term.output[before:]).decode().splitlines()
            assert [line for line in new if line.strip()] == [
                line for line in new if line.startswith(f"  trick {number:2}: ")], new
        term.send("q\r")
        assert term.exited(10) is not None
    finally:
        term.close()
    lines = [line for line in term.written().splitlines() if line.strip() and "q" != line]
    assert len(lines) == len(set(lines)), lines
    reading = term.written().index(f"reading game {GAME}")
    assert reading < term.written().index("hand 1: starter")


# --- refused at once ----------------------------------------------------------------------------


@pytest.mark.e2e
@pytest.mark.parametrize(("args", "said"), [
    (["--hand", "9"], f"tractor: game {GAME} has finished hands 1-2: there is no hand 9 to "
                      "replay"),
    (["--hand", "0"], f"tractor: game {GAME} has finished hands 1-2: there is no hand 0 to "
                      "replay"),
])
def test_a_bad_hand_number_is_refused_at_once(home, args, said):
    term = Terminal([TRACTOR, "replay", GAME, *args], env(home), cols=100, rows=30)
    try:
        status = term.exited(30)  # no Enter typed
        assert status is not None and os.waitstatus_to_exitcode(status) == 2, term.written()
    finally:
        term.close()
    lines = term.written().splitlines()
    assert lines == [said], lines  # nothing else: not read, no "Enter for the next step"


@pytest.mark.e2e
def test_an_unknown_game_is_refused_with_the_games_there_are(home, tmp_path):
    proc = run(home, "replay", "abc")
    assert proc.returncode == 2
    assert proc.stdout == (f"tractor: no game 'abc' in {home / 'journal.sqlite'}; its games: "
                           f"{GAME} (see `tractor history`)\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run(empty, "replay", "abc", "--hand", "2")
    assert proc.returncode == 2 and "it has no games yet" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


# --- laid out to the terminal's width ---------------------------------------------------------


def check_layout(lines: list[str], whole: list[str], width: int) -> None:
    assert all(len(line) <= width for line in lines), [ln for ln in lines if len(ln) > width]
    # Broken only between words: the same words in the same order as unwrapped.
    assert " ".join(lines).split() == " ".join(whole).split()
    for token in " ".join(lines).split():
        if any(suit in token for suit in "♠♥♦♣"):
            assert CARD.fullmatch(token), token


@pytest.fixture(scope="module")
def unwrapped(home) -> tuple[list[str], list[str]]:
    """What replay --all and history print on a very wide terminal."""
    return (run(home, "replay", GAME, "--all", columns=1000).stdout.splitlines(),
            run(home, "history", columns=1000).stdout.splitlines())


@pytest.mark.e2e
@pytest.mark.parametrize("width", [60, 80, 100])
def test_replay_and_history_fit_the_terminal(home, unwrapped, width):
    whole, history = unwrapped
    assert max(map(len, whole)) > 100  # there is something to lay out
    lines = run(home, "replay", GAME, "--all", columns=width).stdout.splitlines()
    check_layout(lines, whole, width)
    assert len(lines) > len(whole)
    assert len(history) == 1 and len(history[0]) > 80
    lines = run(home, "history", columns=width).stdout.splitlines()
    check_layout(lines, history, width)
    assert all(line.startswith("    ") for line in lines[1:])  # a hanging indent


def test_a_line_breaks_between_cards_with_a_hanging_indent():
    line = "  trick  7: 0:♣10 ♣10 ♣K ♣K  1:♥10 ♥10 ♥A ♥A  2:BJ RJ RJ BJ -> seat 2 (Cy) +60"
    for width in range(20, len(line)):
        lines = fit(line, width)
        assert all(len(part) <= width for part in lines)
        assert " ".join(lines).split() == line.split()
        assert all(part.startswith(" " * 4) for part in lines[1:])
    assert re.match(r" {12}\S", fit(line, 40)[1])  # under the plays, after "trick  7: "
    assert fit(line, None) == [line]
