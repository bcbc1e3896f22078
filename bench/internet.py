"""How much slower is a move through the transit relay than direct?

Four peers, each a process of its own on this machine, play the same seeded hands three
ways: over plain TCP links (a LAN table), over magic-wormhole links that Dilation
connects directly, and over wormhole links forced through the relay (no seat offers a
direct connection); the mailbox server and the transit relay are this benchmark's own
processes on loopback. A move's latency is the time from a play's signed frame leaving its
author's link to its arrival at another seat (every seat's clock is this machine's), one
figure per play and receiving seat.

    python bench/internet.py [--hands 2] [--rounds 1]

The last line is one JSON object: ``{"hands", "rounds", "moves": {mode: n},
"p50_ms": {mode: ms}, "p95_ms": {mode: ms}, "relay_over_direct_p95",
"relay_over_tcp_p95", "paths": {mode: {"direct": n, "relay": n}}}`` for the modes
``tcp``, ``direct`` and ``relay``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent.parent / "tests"))

SEATS = 4
MODES = ("tcp", "direct", "relay")


def _is_play(frame: bytes) -> bool:
    import msgpack

    try:
        data = msgpack.unpackb(frame, raw=False)
    except Exception:
        return False
    if not (isinstance(data, list) and len(data) == 3 and isinstance(data[0], list)
            and len(data[0]) == 7 and data[0][5] == "app"):
        return False
    body = data[1]
    return isinstance(body, dict) and isinstance(body.get("data"), dict) and \
        "play" in body["data"]


def peer(seat: int, mode: str, addresses: list[str], hands: int, seed: int) -> None:
    """One seat of the table, in this process; prints one JSON line at the end."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from twisted.internet import task
    from twisted.internet.defer import Deferred, DeferredList, ensureDeferred
    from twisted.internet.protocol import Factory

    from tractor.net.internet.mesh import Wormholes
    from tractor.net.mesh.link import PeerLink
    from tractor.net.mesh.loopback import raw_public
    from tractor.net.mesh.wire import PeerNode
    from tractor.net.table.player import RandomPlayer
    from tractor.net.table.session import GameSession
    from tractor.rules import Rules

    sent: dict[str, float] = {}
    arrived: dict[str, float] = {}

    class TimedLink(PeerLink):
        def sendString(self, string: bytes) -> None:
            if string and self.up and _is_play(string):
                sent.setdefault(hashlib.sha256(string).hexdigest()[:16], time.time())
            super().sendString(string)

        def stringReceived(self, data: bytes) -> None:
            if self.up and data and _is_play(data):
                arrived.setdefault(hashlib.sha256(data).hexdigest()[:16], time.time())
            super().stringReceived(data)

    class TimedNode(PeerNode):
        def factory(self, seat: int | None = None) -> Any:
            return Factory.forProtocol(lambda: TimedLink(self, seat))

    async def main(reactor: Any) -> None:
        keys = [Ed25519PrivateKey.from_private_bytes(bytes([seed % 256, s, 5]) + bytes(29))
                for s in range(SEATS)]
        table = hashlib.sha256(f"bench-internet-{seed}-{mode}".encode()).digest()
        session = GameSession(Rules(), table, seat, keys[seat], [k.public_key() for k in keys],
                              bytes([seed % 256, seat]) * 16, RandomPlayer(seed + seat),
                              max_hands=hands)
        port = addresses[seat].rsplit(":", 1)[-1] if mode == "tcp" else "0"
        node = TimedNode(reactor, session, [raw_public(k) for k in keys],
                         listen=f"tcp:{port}:interface=127.0.0.1",
                         pair_links=Wormholes(relay_only=mode == "relay"))
        await node.start()
        node.dial({s: a for s, a in enumerate(addresses) if s != seat})
        node.begin()
        timeout: Deferred[None] = Deferred()
        reactor.callLater(300, lambda: timeout.called or timeout.callback(None))
        await DeferredList([node.done, timeout], fireOnOneCallback=True, consumeErrors=True)
        await task.deferLater(reactor, 2.0, lambda: None)  # the others finish too
        paths = node.mesh.paths() if node.mesh is not None else {}
        node.stop()
        await task.deferLater(reactor, 0.3, lambda: None)
        print(json.dumps({"seat": seat, "halted": repr(node.halted) if node.halted else None,
                          "results": len(session.results), "sent": sent, "arrived": arrived,
                          "paths": list(paths.values())}), flush=True)

    task.react(lambda r: ensureDeferred(main(r)))


def table(mode: str, hands: int, seed: int, servers: Any) -> dict[str, Any]:
    """Run the four peers of one table; their latencies and paths."""
    from wormhole_servers import free_port

    from tractor.net.internet.rendezvous import internet_address

    if mode == "tcp":
        addresses = [f"tcp:127.0.0.1:{free_port()}" for _ in range(SEATS)]
    else:
        addresses = [internet_address(servers.mailbox, servers.relay)] * SEATS
    procs = [subprocess.Popen([sys.executable, "-P", str(HERE), "--peer", str(s), mode,
                               json.dumps(addresses), str(hands), str(seed)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for s in range(SEATS)]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=400)
        if p.returncode != 0 or not out.strip():
            raise RuntimeError(f"a peer failed ({mode}): {err[-2000:]}")
        outs.append(json.loads(out.strip().splitlines()[-1]))
    for o in outs:
        if o["halted"] or o["results"] != hands:
            raise RuntimeError(f"seat {o['seat']} ({mode}) did not finish: {o['halted']}")
    latencies = []
    for author in outs:
        for h, t in author["sent"].items():
            for other in outs:
                if other is not author and h in other["arrived"]:
                    latencies.append(other["arrived"][h] - t)
    paths = [p for o in outs for p in o["paths"]]
    return {"latencies": latencies,
            "paths": {"direct": paths.count("direct"), "relay": paths.count("relay")}}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--peer", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peer:
        seat, mode, addresses, hands, seed = args.peer
        peer(int(seat), mode, json.loads(addresses), int(hands), int(seed))
        return
    from wormhole_servers import WormholeServers

    got: dict[str, list[float]] = {m: [] for m in MODES}
    paths: dict[str, dict[str, int]] = {m: {"direct": 0, "relay": 0} for m in MODES}
    with tempfile.TemporaryDirectory() as folder, WormholeServers(Path(folder)) as servers:
        for r in range(args.rounds):
            for mode in MODES:  # interleaved: the machine's load falls alike on each
                out = table(mode, args.hands, 100 + r, servers)
                got[mode] += out["latencies"]
                for k, v in out["paths"].items():
                    paths[mode][k] += v
                print(f"round {r + 1} {mode:6}: {len(out['latencies'])} moves, p50 "
                      f"{pct(out['latencies'], 0.5):.2f} ms, p95 "
                      f"{pct(out['latencies'], 0.95):.2f} ms, links {out['paths']}",
                      flush=True)
    p50 = {m: round(pct(v, 0.5), 2) for m, v in got.items()}
    p95 = {m: round(pct(v, 0.95), 2) for m, v in got.items()}
    print(f"p95 through the relay / direct: {p95['relay'] / p95['direct']:.2f}x; "
          f"/ plain TCP: {p95['relay'] / p95['tcp']:.2f}x")
    print(json.dumps({"hands": args.hands, "rounds": args.rounds,
                      "moves": {m: len(v) for m, v in got.items()}, "p50_ms": p50,
                      "p95_ms": p95,
                      "relay_over_direct_p95": round(p95["relay"] / p95["direct"], 2),
                      "relay_over_tcp_p95": round(p95["relay"] / p95["tcp"], 2),
                      "paths": paths}))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
