"""`tractor ai-server` end to end: a host with no seat of its own asks a running AI server
(one with a passphrase: asked without it, or with a wrong one, it spawns nothing) for four
players; the server starts one `tractor ai` process per seat, they join the lobby with
their one-time tokens and play the whole game (from level A) over the peer mesh."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest

from tractor.net.journal.store import Journal

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e

HOST = r"""
import json, sys
from twisted.internet import task
from twisted.internet.defer import ensureDeferred
from tractor.rules import Rules
from tractor.net.lobby.errors import LobbyError
from tractor.net.lobby.host_protocol import host_table

async def main(reactor):
    host = await host_table(reactor, "served", Rules(start_level="A"), None,
                            listen="tcp:0:interface=127.0.0.1", announce=False)
    refusals = []
    for passphrase in (None, "not it"):  # the server has one: nothing is spawned
        try:
            await host.request_fill(ai_server=sys.argv[1], expect=sys.argv[2],
                                    passphrase=passphrase)
        except LobbyError as exc:
            refusals.append(type(exc).__name__)
    asked = await host.request_fill(ai_server=sys.argv[1], expect=sys.argv[2],
                                    passphrase="orchard at noon")
    seating = await host.started
    print(json.dumps({"asked": asked, "refusals": refusals, "names": list(seating.names),
                      "kinds": list(seating.kinds)}), flush=True)
    await task.deferLater(reactor, 3.0, lambda: None)  # let the start reach every seat

task.react(lambda r: ensureDeferred(main(r)))
"""


def test_an_ai_server_fills_a_table_and_its_players_finish_the_game(tmp_path):
    env = {**os.environ, "TRACTOR_HOME": str(tmp_path)}
    server = subprocess.Popen(
        [sys.executable, "-P", "-m", "tractor.cli.main", "ai-server", "--strategy", "heuristic",
         "--level", "easy", "--no-announce", "--listen", "tcp:0:interface=127.0.0.1",
         "--passphrase", "orchard at noon"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = server.stdout.readline()
        ready = re.match(r"AI server ready at (tcp:127\.0\.0\.1:\d+), key ([0-9a-f]{16}):", line)
        assert "they need its passphrase" in line
        assert ready, line
        # The host asks it by the key it printed: the tokens are sealed to that key only.
        host = subprocess.run([sys.executable, "-P", "-c", HOST, *ready.groups()],
                              capture_output=True, text=True, timeout=120, env=env)
        assert host.returncode == 0, host.stderr[-3000:]
        seated = json.loads(host.stdout.strip().splitlines()[-1])
        assert seated["asked"] == 4 and seated["kinds"] == ["ai"] * 4
        assert seated["refusals"] == ["PassphraseRequired", "WrongPassphrase"]
        deadline = time.time() + 400
        finished: list = []
        while time.time() < deadline:
            paths = sorted((tmp_path / "ai").glob("ai-*.sqlite"))
            finished = []
            for path in paths:
                journal = Journal(str(path))
                games = journal.games()
                if games and games[0].finished:
                    finished.append(journal.results(games[0].id))
                journal.close()
            if len(finished) == 4:
                break
            time.sleep(1)
        assert len(finished) == 4 and all(r == finished[0] for r in finished)
    finally:
        server.terminate()
        server.wait(timeout=30)
    # Each player told the server it was seated: none is reaped as a lobby that never started.
    log = server.stderr.read()
    assert all(f"AI {n} is seated: its table started" in log for n in range(1, 5)), log[-3000:]
