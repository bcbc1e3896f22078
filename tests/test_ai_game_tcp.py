"""Four AI peers play a whole game over the real protocol: a lobby on loopback TCP, the
committed-shuffle deck, the peer mesh, hand after hand until a team passes Ace (the game
starts at level A, so it ends within a few hands)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e

SCRIPT = r"""
import json, sys
from twisted.internet import task
from twisted.internet.defer import ensureDeferred
from tractor.rules import Rules
from tractor.ai.hosting.runner import play_ai_seats
from tractor.net.lobby.host_protocol import host_table

async def main(reactor):
    host = await host_table(reactor, "ai-only", Rules(start_level="A"), None,
                            listen="tcp:0:interface=127.0.0.1", announce=False)
    lines = await play_ai_seats(reactor, host.local_address, 4, "heuristic", "easy", 7,
                                journal_dir=sys.argv[1])
    print(json.dumps(lines))

task.react(lambda r: ensureDeferred(main(r)))
"""


def test_four_ai_peers_finish_a_game_over_loopback_tcp(tmp_path):
    proc = subprocess.run([sys.executable, "-P", "-c", SCRIPT, str(tmp_path)], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(lines) == 4 and all("game over after" in line for line in lines), lines
    assert len({line.split("after")[1] for line in lines}) == 1  # same number of hands

    from tractor.net.journal.store import Journal

    results = []
    for path in sorted(tmp_path.glob("ai-*.sqlite")):
        journal = Journal(str(path))
        (game,) = journal.games()
        assert game.finished
        results.append(journal.results(game.id))
    assert len(results) == 4 and all(r == results[0] for r in results)
