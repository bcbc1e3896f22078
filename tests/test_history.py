"""`tractor history` and `tractor replay` read a peer's journal: games listed, and a
finished hand shown in full (every seat's cards, talon, burial, tricks, result, audit)."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from tractor.cli.history import history_lines, replay
from tractor.net.journal.store import Journal


@pytest.mark.e2e
def test_history_and_replay_of_a_loopback_game(tmp_path):
    proc = subprocess.run([sys.executable, "-P", "-m", "tractor.net.mesh.loopback", "--hands", "2",
                           "--seed", "8", "--journal-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    journal = Journal(str(tmp_path / "seat1.sqlite"))
    journal.set_meta("loopback-8", {"names": ["Ann", "Bo", "Cy", "Di"]})
    lines = history_lines(journal)
    assert len(lines) == 1 and lines[0].startswith("loopback-8 ")
    assert "seat 1 with Ann, Cy, Di  2 hand(s)" in lines[0]
    out = io.StringIO()
    assert replay(journal, "loopback-8", out, hand_no=2) == 0
    text = out.getvalue().splitlines()
    assert text[0].startswith("hand 2: starter seat")
    seats = [line for line in text if line.startswith("  seat ") and ": " in line
             and "declared" not in line]
    assert len(seats) == 4 and all(len(s.split(": ")[1].split()) == 25 for s in seats)
    assert any(line.startswith("  talon: ") and len(line.split()) == 9 for line in text)
    tricks = [line for line in text if line.strip().startswith("trick ")]
    assert tricks and all("->" in t for t in tricks)
    assert text[-1] == "  audit: 4 of 4 peers verified the hand: no rule broken"
    # Stepping: stop after the deal.
    steps = io.StringIO()
    replay(journal, "loopback-8", steps, hand_no=1, pause=lambda: False)
    assert "trick" not in steps.getvalue()
    bad = io.StringIO()
    assert replay(journal, "nope", bad) == 2 and "no game 'nope'" in bad.getvalue()
    assert replay(journal, "loopback-8", bad, hand_no=7) == 2
    assert "game loopback-8 has finished hands 1-2: there is no hand 7" in bad.getvalue()


def test_history_of_an_empty_journal(tmp_path):
    assert history_lines(Journal(str(tmp_path / "j.sqlite"))) == [
        "no games yet: `tractor play` starts one"]
