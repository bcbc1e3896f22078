"""Four peers in one process on real loopback TCP, one of them hostile (its links tamper
with what it sends, as in `memnet`); prints one JSON line: how each peer ended.

    python -P tests/hostile_tcp.py equivocate|withhold SEED
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402
from memnet import Tamper, body_of, header, resign, withhold  # noqa: E402
from twisted.internet import task  # noqa: E402
from twisted.internet.defer import Deferred, DeferredList, ensureDeferred  # noqa: E402
from twisted.internet.protocol import Factory  # noqa: E402

from tractor.net.mesh.link import PeerLink  # noqa: E402
from tractor.net.mesh.loopback import raw_public  # noqa: E402
from tractor.net.mesh.wire import PeerNode  # noqa: E402
from tractor.net.table.player import RandomPlayer  # noqa: E402
from tractor.net.table.session import GameSession  # noqa: E402
from tractor.rules import Rules  # noqa: E402

CHEATER = 2


class TamperingLink(PeerLink):
    """A link of the hostile seat: every signed frame it sends passes its tamper first."""

    def sendString(self, string: bytes) -> None:
        tamper = self.node.tampers.get(self.seat) if self.up else None  # type: ignore[attr-defined]
        if tamper is None or not header(string):
            super().sendString(string)
            return
        for frame in tamper(string):
            super().sendString(frame)


class HostileNode(PeerNode):
    tampers: dict[int, Tamper] = {}

    def factory(self, seat: int | None = None) -> Factory:
        return Factory.forProtocol(lambda: TamperingLink(self, seat))


def tampers(scenario: str, key: Any) -> dict[int, Tamper]:
    if scenario == "withhold":  # every table message and deal key kept from seat 0
        app, deal = withhold("app"), withhold("deal")
        return {0: lambda f: [g for h in app(f) for g in deal(h)]}
    made: dict[int, bytes] = {}

    def split(frame: bytes) -> list[bytes]:  # another first window message for seats 0, 1
        h = header(frame)
        if h[3] == CHEATER and (h[4] in made or (
                not made and h[5] == "app" and "w" in body_of(frame)["data"])):
            made.setdefault(h[4], resign(frame, key, {"data": {"chat": "hello"}}))
            return [made[h[4]]]
        return [frame]
    return {0: split, 1: split}


async def main(reactor: Any, scenario: str, seed: int) -> None:
    keys = [Ed25519PrivateKey.from_private_bytes(bytes([seed, s, 3]) + bytes(29))
            for s in range(4)]
    table = f"hostile-tcp-{seed}".encode()
    nodes = []
    for s in range(4):
        session = GameSession(Rules(), table, s, keys[s], [k.public_key() for k in keys],
                              bytes([seed, s, 7]) * 11, RandomPlayer(seed * 10 + s),
                              max_hands=1)
        cls = HostileNode if s == CHEATER else PeerNode
        node = cls(reactor, session, [raw_public(k) for k in keys])
        if s == CHEATER:
            node.tampers = tampers(scenario, keys[s])  # type: ignore[attr-defined]
        nodes.append(node)
    ports = [await node.start() for node in nodes]
    for node in nodes:
        node.dial({s: f"tcp:127.0.0.1:{p}" for s, p in enumerate(ports)})
    for node in nodes:
        node.begin()
    honest = [n.done for i, n in enumerate(nodes) if i != CHEATER]
    timeout: Deferred[None] = Deferred()
    reactor.callLater(240, lambda: timeout.called or timeout.callback(None))
    both = DeferredList([DeferredList(honest, consumeErrors=True), timeout],
                        fireOnOneCallback=True)
    await both
    for node in nodes:
        node.stop()
    print(json.dumps([{
        "halted": type(n.halted).__name__ if n.halted else None,
        "blamed": getattr(n.halted, "seat", None), "why": str(n.halted) if n.halted else "",
        "evidence": len(getattr(n.halted, "frames", ())),
        "results": [r.to_data() for r in n.session.results],
        "relayed": n.traffic.relayed} for n in nodes]))


if __name__ == "__main__":
    task.react(lambda r: ensureDeferred(main(r, sys.argv[1], int(sys.argv[2]))))
