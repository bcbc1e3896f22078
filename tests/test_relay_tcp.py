"""The relay over real loopback TCP (`hostile_tcp`): a seat that signs two versions of a
table message, one for each half of the table, is named by every honest peer with the two
signed frames; a seat that keeps its table messages and deal keys from one peer does not
stop that peer playing the hand (the others relay them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e

SCRIPT = os.path.join(os.path.dirname(__file__), "hostile_tcp.py")


def run(scenario: str, seed: int) -> list[dict]:
    proc = subprocess.run([sys.executable, "-P", SCRIPT, scenario, str(seed)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_an_equivocating_seat_is_named_by_every_honest_peer_over_tcp():
    peers = run("equivocate", 4)
    honest = [p for seat, p in enumerate(peers) if seat != 2]
    assert all(p["halted"] == "Equivocation" and p["blamed"] == 2 and p["evidence"] == 2
               for p in honest), honest
    assert len({p["why"] for p in honest}) == 1


def test_a_peer_that_one_seat_withholds_from_plays_the_hand_over_tcp():
    peers = run("withhold", 4)
    assert all(p["halted"] is None and len(p["results"]) == 1 for p in peers), peers
    assert len({json.dumps(p["results"]) for p in peers}) == 1
    assert sum(p["relayed"] for p in peers) > 0
