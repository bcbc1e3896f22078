"""Several peers in one process on real loopback TCP: for end-to-end tests and demos.

    python -m tractor.net.mesh.loopback --hands 1 --seed 3

Prints one JSON line: the hands' results as every peer saw them.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from twisted.internet import task
from twisted.internet.defer import DeferredList, ensureDeferred

from tractor.net.journal.store import Journal
from tractor.net.mesh.wire import PeerNode
from tractor.net.table.journaled import game_start
from tractor.net.table.player import RandomPlayer
from tractor.net.table.session import GameSession
from tractor.rules import Rules


def raw_public(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


async def play_loopback(reactor: Any, seed: int, hands: int, seats: int = 4,
                        journal_dir: str | None = None) -> list[PeerNode]:
    rules = Rules(players=seats)
    keys = [Ed25519PrivateKey.from_private_bytes(bytes([seed % 256, s]) * 16)
            for s in range(seats)]
    table = f"loopback-{seed}".encode()
    nodes = []
    for s in range(seats):
        master = bytes([seed % 256, s, 7]) * 11
        session = GameSession(rules, table, s, keys[s], [k.public_key() for k in keys],
                              master, RandomPlayer(seed * 10 + s), max_hands=hands)
        journal = None
        if journal_dir is not None:
            journal = Journal(f"{journal_dir}/seat{s}.sqlite")
            journal.add_game(f"loopback-{seed}", game_start(session, keys[s], master))
        nodes.append(PeerNode(reactor, session, [raw_public(k) for k in keys],
                              journal=journal, game=f"loopback-{seed}"))
    ports = [await node.start() for node in nodes]
    addresses = {s: f"tcp:127.0.0.1:{p}" for s, p in enumerate(ports)}
    for node in nodes:
        node.dial(addresses)
    for node in nodes:
        node.begin()
    await DeferredList([n.done for n in nodes], fireOnOneErrback=True, consumeErrors=True)
    for node in nodes:
        node.stop()
    return nodes


def _session(node: PeerNode) -> GameSession:
    assert node.session is not None  # (every node here is made seated)
    return node.session


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hands", type=int, default=1)
    parser.add_argument("--journal-dir", help="keep each peer's SQLite journal there")
    args = parser.parse_args(argv)

    async def run(reactor: Any) -> None:
        nodes = await play_loopback(reactor, args.seed, args.hands, journal_dir=args.journal_dir)
        sessions = [_session(n) for n in nodes]
        print(json.dumps({"results": [[r.to_data() for r in s.results] for s in sessions],
                          "levels": [s.levels for s in sessions],
                          "errors": [[str(e) for e in n.errors] for n in nodes]}))
        sys.stdout.flush()

    task.react(lambda r: ensureDeferred(run(r)))


if __name__ == "__main__":
    main()
