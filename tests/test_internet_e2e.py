"""`tractor host --internet` and `tractor join CODE` as a person runs them, on loopback with
the tests' own mailbox server and relay: a code typed wrong is refused with the reason and
spends the host's code (the host is told, with the new one, in one line), and the right
code seats the person."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("wormhole_mailbox_server")

from processes import Session  # noqa: E402
from wormhole_servers import WormholeServers  # noqa: E402

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e

CODES = re.compile(r"seat codes \(one per free seat[^\n]*\): ([^\n]+)\n")


def env(tmp_path, name: str) -> dict[str, str]:
    return {**os.environ, "TRACTOR_HOME": str(tmp_path / name), "NO_COLOR": "1"}


def test_a_wrong_code_is_refused_and_replaced_and_the_right_one_seats_the_person(tmp_path):
    with WormholeServers(tmp_path / "servers") as servers:
        where = ["--mailbox", servers.mailbox, "--relay", servers.relay]
        host = Session(["host", "--internet", *where, "--seats", "4", "--ai", "2", "--plain",
                        "--player", "Hana", "--strategy", "heuristic", "--level", "easy"],
                       env(tmp_path, "host"))
        try:
            assert host.until(lambda out: CODES.search(out), 60), host.out
            (code,) = CODES.search(host.out).group(1).split()  # one free seat, one code
            nameplate, *words = code.split("-")
            # Another word of the list, so the joiner's own check lets the guess through.
            last = "amulet" if words[-1] != "amulet" else "bodyguard"
            guess = "-".join([nameplate, *words[:-1], last])
            wrong = subprocess.run(
                [sys.executable, "-P", "-m", "tractor.cli.main", "join",
                 guess, *where, "--plain", "--player", "Mal"],
                capture_output=True, text=True, timeout=120, env=env(tmp_path, "mal"),
                stdin=subprocess.DEVNULL)
            assert wrong.returncode == 1, wrong.stdout + wrong.stderr
            assert f"{guess} is not the host's code" in wrong.stdout
            assert "Traceback" not in wrong.stdout + wrong.stderr
            # The code is spent: the host is told, with the new one in its place.
            spent = re.compile(f"the code {code} was spent by a wrong guess "
                               r"\(1 in the last 24 hours\); its replacement: (\S+)\n")
            assert host.until(lambda out: spent.search(out), 30), host.out
            assert "none open" not in host.out  # no flash while the code was replaced
            fresh = spent.search(host.out).group(1)
            guest = Session(["join", fresh, *where, "--plain", "--player", "Gus"],
                            env(tmp_path, "gus"))
            try:
                assert guest.until(lambda out: "lobby commands" in out, 60), guest.out
                assert "Gus (human" in guest.out and "<- you" in guest.out
                assert host.until(lambda out: "Gus (human" in out, 30), host.out
                # Every seat is taken: no code is left open.
                assert host.until(lambda out: "seat codes: none open" in out, 30), host.out
            finally:
                guest.send("quit")
                guest.proc.wait(15)
        finally:
            host.send("quit")
            try:
                host.proc.wait(15)
            except subprocess.TimeoutExpired:
                host.proc.kill()
