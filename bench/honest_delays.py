"""Honest hands on a jittery network: four real `PeerNode`s on in-memory links with a clock
(`tests/memnet.py`), every frame delayed at random (exponential, mean 50 ms; one frame in 20
by up to 1.5 s more, so frames of different links overtake each other), game after game
until N hands were played.

    python bench/honest_delays.py --hands 1000 [--seed S] [--per-game 20]

Prints hands, halts, disagreements (hands whose results differ between peers), frames
relayed and have reports per hand per peer, and table seconds per hand. Must be 0 halts and
0 disagreements. The last line is one JSON object with the keys ``hands``, ``halts``,
``disagreements``, ``stops`` (peers that cast a ballot on a stall: 0 here),
``relayed_per_hand_per_peer``, ``have_reports_per_hand_per_peer``,
``table_seconds_per_hand``, ``cpu_seconds``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

from memnet import MemNet  # noqa: E402


def jitter(rng: random.Random) -> float:
    extra = rng.uniform(0.0, 1.5) if rng.random() < 0.05 else 0.0
    return rng.expovariate(1 / 0.05) + extra


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-game", type=int, default=20)
    args = parser.parse_args()
    t0 = time.process_time()
    hands = halts = disagreements = relayed = haves = stops = 0
    table_time = 0.0
    game = 0
    while hands < args.hands:
        net = MemNet(seed=args.seed * 100_000 + game, hands=min(args.per_game,
                                                                args.hands - hands),
                     delay=jitter)
        net.run(limit=1e9)
        game += 1
        played = min(len(s.results) for s in net.sessions)
        results = net.results()
        hands += max(played, 1)
        halts += sum(n.halted is not None for n in net.nodes)
        disagreements += sum(1 for h in range(max(len(r) for r in results))
                             if len({json.dumps(r[h]) if h < len(r) else "" for r in results})
                             > 1)
        relayed += sum(n.traffic.relayed for n in net.nodes)
        haves += sum(n.traffic.haves for n in net.nodes)
        stops += sum(bool(n.ballots) for n in net.nodes)  # a seat voted over a stall
        table_time += net.clock.seconds()
        if halts:
            print(f"game {game}: halted: {[str(n.halted) for n in net.nodes]}", flush=True)
        print(f"{hands} hands, {halts} halts, {disagreements} disagreements", flush=True)
    peers = len(net.nodes)
    out = {"hands": hands, "halts": halts, "disagreements": disagreements, "stops": stops,
           "relayed_per_hand_per_peer": round(relayed / hands / peers, 3),
           "have_reports_per_hand_per_peer": round(haves / hands / peers, 1),
           "table_seconds_per_hand": round(table_time / hands, 2),
           "cpu_seconds": round(time.process_time() - t0, 1)}
    print(f"{hands} hands over a jittery network: {halts} halts, {disagreements} "
          f"disagreements; relayed {out['relayed_per_hand_per_peer']} frames and "
          f"{out['have_reports_per_hand_per_peer']} have reports per hand per peer")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
