"""Strangers guess a table's passphrase on real loopback TCP from 200 addresses
(127.0.0.2-127.0.0.201), each asking again and again, while a person who knows the
passphrase joins from 127.0.0.250 at a random moment. Before the table's line the person
was refused (`TooManyAttempts`) once the guessers had spent the table's turns; now the
person's hello waits for the next turn and is in within 30 s."""

from __future__ import annotations

import errno
import json
import os
import random
import selectors
import socket
import struct
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e

PASS = "lantern at dusk"
SOURCES = [f"127.0.0.{i}" for i in range(2, 202)]
PERSON = "127.0.0.250"


class Guessers:
    """Each source keeps asking: a new connection with its hello (a wrong passphrase)
    every ``period`` seconds, at most ``per_source`` open. A connection that is told to
    wait keeps its place; one that is welcomed has had its guess (the host's confirmation
    says it was wrong) and closes; one that is refused closes. Runs in a thread."""

    def __init__(self, port: int, hellos: dict[str, bytes], period: float = 0.5,
                 per_source: int = 4) -> None:
        self.port = port
        self.hellos = hellos
        self.period = period
        self.per_source = per_source
        self.selector = selectors.DefaultSelector()
        self.stop = threading.Event()
        self.counts = {"asked": 0, "wait": 0, "refused": 0, "welcome": 0, "closed": 0}
        self._open = {s: 0 for s in hellos}
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _ask(self, source: str) -> None:
        sock = socket.socket()
        sock.setblocking(False)
        try:
            sock.bind((source, 0))
            err = sock.connect_ex(("127.0.0.1", self.port))
        except OSError:
            sock.close()
            return
        if err not in (0, errno.EINPROGRESS):
            sock.close()
            return
        self.selector.register(sock, selectors.EVENT_READ | selectors.EVENT_WRITE,
                               [source, b"", False])
        self._open[source] += 1
        self.counts["asked"] += 1

    def _close(self, key: Any) -> None:
        self.selector.unregister(key.fileobj)
        key.fileobj.close()
        self._open[key.data[0]] -= 1

    def _event(self, key: Any, mask: int) -> None:
        source, buffer, sent = key.data
        if mask & selectors.EVENT_WRITE and not sent:
            hello = self.hellos[source]
            try:
                key.fileobj.send(struct.pack(">I", len(hello)) + hello)
            except OSError:
                self._close(key)
                return
            key.data[2] = True
            self.selector.modify(key.fileobj, selectors.EVENT_READ, key.data)
            return
        try:
            data = key.fileobj.recv(65536)
        except OSError:
            data = b""
        if not data:
            self.counts["closed"] += 1
            self._close(key)
            return
        buffer += data
        while len(buffer) >= 4 and len(buffer) >= 4 + struct.unpack(">I", buffer[:4])[0]:
            size = struct.unpack(">I", buffer[:4])[0]
            frame, buffer = buffer[4:4 + size], buffer[4 + size:]
            what = "wait" if b"wait" in frame else "refused" if b"refused" in frame \
                else "welcome"
            self.counts[what] += 1
            if what != "wait":
                self._close(key)
                return
        key.data[1] = buffer

    def _run(self) -> None:
        next_round = 0.0
        while not self.stop.is_set():
            if time.monotonic() >= next_round:
                next_round = time.monotonic() + self.period
                for source in self.hellos:
                    if self._open[source] < self.per_source:
                        self._ask(source)
            for key, mask in self.selector.select(timeout=0.05):
                self._event(key, mask)
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()


def child() -> None:
    from twisted.internet import task
    from twisted.internet.defer import ensureDeferred

    from tractor import Rules
    from tractor.net.lobby.errors import LobbyError
    from tractor.net.lobby.guest_protocol import join_table
    from tractor.net.lobby.host_protocol import host_table
    from tractor.net.lobby.pake import GuestHandshake
    from tractor.net.lobby.seating import Participant

    hellos = {s: GuestHandshake(f"guess from {s}").hello() for s in SOURCES}

    async def main(reactor: Any) -> None:
        host = await host_table(reactor, "guessed", Rules(), None, passphrase=PASS,
                                listen="tcp:0:interface=127.0.0.1", announce=False)
        port = int(host.address.rsplit(":", 1)[1])
        guessers = Guessers(port, hellos)
        guessers.thread.start()
        started = time.perf_counter()
        await task.deferLater(reactor, random.Random(28).uniform(3.0, 8.0), lambda: None)
        asked_before = dict(guessers.counts)
        t0 = time.perf_counter()
        person = Participant("pat", bytes(range(32)), 47001)
        try:
            guest = await join_table(
                reactor, f"tcp:host=127.0.0.1:port={port}:bindAddress={PERSON}", person,
                passphrase=PASS)
            outcome = "joined" if guest.roster() is not None else "no roster"
        except LobbyError as exc:
            outcome = f"{type(exc).__name__}: {exc.why}"
        joined = time.perf_counter() - t0
        guessers.stop.set()
        guessers.thread.join(10)
        print(json.dumps({"outcome": outcome, "joined_seconds": joined,
                          "before": asked_before, "flood": guessers.counts,
                          "wrong": host.limiter.wrong,
                          "seconds": time.perf_counter() - started}))
        host.close()

    task.react(lambda r: ensureDeferred(main(r)))


def test_a_person_joins_within_30_s_while_200_addresses_guess_over_tcp():
    proc = subprocess.run([sys.executable, __file__], capture_output=True, text=True,
                          timeout=150, env={**os.environ, "PYTHONHASHSEED": "0"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["outcome"] == "joined", out
    assert out["joined_seconds"] < 30.0, out
    # The attack was on all along: the table's turns were spent before the person came,
    # and the guessers kept asking (and being told to wait or refused) meanwhile.
    assert out["before"]["welcome"] >= 20, out
    assert out["flood"]["asked"] - out["before"]["asked"] >= 1000, out
    assert out["flood"]["wait"] + out["flood"]["refused"] >= 1000, out
    # No more wrong guesses than the budget: 20 at once, then one each 15 s.
    assert out["wrong"] <= 20 + out["seconds"] / 15.0 + 1, out


if __name__ == "__main__":
    child()
