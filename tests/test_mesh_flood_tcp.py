"""A stranger floods the game mesh on real loopback TCP, with four peers in their own
processes under a small descriptor limit (256): it holds hundreds of connections to every
peer's port from 100 addresses that are not the table's (127.0.0.2-127.0.0.101), re-opening
each one the moment it is closed, while the hand is played and one peer is killed and
resumes from its journal. Before the mesh took only the seating's addresses, the peers
ran out of descriptors: reconnects failed and the journal could not open its file
("unable to open database file"), which halted the table. Now the game completes with
the same results and transcripts everywhere."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from flood import Flood  # noqa: E402
from test_crash_process import read_json  # noqa: E402

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e

LIMIT = 256  #: descriptors each peer may open


def limited() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT))


def spawn(seat: int, tmp_path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-P", "-m", "tractor.net.table.peer_process",
         "--seat", str(seat), "--seed",
         "6", "--hands", "1", "--progress", "--journal", str(tmp_path / f"seat{seat}.sqlite"),
         *extra],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(tmp_path / f"seat{seat}.log",
                                                                   "w"),
        text=True, preexec_fn=limited)


def test_a_flood_of_strangers_on_the_mesh_ports_does_not_stop_a_game_or_its_resume(tmp_path):
    deadline = time.time() + 300
    procs = [spawn(s, tmp_path) for s in range(4)]
    flood = None
    try:
        ports = [read_json(p, "port", deadline)["port"] for p in procs]
        flood = Flood(ports)
        flood.thread.start()
        time.sleep(1.0)  # the flood is at its height before the table is dialed
        addresses = json.dumps({"addresses": {s: f"tcp:127.0.0.1:{port}"
                                              for s, port in enumerate(ports)}}) + "\n"
        for p in procs:
            p.stdin.write(addresses)
            p.stdin.flush()
        victim = procs[2]
        while True:  # kill seat 2 in the middle of the hand: it must reconnect through it
            line = read_json(victim, "tricks", deadline)
            if line["tricks"] >= 6:
                break
        victim.kill()
        victim.wait()
        procs[2] = spawn(2, tmp_path, "--resume", "--port", str(ports[2]))
        assert read_json(procs[2], "port", deadline)["port"] == ports[2]
        procs[2].stdin.write(addresses)
        procs[2].stdin.flush()
        ends = [read_json(p, "results", deadline) for p in procs]
    finally:
        if flood is not None:
            flood.stop.set()
            flood.thread.join(10)
        for p in procs:
            if p.poll() is None:
                p.kill()
    logs = "".join((tmp_path / f"seat{s}.log").read_text() for s in range(4))
    assert [e["error"] for e in ends] == [None] * 4, logs[-3000:]
    assert len(ends[0]["results"]) == 1
    assert all(e["results"] == ends[0]["results"] for e in ends)
    assert all(e["transcript"] == ends[0]["transcript"] for e in ends)
    # The flood was real: hundreds of connections at once, thousands over the game, each
    # refused at once by the peer it reached.
    assert flood.max_open >= 600 and flood.closed_by_peer > 1000, vars(flood)
    assert "not an address the seating names" in logs
    assert "unable to open database file" not in logs
