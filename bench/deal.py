"""Committed-shuffle deal: all peers in one process, in-memory message passing.

    python bench/deal.py [--seats 4] [--decks 2] [--sweep]

A full verified hand set-up: every seat's shuffle with its linear shuffle proof checked
by every other peer, every seat's lock with a proof per position, then the deal of the
hand in draw order and the talon to the starter. Prints per-peer CPU seconds, wall
seconds, scalar multiplications per peer, bytes sent per peer, the shuffle proofs' bytes
per hand and their soundness; the last line is one JSON object with the keys
``seats``, ``decks``, ``cpu_seconds_per_peer`` (the busiest peer), ``wall_seconds``,
``scalar_mults_per_peer``, ``bytes_per_peer``, ``proof_bytes_per_hand``,
``shuffle_proof`` (the construction) and ``soundness_bits``. ``--sweep`` runs 4 seats
with 2 decks, 6 with 3 and 8 with 4, one line each, and ends with one JSON object holding
``shuffle_proof``, ``soundness_bits`` and ``sweep`` (the list of the per-size objects).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import msgpack

from tractor.net.deck.group import OPS
from tractor.net.deck.local import LocalDeal
from tractor.net.deck.shuffle_proof import NAME, SOUNDNESS_BITS
from tractor.rules import Rules

SWEEP = [(4, 2), (6, 3), (8, 4)]


def run(seats: int, decks: int) -> dict[str, Any]:
    rules = Rules(players=seats, decks=decks)
    wall0 = time.perf_counter()
    ops0 = OPS.total()
    table = LocalDeal(seats=seats, decks=decks, hand_size=rules.hand_size)
    table.setup()
    table.deal_all(starter=0)
    wall = time.perf_counter() - wall0
    mults = (OPS.total() - ops0) / seats
    hands = [len(p.hand()) for p in table.peers]
    assert hands == [rules.hand_size + rules.talon_size] + [rules.hand_size] * (seats - 1)
    proofs = [e.body["proof"] for c in table.peers[0]._chains for e in c.frames
              if e.header.kind == "shuffle"]
    assert len(proofs) == seats
    proof_bytes = sum(len(msgpack.packb(p, use_bin_type=True)) for p in proofs)
    print(f"{seats} peers, {decks} decks ({54 * decks} cards), hands {hands}")
    print(f"  CPU seconds per peer: {', '.join(f'{c:.3f}' for c in table.cpu)} "
          f"(busiest {max(table.cpu):.3f})")
    print(f"  wall seconds (all peers in one process): {wall:.2f}")
    print(f"  scalar multiplications per peer: {mults:.0f}")
    print(f"  bytes sent per peer: {', '.join(str(b) for b in table.sent_bytes)}")
    print(f"  shuffle proofs: {proof_bytes} bytes per hand ({proof_bytes // seats} each)")
    return {"seats": seats, "decks": decks,
            "cpu_seconds_per_peer": round(max(table.cpu), 3),
            "wall_seconds": round(wall, 3),
            "scalar_mults_per_peer": round(mults),
            "bytes_per_peer": round(sum(table.sent_bytes) / seats),
            "proof_bytes_per_hand": proof_bytes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--decks", type=int, default=2)
    parser.add_argument("--sweep", action="store_true",
                        help="4 seats / 2 decks, 6 / 3 and 8 / 4, one after the other")
    args = parser.parse_args()
    print(f"shuffle proof: {NAME}, soundness 2^-{SOUNDNESS_BITS} per cheating shuffle")
    proof = {"shuffle_proof": NAME, "soundness_bits": SOUNDNESS_BITS}
    if args.sweep:
        runs = [run(s, d) for s, d in SWEEP]
        for r in runs:
            print(json.dumps({**r, **proof}))
        print(json.dumps({**proof, "sweep": runs}))
    else:
        print(json.dumps({**run(args.seats, args.decks), **proof}))


if __name__ == "__main__":
    main()
