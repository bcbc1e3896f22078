"""Headless AI peers: `tractor ai` (join a table as N AI seats) and `tractor ai-server`
(answer the LAN's "fill empty seats" requests).

An AI peer is an ordinary peer: it listens for the game mesh, joins the lobby like a
person would (with the table's passphrase, or a one-time seat token the host issued),
and plays through `StrategyPlayer`, which sees only its seat's observation. Every AI
seat a server starts runs in its own process, so a slow search never holds up another
table, and both cores work during the shuffle proofs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet.defer import DeferredList
from twisted.logger import Logger

from tractor.net.journal import Journal
from tractor.net.lobby import Participant, parse_endpoint
from tractor.net.lobby_wire import join_table, serve_ai
from tractor.net.seat import game_id, listen_node, raw_public, take_seat
from tractor.net.session import GameSession
from tractor.net.wire import GRACE

from .peer import StrategyPlayer
from .strategies import make_strategy

log = Logger()

#: Seat tokens travel to a spawned AI process in its environment, not its command line
#: (which every local user can read).
TOKENS_ENV = "TRACTOR_AI_TOKENS"
MAX_AI_PROCESSES = 24  #: AI players one server runs at once (a lobby may never start)


def _interface_for(address: str) -> str:
    """Listen where the table's other seats can reach us: loopback for a local table."""
    try:
        host, _ = parse_endpoint(address)
    except Exception:
        return "0.0.0.0"
    return "127.0.0.1" if host.startswith("127.") or host == "::1" else "0.0.0.0"


async def play_ai_seat(reactor: Any, address: str, strategy: str = "search",
                       level: str = "normal", seed: int | None = None,
                       token: bytes | None = None, passphrase: str | None = None,
                       name: str = "AI", journal_dir: str | None = None,
                       max_hands: int | None = None, grace: float = GRACE) -> GameSession:
    """Join the lobby at ``address`` as one AI seat and play the game to its end."""
    key = Ed25519PrivateKey.generate()
    node, port = await listen_node(reactor, _interface_for(address), grace=grace)
    try:
        guest = await join_table(reactor, address,
                                 Participant(name, raw_public(key), port, kind="ai"),
                                 passphrase=passphrase, token=token)
        guest.ready(True)
        seating = await guest.started
        seed = int.from_bytes(os.urandom(4), "big") if seed is None else seed
        player = StrategyPlayer(make_strategy(strategy, level, seed + seating.seat),
                                seating.rules, seed + seating.seat)
        journal = None
        if journal_dir is not None:
            Path(journal_dir).mkdir(parents=True, exist_ok=True)
            journal = Journal(str(Path(journal_dir) / f"ai-{game_id(seating)}.sqlite"))
        session = take_seat(node, seating, key, player, journal, max_hands=max_hands,
                            meta={"strategy": strategy, "level": level})
        log.info("AI seat {seat} playing at table {name!r}", seat=seating.seat,
                 name=seating.name)
        await node.done
        return session
    finally:
        node.stop()


async def play_ai_seats(reactor: Any, address: str, count: int, strategy: str, level: str,
                        seed: int | None, tokens: Sequence[bytes] = (),
                        passphrase: str | None = None,
                        journal_dir: str | None = None, name: str = "AI",
                        grace: float = GRACE) -> list[str]:
    """``count`` AI seats at one table; returns one line per seat on how it ended."""
    runs = []
    for k in range(count):
        token = tokens[k] if k < len(tokens) else None
        runs.append(play_ai_seat(reactor, address, strategy, level,
                                 None if seed is None else seed + 100 * k, token,
                                 passphrase, f"{name} {k + 1}" if count > 1 else name,
                                 journal_dir, grace=grace))
    from twisted.internet.defer import ensureDeferred

    results = await DeferredList([ensureDeferred(r) for r in runs], consumeErrors=True)
    lines = []
    for ok, value in results:
        if ok:
            lines.append(f"seat {value.seat}: game over after {len(value.results)} hand(s)"
                         if value.over else f"seat {value.seat}: stopped after "
                         f"{len(value.results)} hand(s)")
        else:
            lines.append(f"an AI seat stopped: {value.getErrorMessage()}")
    return lines


def spawn_ai_process(address: str, tokens: Sequence[bytes], strategy: str = "search",
                     level: str = "normal", seed: int | None = None,
                     log_file: str | None = None, journal_dir: str | None = None,
                     exit_with_parent: bool = False, name: str | None = None,
                     grace: float | None = None) -> subprocess.Popen[bytes]:
    """Start ``tractor ai`` in a child process for len(tokens) seats at ``address``."""
    cmd = [sys.executable, "-m", "tractor.cli.main", "ai", "--join", address,
           "--seats", str(len(tokens)), "--strategy", strategy, "--level", level]
    if seed is not None:
        cmd += ["--seed", str(seed)]
    if journal_dir is not None:
        cmd += ["--journal-dir", journal_dir]
    if exit_with_parent:
        cmd.append("--exit-with-parent")
    if name is not None:
        cmd += ["--name", name]
    if grace is not None:
        cmd += ["--grace", str(grace)]
    env = dict(os.environ, **{TOKENS_ENV: ",".join(t.hex() for t in tokens)})
    err = open(log_file, "ab") if log_file else subprocess.DEVNULL  # noqa: SIM115
    return subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=err)


def spawn_ai_resume(journal: str, log_file: str) -> subprocess.Popen[bytes]:
    """Bring back an AI seat of this machine from its journal (`tractor ai --resume`); it
    leaves with the process that starts it."""
    return subprocess.Popen(
        [sys.executable, "-m", "tractor.cli.main", "ai", "--resume", journal,
         "--exit-with-parent"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=open(log_file, "ab"))  # noqa: SIM115


def tokens_from_env() -> list[bytes]:
    raw = os.environ.pop(TOKENS_ENV, "")
    return [bytes.fromhex(t) for t in raw.split(",") if t]


async def run_ai_server(reactor: Any, listen: str, strategy: str, level: str,
                        announce: bool = True, name: str = "AI server",
                        log_file: str | None = None, journal_dir: str | None = None) -> Any:
    """Answer fill requests: each AI seat asked for becomes its own `tractor ai` process."""
    children: list[subprocess.Popen[bytes]] = []

    def spawn(lobby: str, token: bytes, table: str) -> None:
        children[:] = [c for c in children if c.poll() is None]
        if len(children) >= MAX_AI_PROCESSES:
            raise RuntimeError(f"this AI server already runs {len(children)} AI players")
        log.info("starting an AI seat for table {table!r} at {lobby}", table=table,
                 lobby=lobby)
        children.append(spawn_ai_process(lobby, [token], strategy, level, log_file=log_file,
                                         journal_dir=journal_dir))

    server = await serve_ai(reactor, spawn, listen=listen, announce=announce, name=name)
    server.children = children
    return server
