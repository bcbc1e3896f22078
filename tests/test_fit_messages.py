"""Messages outside the play screen fold between words on a terminal (the trial at 80
columns: `lobby commands: … empty sea/ts)`, `(file is n/ot a database)`, `rep/lay`), and
reach a pipe as they are, one line a message, for scripts."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

from tractor.cli.prompts import fit


class Terminal80(io.StringIO):
    columns = 80

    def isatty(self) -> bool:
        return True


LONG = ("lobby commands: ready, unready, fill (AI peers on this machine for the empty seats), "
        "fill lan (the AI servers heard on the LAN; fill lan N asks one), quit")
PATH = "/home/someone/.local/share/tractor/journal.sqlite.corrupt-20261204T104931Z"


@pytest.mark.parametrize("text", [LONG, f"tractor: kept {PATH} aside and started anew at "
                                        f"{PATH[:-30]}: nothing is lost", "short line"])
def test_a_message_folds_between_words_at_80_columns(text: str) -> None:
    folded = fit(text, Terminal80())
    lines = folded.split("\n")
    assert all(len(line) < 80 or " " not in line.strip() for line in lines), lines
    assert folded.split() == text.split()  # every word whole, none lost, same order
    if len(text) < 80:
        assert folded == text


def test_a_pipe_gets_the_message_as_it_is() -> None:
    assert fit(LONG, io.StringIO()) == LONG


@pytest.mark.e2e
def test_a_command_error_on_a_terminal_folds_between_words() -> None:
    # Before: the refusal of a damaged journal came as one line the terminal cut mid-word.
    # (A short home: a path longer than the line is one word the terminal must cut.)
    pytest.importorskip("pyte")
    tmp_path = __import__("pathlib").Path(tempfile.mkdtemp(prefix="t", dir="/tmp"))
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    from pty_terminal import Terminal

    (tmp_path / "journal.sqlite").write_bytes(b"garbage " * 100)
    term = Terminal([sys.executable, "-P", "-m", "tractor.cli.main", "history"],
                    {"TRACTOR_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
                    cols=80, rows=24)
    try:
        assert term.exited(30) is not None
        screen = [line.rstrip() for line in term.text().splitlines() if line.strip()]
        # The message, word for word as the program means it (no word cut at the edge of
        # the screen: then a line would fill all 80 columns and a word would be split).
        assert "not a readable journal" in " ".join(" ".join(screen).split()), screen
        assert all(len(line) < 80 for line in screen), screen
    finally:
        term.close()
    out = subprocess.run([sys.executable, "-P", "-m", "tractor.cli.main", "history"],
                         capture_output=True, text=True, timeout=60,
                         env={"TRACTOR_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert len([line for line in out.stderr.splitlines() if line]) == 1  # a pipe: one line
    assert re.search(r"not a readable journal", out.stderr), out.stderr
    shutil.rmtree(tmp_path)
