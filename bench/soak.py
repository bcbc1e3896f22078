"""Soak: four peers, each its own process, on real loopback TCP, play N complete hands.

    python bench/soak.py --hands N [--seed S]

Prints hands per minute, messages and bytes per hand per peer, per-move latency p50/p95
(from the first peer that applied a play, its player, to the last peer that applied it;
each peer notes the moment its table records the play, so a hand's last play does not
count the audit that follows it),
and the number of disagreements (hands whose results differ between peers: must be 0).
The last line is one JSON object with the keys ``hands``, ``disagreements``,
``hands_per_minute``, ``messages_per_hand_per_peer``, ``bytes_per_hand_per_peer`` (the
frames a peer makes), ``link_frames_per_hand_per_peer``, ``link_bytes_per_hand_per_peer``
(what it sends on its links: each own frame to every other seat, relayed frames and have
reports), ``relayed_per_hand_per_peer``, ``have_reports_per_hand_per_peer``,
``move_latency_p50_ms``, ``move_latency_p95_ms``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seats", type=int, default=4)
    args = parser.parse_args()
    procs = [subprocess.Popen(
        [sys.executable, "-P", "-m", "tractor.net.table.peer_process", "--seat", str(s), "--seats",
         str(args.seats), "--seed", str(args.seed), "--hands", str(args.hands)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for s in range(args.seats)]
    ports = [json.loads(p.stdout.readline())["port"] for p in procs]  # type: ignore[union-attr]
    addresses = json.dumps({"addresses": {s: f"tcp:127.0.0.1:{port}"
                                          for s, port in enumerate(ports)}})
    t0 = time.time()
    for p in procs:
        p.stdin.write(addresses + "\n")  # type: ignore[union-attr]
        p.stdin.flush()  # type: ignore[union-attr]
    reports = []
    for p in procs:
        out, _ = p.communicate(timeout=3600)
        reports.append(json.loads(out.strip().splitlines()[-1]))
    wall = time.time() - t0
    hands = min(len(r["results"]) for r in reports)
    disagreements = sum(1 for h in range(max(len(r["results"]) for r in reports))
                        if len({json.dumps(r["results"][h]) if h < len(r["results"]) else ""
                                for r in reports}) > 1)
    errors = [r["error"] for r in reports if r["error"]]
    latencies = []
    keys = set.intersection(*(set(r["stats"]["applied"]) for r in reports))
    for key in keys:
        times = [r["stats"]["applied"][key] for r in reports]
        latencies.append((max(times) - min(times)) * 1000)
    latencies.sort()

    def pct(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else 0.0

    frames = sum(r["stats"]["frames_out"] for r in reports) / len(reports) / max(hands, 1)
    nbytes = sum(r["stats"]["bytes_out"] for r in reports) / len(reports) / max(hands, 1)
    def per_peer_hand(key: str) -> float:
        return sum(r["stats"]["links"][key] for r in reports) / len(reports) / max(hands, 1)
    sends, sent_bytes = per_peer_hand("frames"), per_peer_hand("bytes")
    relayed, haves = per_peer_hand("relayed"), per_peer_hand("haves")
    overhead = (sent_bytes - nbytes * (args.seats - 1)) / max(nbytes * (args.seats - 1), 1)
    per_minute = hands / (max(r["elapsed"] for r in reports) / 60)
    print(f"{args.seats} peer processes on loopback TCP, {hands} hands in {wall:.1f} s wall "
          f"= {per_minute:.1f} hands per minute")
    print(f"messages per hand per peer: {frames:.0f}; bytes per hand per peer: {nbytes:.0f}")
    print(f"sent on links per hand per peer: {sends:.0f} frames, {sent_bytes:.0f} bytes "
          f"(relayed frames {relayed:.1f}, have reports {haves:.1f}: {overhead:+.1%} bytes "
          f"over sending each own frame to every other seat once)")
    print(f"move latency (play to all peers applied): p50 {pct(0.5):.1f} ms, "
          f"p95 {pct(0.95):.1f} ms over {len(latencies)} moves")
    print(f"disagreements: {disagreements}; errors: {errors or 'none'}")
    print(json.dumps({"hands": hands, "disagreements": disagreements + len(errors),
                      "hands_per_minute": round(per_minute, 2),
                      "messages_per_hand_per_peer": round(frames, 1),
                      "bytes_per_hand_per_peer": round(nbytes),
                      "link_frames_per_hand_per_peer": round(sends, 1),
                      "link_bytes_per_hand_per_peer": round(sent_bytes),
                      "relayed_per_hand_per_peer": round(relayed, 2),
                      "have_reports_per_hand_per_peer": round(haves, 1),
                      "move_latency_p50_ms": round(pct(0.5), 2),
                      "move_latency_p95_ms": round(pct(0.95), 2)}))


if __name__ == "__main__":
    main()
