"""How long the reactor stalls while AI peers decide: AI peers in one process (as
`tractor ai --seats N` runs them), on real loopback TCP, play until enough plays are made.

    python bench/ai_stall.py [--mode thread|inline] [--level normal] [--plays 12]
                             [--strategy search] [--seed 1] [--tick 0.01]

``--mode inline`` decides inside the table's ``receive`` on the reactor (how the AI peer
decided before it moved off the reactor); ``thread`` is the AI peer as it runs now (the
strategy in a worker thread, the answer through `GameSession.decide`).

A timer due every ``--tick`` seconds records how late it runs: that lateness is the time
the reactor could not serve the links, the heartbeats, the key deadlines or a screen. It
is reported over the whole run (the deck's shuffle proofs and every frame included) and
for the ticks that fell due while an AI decision was being worked out. The last line is
one JSON object: ``{"mode", "level", "plays", "decisions", "decision_max_s",
"decision_total_s", "ticks", "stall_max_ms", "stall_p99_ms", "stall_p50_ms",
"decision_stall_max_ms", "decision_stall_p99_ms", "play_stall_max_ms",
"play_stall_p99_ms", "play_stall_p50_ms", "play_ticks", "late_over_100ms",
"threads_after_stop", "errors"}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from typing import Any

from twisted.internet.defer import Deferred, ensureDeferred

from tractor.actions import Action, Declare
from tractor.ai.hosting.peer import StrategyPlayer
from tractor.ai.players.strategies import make_strategy
from tractor.hand import Hand
from tractor.net.mesh.loopback import raw_public
from tractor.net.mesh.wire import PeerNode
from tractor.net.table.session import GameSession
from tractor.rules import Rules


class Timed:
    """A strategy whose every decision is timed (from any thread)."""

    def __init__(self, inner: Any, spans: list[tuple[float, float, str]]) -> None:
        self.inner, self.spans = inner, spans
        self.name = inner.name

    def act(self, hand: Hand, seat: int) -> Action:
        t0 = time.perf_counter()
        try:
            return self.inner.act(hand, seat)
        finally:
            self.spans.append((t0, time.perf_counter(), hand.phase))

    def declare(self, hand: Hand, seat: int) -> Declare | None:
        t0 = time.perf_counter()
        try:
            return self.inner.declare(hand, seat)
        finally:
            self.spans.append((t0, time.perf_counter(), "declare"))


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def measure(reactor: Any, args: argparse.Namespace) -> dict[str, Any]:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    rules = Rules(players=args.seats)
    seed = args.seed
    keys = [Ed25519PrivateKey.from_private_bytes(bytes([seed % 256, s, 9]) * 10 + b"ai")
            for s in range(args.seats)]
    spans: list[tuple[float, float, str]] = []
    executor = None
    if args.mode == "thread":
        from tractor.ai.hosting.executors import ThreadExecutor
        executor = ThreadExecutor(reactor, threads=args.seats)
    players = [StrategyPlayer(Timed(make_strategy(args.strategy, args.level, seed + s), spans),
                              rules, seed + s, **({"executor": executor} if executor else {}))
               for s in range(args.seats)]
    nodes = []
    for s in range(args.seats):
        session = GameSession(rules, f"ai-stall-{seed}".encode(), s, keys[s],
                              [k.public_key() for k in keys], bytes([seed % 256, s]) * 16,
                              players[s], max_hands=1)
        nodes.append(PeerNode(reactor, session, [raw_public(k) for k in keys]))
    ports = [await node.start() for node in nodes]
    for node in nodes:
        node.dial({s: f"tcp:127.0.0.1:{p}" for s, p in enumerate(ports)})
    for node, player in zip(nodes, players, strict=True):
        node.begin()
        if executor is not None:
            player.serve(node)

    ticks: list[tuple[float, float]] = []  # (due, ran)
    over: Deferred[None] = Deferred()
    due = [time.perf_counter() + args.tick]

    def plays() -> int:
        return sum(1 for _, _, phase in list(spans) if phase == "play")

    def tick() -> None:
        now = time.perf_counter()
        ticks.append((due[0], now))
        if plays() >= args.plays or all(n.done.called for n in nodes):
            if not over.called:
                over.callback(None)
            return
        due[0] = now + args.tick
        reactor.callLater(args.tick, tick)

    reactor.callLater(args.tick, tick)
    await over
    for node in nodes:
        node.stop()
    if executor is not None:
        executor.stop()
    done = list(spans)
    windows = [(a, b) for a, b, _ in done]
    stalls = [max(0.0, ran - d) for d, ran in ticks]
    in_decisions = [max(0.0, ran - d) for d, ran in ticks
                    if any(a <= d <= b for a, b in windows)]
    play_windows = [(a, b) for a, b, phase in done if phase == "play"]
    in_plays = [max(0.0, ran - d) for d, ran in ticks
                if any(a <= d <= b for a, b in play_windows)]
    lengths = [b - a for a, b in windows]
    return {
        "mode": args.mode, "level": args.level, "strategy": args.strategy,
        "plays": sum(1 for _, _, p in done if p == "play"), "decisions": len(done),
        "decision_max_s": round(max(lengths, default=0.0), 3),
        "decision_total_s": round(sum(lengths), 3),
        "ticks": len(ticks),
        "stall_max_ms": round(1000 * max(stalls, default=0.0), 1),
        "stall_p99_ms": round(1000 * _pct(stalls, 0.99), 1),
        "stall_p50_ms": round(1000 * _pct(stalls, 0.5), 1),
        "decision_stall_max_ms": round(1000 * max(in_decisions, default=0.0), 1),
        "decision_stall_p99_ms": round(1000 * _pct(in_decisions, 0.99), 1),
        "play_stall_max_ms": round(1000 * max(in_plays, default=0.0), 1),
        "play_stall_p99_ms": round(1000 * _pct(in_plays, 0.99), 1),
        "play_stall_p50_ms": round(1000 * _pct(in_plays, 0.5), 1),
        "play_ticks": len(in_plays),
        "late_over_100ms": sum(1 for s in stalls if s > 0.1),
        "threads_after_stop": threading.active_count(),
        "errors": [str(e) for n in nodes for e in n.errors] + [
            str(n.halted) for n in nodes if n.halted is not None],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=("thread", "inline"), default="thread")
    parser.add_argument("--strategy", default="search")
    parser.add_argument("--level", default="normal")
    parser.add_argument("--plays", type=int, default=12,
                        help="stop after this many AI plays (all seats together)")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tick", type=float, default=0.01, help="the probe timer's period")
    args = parser.parse_args()
    from twisted.internet import task

    async def run(reactor: Any) -> None:
        out = await measure(reactor, args)
        print(f"{out['mode']}: {out['plays']} plays ({out['decisions']} decisions, longest "
              f"{out['decision_max_s']} s, {out['decision_total_s']} s in all)")
        print(f"reactor stall while an AI decides: max {out['decision_stall_max_ms']} ms, "
              f"p99 {out['decision_stall_p99_ms']} ms")
        print(f"reactor stall while an AI decides a play: max {out['play_stall_max_ms']} ms, "
              f"p99 {out['play_stall_p99_ms']} ms, p50 {out['play_stall_p50_ms']} ms over "
              f"{out['play_ticks']} ticks")
        print(f"reactor stall overall: max {out['stall_max_ms']} ms, p99 "
              f"{out['stall_p99_ms']} ms, p50 {out['stall_p50_ms']} ms over {out['ticks']} "
              f"ticks; {out['late_over_100ms']} more than 100 ms late")
        print(json.dumps(out))
        sys.stdout.flush()

    task.react(lambda r: ensureDeferred(run(r)))


if __name__ == "__main__":
    main()
