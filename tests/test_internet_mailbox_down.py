"""`tractor host --internet` with a mailbox that is not there yet, as a person runs it: a
loopback port nothing listens on, then the tests' own mailbox server starting on it. The
host says once that the mailbox cannot be reached (naming it and `--mailbox`), claims no
open table and flashes no "none open" meanwhile, and once the server answers says so,
opens on the internet and shows a code per free seat; `codes` shows them again."""

from __future__ import annotations

import os
import re
import time

import pytest

pytest.importorskip("wormhole_mailbox_server")

from processes import Session  # noqa: E402
from wormhole_servers import WormholeServers  # noqa: E402

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e

CODES = re.compile(r"seat codes \(one per free seat[^\n]*\): ([^\n]+)\n")


def test_a_mailbox_that_answers_late_is_said_once_and_the_table_opens_when_it_does(tmp_path):
    servers = WormholeServers(tmp_path / "servers")  # not started: nothing listens yet
    env = {**os.environ, "TRACTOR_HOME": str(tmp_path / "host"), "NO_COLOR": "1"}
    host = Session(["host", "--internet", "--mailbox", servers.mailbox, "--relay",
                    servers.relay, "--seats", "4", "--plain", "--player", "Hana"], env)
    try:
        assert host.until(lambda out: "cannot reach the mailbox" in out, 60), host.out
        time.sleep(6)  # tries at about 1, 2 and 4 s apart meanwhile
        host.until(lambda out: False, 0.5)
        said = [line for line in host.out.splitlines() if "cannot reach the mailbox" in line]
        assert len(said) == 1, host.out
        assert servers.mailbox in said[0] and "--mailbox" in said[0], said
        assert "open on the internet" not in host.out and "seat codes (" not in host.out \
            and "seat codes:" not in host.out, host.out
        assert "Traceback" not in host.out
        with servers:
            assert host.until(lambda out: CODES.search(out), 90), host.out + servers.logs()
            out = host.out
            reached = out.index(f"the mailbox {servers.mailbox} can be reached now")
            opened = out.index("open on the internet")
            assert reached < opened < CODES.search(out).start(), out
            codes = CODES.search(out).group(1).split()
            assert len(codes) == 3 and all(len(c.split("-")) == 4 for c in codes), codes
            assert "none open" not in out
            host.send("codes")
            assert host.until(lambda out: len(CODES.findall(out)) == 2, 15), host.out
            assert CODES.findall(host.out)[-1].split() == codes
            host.send("quit")
            host.proc.wait(30)
    finally:
        if host.proc.poll() is None:
            host.proc.kill()
            host.proc.wait(5)
