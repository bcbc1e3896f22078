"""End to end on real loopback TCP: four peers in one process (the real reactor, so in a
subprocess) play whole hands; every peer ends with the same results."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e


def run(*args: str) -> dict:
    proc = subprocess.run([sys.executable, "-P", "-m", "tractor.net.mesh.loopback", *args],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_two_hands_over_loopback_tcp_agree():
    out = run("--hands", "2", "--seed", "5")
    results = out["results"]
    assert len(results) == 4 and len(results[0]) == 2
    assert all(r == results[0] for r in results)
    assert all(levels == out["levels"][0] for levels in out["levels"])
    assert out["errors"] == [[], [], [], []]


def test_each_peer_keeps_its_journal_on_disk(tmp_path):
    from tractor.net.journal.store import Journal
    from tractor.net.table.journaled import open_session
    from tractor.net.table.player import RandomPlayer

    out = run("--hands", "1", "--seed", "6", "--journal-dir", str(tmp_path))
    assert out["errors"] == [[], [], [], []]
    for seat in range(4):
        journal = Journal(str(tmp_path / f"seat{seat}.sqlite"))
        assert journal.results("loopback-6") == out["results"][seat]
        # The journal alone rebuilds the peer at the end of its game.
        session, _ = open_session(journal, "loopback-6", RandomPlayer(60 + seat), max_hands=1)
        assert [r.to_data() for r in session.results] == out["results"][seat]
