"""Committed-shuffle deal: four peers in one process, in-memory message passing.

    python bench/deal.py [--seats 4] [--decks 2]

A full verified hand set-up: coin commitments, four shuffles each with a 40-shadow
cut-and-choose proof checked by every other peer, four locks with a proof per
position, then the deal of 25 cards each in draw order and the talon to the
starter. Prints per-peer CPU seconds, wall seconds, scalar multiplications per
peer, bytes sent per peer and the soundness in bits; the last line is one JSON
object with the keys ``cpu_seconds_per_peer``, ``wall_seconds``,
``scalar_mults_per_peer``, ``bytes_per_peer``, ``soundness_bits``.
"""

from __future__ import annotations

import argparse
import json
import time

from tractor.net.deck.group import OPS
from tractor.net.deck.local import LocalDeal
from tractor.net.deck.shuffle_proof import SOUNDNESS_BITS
from tractor.rules import Rules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--decks", type=int, default=2)
    args = parser.parse_args()
    rules = Rules(players=args.seats, decks=args.decks)
    wall0 = time.perf_counter()
    ops0 = OPS.total()
    table = LocalDeal(seats=args.seats, decks=args.decks, hand_size=rules.hand_size)
    table.setup()
    table.deal_all(starter=0)
    wall = time.perf_counter() - wall0
    mults = (OPS.total() - ops0) / args.seats
    hands = [len(p.hand()) for p in table.peers]
    assert hands == [rules.hand_size + rules.talon_size] + [rules.hand_size] * (args.seats - 1)
    cpu = sum(table.cpu) / args.seats
    print(f"{args.seats} peers, {args.decks} decks ({54 * args.decks} cards), "
          f"hands {hands}")
    print(f"CPU seconds per peer: {', '.join(f'{c:.2f}' for c in table.cpu)} "
          f"(mean {cpu:.2f})")
    print(f"wall seconds (all peers in one process): {wall:.2f}")
    print(f"scalar multiplications per peer: {mults:.0f}")
    print(f"bytes sent per peer: {', '.join(str(b) for b in table.sent_bytes)}")
    print(f"soundness: 2^-{SOUNDNESS_BITS} per cheating shuffle")
    print(json.dumps({"cpu_seconds_per_peer": round(max(table.cpu), 3),
                      "wall_seconds": round(wall, 3),
                      "scalar_mults_per_peer": round(mults),
                      "bytes_per_peer": round(sum(table.sent_bytes) / args.seats),
                      "soundness_bits": SOUNDNESS_BITS}))


if __name__ == "__main__":
    main()
