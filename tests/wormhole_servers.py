"""A magic-wormhole mailbox server and transit relay of the tests' own, as processes
(the registry's `magic-wormhole-mailbox-server` and `magic-wormhole-transit-relay`, run
by twistd), on loopback or on a lab host: no test talks to the public servers.

    with WormholeServers(tmp_path) as servers:
        servers.mailbox   # 'ws://127.0.0.1:PORT/v1'
        servers.relay     # 'tcp:127.0.0.1:PORT'
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

TWISTD = "from twisted.scripts.twistd import run; run()"


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def wait_for_port(host: str, port: int, seconds: float = 20.0) -> None:
    end = time.time() + seconds
    while time.time() < end:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {host}:{port} after {seconds:.0f} s")


def server_commands(folder: Path, host: str, mailbox_port: int,
                    relay_port: int) -> list[list[str]]:
    """The two servers' command lines (also for a lab host: `ip netns exec NAME ...`)."""
    twistd = [sys.executable, "-c", TWISTD, "-n", "--pidfile=", "--logfile=-"]
    return [
        [*twistd, "wormhole-mailbox", f"--port=tcp:{mailbox_port}:interface={host}",
         f"--channel-db={folder / 'mailbox.sqlite'}"],
        [*twistd, "transitrelay", f"--port=tcp:{relay_port}:interface={host}"],
    ]


class WormholeServers:
    def __init__(self, folder: Path, host: str = "127.0.0.1",
                 prefix: list[str] | None = None) -> None:
        self.folder, self.host, self.prefix = Path(folder), host, prefix or []
        self.mailbox_port = free_port() if host == "127.0.0.1" else 4000
        self.relay_port = free_port() if host == "127.0.0.1" else 4001
        self.mailbox = f"ws://{host}:{self.mailbox_port}/v1"
        self.relay = f"tcp:{host}:{self.relay_port}"
        self.procs: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> WormholeServers:
        self.folder.mkdir(parents=True, exist_ok=True)
        for i, argv in enumerate(server_commands(self.folder, self.host, self.mailbox_port,
                                                 self.relay_port)):
            log = open(self.folder / f"server-{i}.log", "wb")  # noqa: SIM115
            self.procs.append(subprocess.Popen([*self.prefix, *argv], stdout=log,
                                               stderr=subprocess.STDOUT,
                                               cwd=self.folder, env=os.environ.copy()))
        if not self.prefix:
            wait_for_port(self.host, self.mailbox_port)
            wait_for_port(self.host, self.relay_port)
        return self

    def logs(self) -> str:
        return "\n".join((self.folder / f"server-{i}.log").read_text(errors="replace")[-2000:]
                         for i in range(len(self.procs)))

    def __exit__(self, *exc: object) -> None:
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
