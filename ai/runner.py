"""Headless AI peers: `tractor ai` (join a table as N AI seats) and `tractor ai-server`
(answer the LAN's "fill empty seats" requests).

An AI peer is an ordinary peer: it listens for the game mesh, joins the lobby like a
person would (with the table's passphrase, or a one-time seat token the host issued),
and plays through `StrategyPlayer`, which sees only its seat's observation and works its
decisions out in a worker thread (`ThreadExecutor`), so a search never holds up the
reactor: the links, heartbeats and deadlines of every seat the process plays. Every AI
seat a server starts runs in its own process, so a slow search never holds up another
table, and both cores work during the shuffle proofs.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet.defer import DeferredList
from twisted.logger import Logger

from tractor.net.journal import Journal, private_folder
from tractor.net.lobby import Participant
from tractor.net.lobby_wire import join_table, serve_ai
from tractor.net.seat import game_id, listen_node, raw_public, take_seat
from tractor.net.session import GameSession
from tractor.net.wire import GRACE

from .children import TOKENS_ENV, AiChild, spawn
from .executors import Executor, ThreadExecutor
from .peer import StrategyPlayer
from .strategies import make_strategy

log = Logger()

MAX_AI_PROCESSES = 24  #: AI players one server runs at once (a lobby may never start)


async def play_ai_seat(reactor: Any, address: str, strategy: str = "search",
                       level: str = "normal", seed: int | None = None,
                       token: bytes | None = None, passphrase: str | None = None,
                       name: str = "AI", journal_dir: str | None = None,
                       max_hands: int | None = None, grace: float = GRACE,
                       interface: str = "0.0.0.0",
                       executor: Executor | None = None) -> GameSession:
    """Join the lobby at ``address`` as one AI seat and play the game to its end.

    The game node listens on ``interface``: every interface by default, since the lobby
    gives the other seats this machine's LAN address when it joined from the host's own
    machine; a practice game on loopback passes 127.0.0.1. Decisions are worked out in
    ``executor`` (by default a worker thread of this seat's own)."""
    own = executor is None
    executor = executor or ThreadExecutor(reactor)
    key = Ed25519PrivateKey.generate()
    try:
        node, port = await listen_node(reactor, interface, grace=grace)
    except BaseException:
        if own:
            executor.stop()
        raise
    try:
        guest = await join_table(reactor, address,
                                 Participant(name, raw_public(key), port, kind="ai"),
                                 passphrase=passphrase, token=token)
        guest.ready(True)
        seating = await guest.started
        seed = int.from_bytes(os.urandom(4), "big") if seed is None else seed
        player = StrategyPlayer(make_strategy(strategy, level, seed + seating.seat),
                                seating.rules, seed + seating.seat, executor)
        journal = None
        if journal_dir is not None:
            private_folder(journal_dir)
            journal = Journal(str(Path(journal_dir) / f"ai-{game_id(seating)}.sqlite"))
        session = take_seat(node, seating, key, player, journal, max_hands=max_hands,
                            meta={"strategy": strategy, "level": level})
        player.serve(node)
        log.info("AI seat {seat} playing at table {name!r}", seat=seating.seat,
                 name=seating.name)
        await node.done
        return session
    finally:
        node.stop()
        if own:
            executor.stop()


async def play_ai_seats(reactor: Any, address: str, count: int, strategy: str, level: str,
                        seed: int | None, tokens: Sequence[bytes] = (),
                        passphrase: str | None = None,
                        journal_dir: str | None = None, name: str = "AI",
                        grace: float = GRACE, interface: str = "0.0.0.0") -> list[str]:
    """``count`` AI seats at one table; returns one line per seat on how it ended. Their
    decisions are worked out in one pool of worker threads."""
    executor = ThreadExecutor(reactor, threads=count)
    runs = []
    for k in range(count):
        token = tokens[k] if k < len(tokens) else None
        runs.append(play_ai_seat(reactor, address, strategy, level,
                                 None if seed is None else seed + 100 * k, token,
                                 passphrase, f"{name} {k + 1}" if count > 1 else name,
                                 journal_dir, grace=grace, interface=interface,
                                 executor=executor))
    from twisted.internet.defer import ensureDeferred

    try:
        results = await DeferredList([ensureDeferred(r) for r in runs], consumeErrors=True)
    finally:
        executor.stop()
    lines = []
    for ok, value in results:
        if ok:
            lines.append(f"seat {value.seat}: game over after {len(value.results)} hand(s)"
                         if value.over else f"seat {value.seat}: stopped after "
                         f"{len(value.results)} hand(s)")
        else:
            lines.append(f"an AI seat stopped: {value.getErrorMessage()}")
    return lines


def ai_arguments(address: str, seats: int, strategy: str = "search", level: str = "normal",
                 seed: int | None = None, journal_dir: str | None = None,
                 exit_with_parent: bool = False, name: str | None = None,
                 grace: float | None = None, interface: str | None = None) -> list[str]:
    """The `tractor ai` arguments for ``seats`` AI seats at the lobby ``address``."""
    args = ["ai", "--join", address, "--seats", str(seats), "--strategy", strategy,
            "--level", level]
    if seed is not None:
        args += ["--seed", str(seed)]
    if journal_dir is not None:
        args += ["--journal-dir", journal_dir]
    if exit_with_parent:
        args.append("--exit-with-parent")
    if name is not None:
        args += ["--name", name]
    if grace is not None:
        args += ["--grace", str(grace)]
    if interface is not None:
        args += ["--interface", interface]
    return args


def spawn_ai_process(reactor: Any, address: str, tokens: Sequence[bytes],
                     strategy: str = "search", level: str = "normal",
                     seed: int | None = None, log_file: str | None = None,
                     journal_dir: str | None = None, exit_with_parent: bool = True,
                     name: str = "AI", grace: float | None = None,
                     interface: str | None = None, cwd: str | None = None) -> AiChild:
    """Start ``tractor ai`` in a child process for len(tokens) seats at ``address``.

    ``interface``: where its game node listens; it must be reachable by every other seat
    (the lobby tells them this machine's address for a seat that joined from here)."""
    args = ai_arguments(address, len(tokens), strategy, level, seed, journal_dir,
                        exit_with_parent, name, grace, interface)
    env = dict(os.environ, **{TOKENS_ENV: ",".join(t.hex() for t in tokens)})
    return spawn(reactor, args, name, log_file, cwd or _neutral_dir(log_file, journal_dir),
                 env)


def spawn_ai_resume(reactor: Any, journal: str, log_file: str,
                    name: str = "AI") -> AiChild:
    """Bring back an AI seat of this machine from its journal (`tractor ai --resume`); it
    leaves with the process that starts it."""
    return spawn(reactor, ["ai", "--resume", journal, "--exit-with-parent"], name, log_file,
                 _neutral_dir(log_file, journal))


def _neutral_dir(*paths: str | None) -> str:
    """A working directory for a child that has nothing to do with where the person typed
    the command: the folder of its log or journal (the data folder), else the root."""
    for path in paths:
        if path:
            return str(Path(path).resolve().parent)
    return os.path.abspath(os.sep)


def tokens_from_env() -> list[bytes]:
    raw = os.environ.pop(TOKENS_ENV, "")
    return [bytes.fromhex(t) for t in raw.split(",") if t]


async def run_ai_server(reactor: Any, listen: str, strategy: str, level: str,
                        announce: bool = True, name: str = "AI server",
                        log_file: str | None = None, journal_dir: str | None = None,
                        identity: Any = None) -> Any:
    """Answer fill requests: each AI seat asked for becomes its own `tractor ai` process."""
    children: list[AiChild] = []

    def spawn_seat(lobby: str, token: bytes, table: str) -> None:
        children[:] = [c for c in children if c.alive]
        if len(children) >= MAX_AI_PROCESSES:
            raise RuntimeError(f"this AI server already runs {len(children)} AI players")
        log.info("starting an AI seat for table {table!r} at {lobby}", table=table,
                 lobby=lobby)
        children.append(spawn_ai_process(reactor, lobby, [token], strategy, level,
                                         log_file=log_file, journal_dir=journal_dir,
                                         name=f"AI {len(children) + 1}",
                                         interface="0.0.0.0"))

    server = await serve_ai(reactor, spawn_seat, listen=listen, announce=announce, name=name,
                            identity=identity)
    server.children = children
    return server
