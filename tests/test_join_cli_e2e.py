"""`tractor join` as a person types it at a pipe: a passphrase table joined by its address
asks for the passphrase (and again after a wrong one) instead of giving up, and a junk pick
from the discovery list is asked again."""

from __future__ import annotations

import os
import re

import pytest
from test_resume_e2e import Session

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e


def test_joining_a_passphrase_table_by_address_asks_for_it_and_again_after_a_wrong_one(
        tmp_path):
    # Before: "refused: table 'friday' needs a passphrase", and join ended (README step 3's
    # own fallback); a wrong passphrase ended it too.
    env = {**os.environ, "NO_COLOR": "1"}
    host = Session(["host", "--name", "friday", "--plain", "--no-announce", "--listen",
                    "tcp:0:interface=127.0.0.1", "--passphrase", "open sesame", "--player",
                    "Hana"], {**env, "TRACTOR_HOME": str(tmp_path / "host")})
    guest = None
    try:
        assert host.until(lambda out: "lobby commands" in out, 60), host.out
        address = re.search(r"tractor join (tcp:127\.0\.0\.1:\d+)", host.out).group(1)
        guest = Session(["join", address, "--plain", "--player", "Jo"],
                        {**env, "TRACTOR_HOME": str(tmp_path / "guest")})
        assert guest.until(lambda out: "table passphrase: " in out, 30), guest.out
        assert "needs a passphrase" in guest.out
        assert "refused" not in guest.out  # before: "tractor: refused: table ... needs ..."
        guest.send("close sesame")
        # (each question on a line of its own; "wrong table passphrase: ..." is not one)
        assert guest.until(lambda out: out.count("\ntable passphrase: ") == 2, 30), guest.out
        guest.send("open sesame")
        assert guest.until(lambda out: "seat 1: Jo" in out, 30), guest.out
        assert host.until(lambda out: "seat 1: Jo" in out, 30), host.out
        guest.send("quit")
        # A guest's quit is not asked about (it closes nothing) and is no failure: exit 0
        # (before: "leave? others are seated (Hana)", then exit 1).
        assert guest.proc.wait(timeout=30) == 0  # left the lobby: said plainly
        assert guest.until(lambda out: "you left the lobby" in out, 10), guest.out
        assert "tractor: you left" not in guest.out and "y/N" not in guest.out
        assert "you left the lobby (you)" not in guest.out
    finally:
        for session in (host, guest):
            if session is not None and session.proc.poll() is None:
                session.proc.kill()
