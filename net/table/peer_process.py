"""One peer as its own process, for soak runs and crash tests (a parent hands out the
addresses, as a lobby would).

    python -m tractor.net.table.peer_process --seat S --seats 4 --seed N --hands H
        [--journal FILE [--resume]] [--port P] [--progress]

Protocol with the parent, one JSON object per line: the child prints
``{"port": P}`` once it listens; the parent writes ``{"addresses": {seat: "tcp:..."}}``;
the child plays H hands with a random-legal player and prints
``{"results": [...], "stats": {...}}`` before it exits. With ``--progress`` it also
prints ``{"hand": h, "tricks": t, "next_deck": "lock 2"}`` whenever a trick completes or
the next hand's deck (shuffled while this hand is played) moves on (null: not started).
With ``--journal`` it keeps its SQLite journal; ``--resume`` rebuilds the peer from that
file after a crash (listen on the same ``--port`` so the others find it again).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet import task
from twisted.internet.defer import Deferred, ensureDeferred
from twisted.internet.threads import deferToThread
from twisted.logger import globalLogBeginner, textFileLogObserver

from tractor.net.journal.store import Journal
from tractor.net.mesh.loopback import raw_public
from tractor.net.mesh.wire import PeerNode
from tractor.net.table.journaled import game_start, open_session
from tractor.net.table.player import RandomPlayer
from tractor.net.table.session import GameSession
from tractor.rules import Rules


class Stats:
    """Counts frames and bytes, and when each play was applied here (for latencies)."""

    def __init__(self) -> None:
        self.frames_out = 0
        self.bytes_out = 0
        self.frames_in = 0
        self.bytes_in = 0
        self.applied: dict[str, float] = {}  #: "hand.trick.play" -> time it was applied here


def instrument(node: PeerNode, stats: Stats) -> None:
    """Wrap the node's send and receive paths to count frames, and time each play by the
    session's hook: the moment the play is applied, not the end of the frame's handling
    (which, for a hand's last play, includes this peer's audit)."""
    send_all = node._send_all
    frame_from = node.frame_from
    session = node.session
    assert session is not None

    def counted_send(frames: list[bytes]) -> None:
        stats.frames_out += len(frames)
        stats.bytes_out += sum(len(f) for f in frames)
        send_all(frames)

    def counted_receive(link: Any, frame: bytes) -> None:
        stats.frames_in += 1
        stats.bytes_in += len(frame)
        frame_from(link, frame)

    def timed_play(hand: int, trick: int, play: int) -> None:
        stats.applied.setdefault(f"{hand}.{trick}.{play}", time.time())

    node._send_all = counted_send  # type: ignore[method-assign]
    node.frame_from = counted_receive  # type: ignore[method-assign]
    session.on_play = timed_play


def transcript_hash(session: GameSession) -> str:
    """One hash over every seat's message chain in every hand: equal on every peer that
    saw the same game."""
    digest = hashlib.sha256()
    for hand in [*session.played, session.current]:
        for chain in hand.deck._chains:
            digest.update(chain.hashes[-1])
    return digest.hexdigest()


async def run(reactor: Any, args: argparse.Namespace) -> None:
    seats = args.seats
    keys = [Ed25519PrivateKey.from_private_bytes(bytes([args.seed % 256, s]) * 16)
            for s in range(seats)]
    game = f"soak-{args.seed}"
    player = RandomPlayer(args.seed * 100 + args.seat)
    journal = Journal(args.journal) if args.journal else None
    resumed: list[bytes] | None = None
    if journal is not None and args.resume:
        session, resumed = open_session(journal, game, player, max_hands=args.hands)
    else:
        session = GameSession(Rules(players=seats), game.encode(), args.seat,
                              keys[args.seat], [k.public_key() for k in keys],
                              bytes([args.seed % 256, args.seat, 9]) * 11, player,
                              max_hands=args.hands)
        if journal is not None:
            journal.add_game(game, game_start(session, keys[args.seat], session._master))
    node = PeerNode(reactor, session, [raw_public(k) for k in keys],
                    listen=f"tcp:{args.port}:interface=127.0.0.1", journal=journal, game=game)
    stats = Stats()
    instrument(node, stats)
    if args.progress:
        told: list[tuple[int, int, str | None]] = [(-1, -1, None)]

        def progress() -> None:
            upcoming = session.upcoming
            now = (session.hand_no, len(session.current.tricks),
                   None if upcoming is None else f"{upcoming.phase} {upcoming.step}")
            if now != told[0]:
                told[0] = now
                print(json.dumps({"hand": now[0], "tricks": now[1], "next_deck": now[2]}),
                      flush=True)

        node.on_change = progress
    port = await node.start()
    print(json.dumps({"port": port}), flush=True)
    line = await _read_line(reactor)
    addresses = {int(k): v for k, v in json.loads(line)["addresses"].items()}
    started = time.time()
    node.dial(addresses)
    node.begin(resumed)
    try:
        await node.done
        error = None
    except Exception as exc:  # a halted table: report it
        error = str(exc)
    elapsed = time.time() - started
    # Let the last frames reach the others before closing.
    pause: Deferred[None] = Deferred()
    reactor.callLater(1.0, pause.callback, None)
    await pause
    node.stop()
    print(json.dumps({
        "results": [r.to_data() for r in session.results],
        "error": error,
        "elapsed": elapsed,
        "transcript": transcript_hash(session),
        "stats": {"frames_out": stats.frames_out, "bytes_out": stats.bytes_out,
                  "frames_in": stats.frames_in, "bytes_in": stats.bytes_in,
                  "applied": stats.applied, "links": node.traffic.as_dict()},
    }), flush=True)


async def _read_line(reactor: Any) -> str:
    """Read one line from stdin without blocking the reactor."""
    return await deferToThread(sys.stdin.readline)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seat", type=int, required=True)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hands", type=int, default=1)
    parser.add_argument("--port", type=int, default=0, help="listen on this port")
    parser.add_argument("--journal", help="keep the SQLite journal in this file")
    parser.add_argument("--resume", action="store_true",
                        help="rebuild the peer from --journal after a crash")
    parser.add_argument("--progress", action="store_true",
                        help="print a line whenever a trick completes")
    args = parser.parse_args(argv)
    globalLogBeginner.beginLoggingTo([textFileLogObserver(sys.stderr)], redirectStandardIO=False)
    task.react(lambda r: ensureDeferred(run(r, args)))


if __name__ == "__main__":
    main()
