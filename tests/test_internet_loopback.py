"""Internet tables on one machine: four peers whose links are magic-wormholes through
the tests' own mailbox server and transit relay (processes), direct and through the relay
only; every peer plays the hands to the same results."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("wormhole")
pytest.importorskip("wormhole_mailbox_server")
pytest.importorskip("wormhole_transit_relay")

from wormhole_servers import WormholeServers  # noqa: E402

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e

SCRIPT = os.path.join(os.path.dirname(__file__), "internet_table.py")


def run(servers: WormholeServers, path: str, hands: int) -> dict:
    proc = subprocess.run([sys.executable, "-P", SCRIPT, servers.mailbox, servers.relay, path,
                           str(hands)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:] + servers.logs()
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_game_over_wormholes_direct_and_through_the_relay(tmp_path):
    with WormholeServers(tmp_path / "servers") as servers:
        for path in ("direct", "relay"):
            out = run(servers, path, hands=2)
            peers = out["peers"]
            assert all(p["halted"] is None and len(p["results"]) == 2 for p in peers), peers
            assert len({json.dumps(p["results"]) for p in peers}) == 1
            paths = [v for p in peers for v in p["paths"].values()]
            assert len(paths) == 12 and None not in paths, paths
            if path == "relay":  # no seat offered a direct connection: all through the relay
                assert set(paths) == {"relay"}, paths
            else:  # every pair can reach each other: direct (the relay waits its turn)
                assert set(paths) == {"direct"}, paths
            assert out["moves"] >= 2 * 25 * 3  # every play reached the three other seats
