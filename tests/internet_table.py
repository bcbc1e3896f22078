"""Four peers in one process, each pair linked by a magic-wormhole (`wormhole_mesh`)
through the given mailbox and relay; plays hands to the end and prints one JSON line:
per peer how it ended and which path each link took, and the per-move latency (from a
play's frame leaving its author to its arrival at each other seat).

    python -P tests/internet_table.py MAILBOX RELAY direct|relay HANDS
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402
from memnet import body_of, header  # noqa: E402
from twisted.internet import task  # noqa: E402
from twisted.internet.defer import Deferred, DeferredList, ensureDeferred  # noqa: E402

from tractor.net.internet.mesh import Wormholes  # noqa: E402
from tractor.net.internet.rendezvous import internet_address  # noqa: E402
from tractor.net.mesh.link import PeerLink  # noqa: E402
from tractor.net.mesh.loopback import raw_public  # noqa: E402
from tractor.net.mesh.wire import PeerNode  # noqa: E402
from tractor.net.table.player import RandomPlayer  # noqa: E402
from tractor.net.table.session import GameSession  # noqa: E402
from tractor.rules import Rules  # noqa: E402

SENT: dict[bytes, float] = {}
ARRIVED: list[float] = []


def is_play(frame: bytes) -> bool:
    h = header(frame)
    if h is None or h[5] != "app":
        return False
    data = body_of(frame).get("data")
    return isinstance(data, dict) and "play" in data


class TimedLink(PeerLink):
    def sendString(self, string: bytes) -> None:
        if string and self.up and self.seat is not None and is_play(string):
            h = header(string)
            if h is not None and h[3] == self.node.seat:  # its own play, not a relay
                SENT.setdefault(string, time.perf_counter())
        super().sendString(string)

    def stringReceived(self, data: bytes) -> None:
        if self.up and data in SENT:
            ARRIVED.append(time.perf_counter() - SENT[data])
        super().stringReceived(data)


class TimedNode(PeerNode):
    def factory(self, seat: int | None = None) -> Any:
        from twisted.internet.protocol import Factory
        return Factory.forProtocol(lambda: TimedLink(self, seat))


async def main(reactor: Any, mailbox: str, relay: str, path: str, hands: int) -> None:
    keys = [Ed25519PrivateKey.from_private_bytes(bytes([9, s, 3]) + bytes(29))
            for s in range(4)]
    table = os.urandom(32)  # a new table each run: new pair codes
    address = internet_address(mailbox, relay)
    nodes = []
    for s in range(4):
        session = GameSession(Rules(), table, s, keys[s], [k.public_key() for k in keys],
                              bytes([s, 7]) * 16, RandomPlayer(s), max_hands=hands)
        node = TimedNode(reactor, session, [raw_public(k) for k in keys],
                         pair_links=Wormholes(relay_only=path == "relay"))
        nodes.append(node)
    t0 = time.time()
    for node in nodes:
        node.dial({s: address for s in range(4) if s != node.seat})
    for node in nodes:
        node.begin()
    timeout: Deferred[None] = Deferred()
    reactor.callLater(240, lambda: timeout.called or timeout.callback(None))
    await DeferredList([DeferredList([n.done for n in nodes], consumeErrors=True), timeout],
                       fireOnOneCallback=True)
    seconds = time.time() - t0
    paths = [node.mesh.paths() if node.mesh is not None else {} for node in nodes]
    for node in nodes:
        node.stop()
    await task.deferLater(reactor, 0.5, lambda: None)  # the wormholes say goodbye
    ARRIVED.sort()
    print(json.dumps({
        "seconds": round(seconds, 2),
        "peers": [{"halted": type(n.halted).__name__ if n.halted else None,
                   "results": [r.to_data() for r in n.session.results],
                   "relayed": n.traffic.relayed,
                   "paths": {str(k): v for k, v in p.items()}}
                  for n, p in zip(nodes, paths, strict=True)],
        "moves": len(ARRIVED),
        "p50_ms": round(ARRIVED[len(ARRIVED) // 2] * 1000, 2) if ARRIVED else None,
        "p95_ms": round(ARRIVED[int(len(ARRIVED) * 0.95)] * 1000, 2) if ARRIVED else None}))


if __name__ == "__main__":
    task.react(lambda r: ensureDeferred(main(r, sys.argv[1], sys.argv[2], sys.argv[3],
                                             int(sys.argv[4]))))
