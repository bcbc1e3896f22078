"""End to end on real loopback TCP: four peers in one process (the real reactor, so in a
subprocess) play whole hands; every peer ends with the same results."""

from __future__ import annotations

import json
import subprocess
import sys


def run(*args: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "tractor.net.loopback", *args],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_two_hands_over_loopback_tcp_agree():
    out = run("--hands", "2", "--seed", "5", "--rounds", "8")
    results = out["results"]
    assert len(results) == 4 and len(results[0]) == 2
    assert all(r == results[0] for r in results)
    assert all(levels == out["levels"][0] for levels in out["levels"])
    assert out["errors"] == [[], [], [], []]
