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
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet.defer import DeferredList, ensureDeferred
from twisted.internet.task import LoopingCall
from twisted.logger import Logger
from twisted.python.failure import Failure

from tractor.ai.hosting.children import PROGRESS_SECONDS, TOKENS_ENV, AiChild, spawn
from tractor.ai.hosting.executors import Executor, ThreadExecutor
from tractor.ai.hosting.peer import StrategyPlayer
from tractor.ai.hosting.takeback_wait import TAKEBACK_GRACE
from tractor.ai.players.strategies import make_strategy
from tractor.net.journal.store import Journal, private_folder
from tractor.net.lobby.addresses import parse_endpoint
from tractor.net.lobby.ai_pool import CAPACITY, PER_SOURCE, RELEASE_AFTER, AiPool
from tractor.net.lobby.ai_server import serve_ai
from tractor.net.lobby.errors import AiServerBusy
from tractor.net.lobby.guest_protocol import join_table
from tractor.net.lobby.seating import Participant, Seating
from tractor.net.mesh.leaving import closed
from tractor.net.mesh.loopback import raw_public
from tractor.net.mesh.wire import GRACE
from tractor.net.table.seat import game_id, listen_node, take_seat
from tractor.net.table.session import GameSession

log = Logger()

MAX_AI_PROCESSES = CAPACITY  #: AI players one server runs at once (about 50 MB each)
MAX_PER_REQUESTER = PER_SOURCE  #: for one requesting address (a full table, one person)
SEAT_DEADLINE = RELEASE_AFTER  #: seconds a spawned AI player may wait for its table to start
CHECK_SECONDS = 5.0
KILL_AFTER = 5.0  #: seconds a player told to stop has before it is killed
JOURNAL_DAYS = 14.0  #: an AI journal untouched this long is of a game that never resumes
FINISHED_DAYS = 1.0  #: a finished game's journal is kept this long (to look into it)


async def play_ai_seat(reactor: Any, address: str, strategy: str = "search",
                       level: str = "normal", seed: int | None = None,
                       token: bytes | None = None, passphrase: str | None = None,
                       name: str = "AI", journal_dir: str | None = None,
                       max_hands: int | None = None, grace: float = GRACE,
                       interface: str = "0.0.0.0",
                       executor: Executor | None = None,
                       on_seated: Callable[[Seating], None] | None = None,
                       patient: bool = False,
                       on_progress: Callable[[], None] | None = None,
                       takeback_wait: float = TAKEBACK_GRACE) -> GameSession:
    """Join the lobby at ``address`` as one AI seat and play the game to its end.

    The game node listens on ``interface``: every interface by default, since the lobby
    gives the other seats this machine's LAN address when it joined from the host's own
    machine; a practice game on loopback passes 127.0.0.1. Decisions are worked out in
    ``executor`` (by default a worker thread of this seat's own); ``on_seated`` is told
    the seating when the table starts. ``patient``: never name a seat for taking its time
    over a decision (a practice table, where the only person may take a break).
    ``on_progress`` is told, at most every `PROGRESS_SECONDS`, that the table moved on."""
    own: ThreadExecutor | None = None  # an executor of this seat's own, stopped here
    if executor is None:
        executor = own = ThreadExecutor(reactor)
    watch: LoopingCall | None = None
    key = Ed25519PrivateKey.generate()
    try:
        node, port = await listen_node(reactor, interface, grace=grace)
    except BaseException:  # whatever ends the start (a cancel too): stop our thread, go on up
        if own is not None:
            own.stop()
        raise
    try:
        guest = await join_table(reactor, address,
                                 Participant(name, raw_public(key), port, kind="ai",
                                             level=level),
                                 passphrase=passphrase, token=token)
        guest.ready(True)
        seating = await guest.started
        if on_seated is not None:
            on_seated(seating)
        seed = int.from_bytes(os.urandom(4), "big") if seed is None else seed
        people = [s for s, kind in enumerate(seating.kinds) if kind == "human"]
        player = StrategyPlayer(make_strategy(strategy, level, seed + seating.seat),
                                seating.rules, seed + seating.seat, executor, people,
                                takeback_wait)
        journal = None
        if journal_dir is not None:
            private_folder(journal_dir)
            journal = Journal(str(Path(journal_dir) / f"ai-{game_id(seating)}.sqlite"))
        session = take_seat(node, seating, key, player, journal, max_hands=max_hands,
                            meta={"strategy": strategy, "level": level,
                                  "patient": patient, "takeback_wait": takeback_wait,
                                  "people": people})
        if patient:
            be_patient(node)
        player.serve(node)
        if on_progress is not None:
            watch = watch_progress(reactor, node, on_progress)
        log.info("AI seat {seat} playing at table {name!r}", seat=seating.seat,
                 name=seating.name)
        await node.done
        return session
    finally:
        if watch is not None and watch.running:
            watch.stop()
        node.stop()
        # What this seat wrote last (its vote that completed a verdict, the verdict's
        # evidence) leaves before the process may exit (`net.mesh.leaving`).
        await closed(reactor, lambda: node.connections)
        if own is not None:
            own.stop()


def watch_progress(clock: Any, node: Any, tell: Callable[[], None]) -> LoopingCall:
    """Call ``tell`` (at most every `PROGRESS_SECONDS`) when ``node``'s table moved on."""
    last = [node.progress_marker()]

    def look() -> None:
        marker = node.progress_marker()
        if marker != last[0]:
            last[0] = marker
            tell()

    loop = LoopingCall(look)
    loop.clock = clock
    loop.start(PROGRESS_SECONDS, now=False)
    return loop


def be_patient(node: Any) -> None:
    """This peer never names a seat for the time it takes over a decision (it still waits
    for keys and links as every peer does): the AI seats of a practice table, and its
    person's own seat, which is then never warned of a deadline."""
    node.judging.be_patient()


async def play_ai_seats(reactor: Any, address: str, count: int, strategy: str, level: str,
                        seed: int | None, tokens: Sequence[bytes] = (),
                        passphrase: str | None = None,
                        journal_dir: str | None = None, name: str = "AI",
                        grace: float = GRACE, interface: str = "0.0.0.0",
                        on_seated: Callable[[Seating], None] | None = None,
                        patient: bool = False,
                        on_progress: Callable[[], None] | None = None,
                        takeback_wait: float = TAKEBACK_GRACE) -> list[str]:
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
                                 executor=executor, on_seated=on_seated, patient=patient,
                                 on_progress=on_progress, takeback_wait=takeback_wait))
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
            # DeferredList's types name every value a result; with ok False it is the
            # Failure that the seat's run ended with (consumeErrors keeps it here).
            failure = cast(Failure, value)
            lines.append(f"an AI seat stopped: {failure.getErrorMessage()}")
    return lines


def ai_arguments(address: str, seats: int, strategy: str = "search", level: str = "normal",
                 seed: int | None = None, journal_dir: str | None = None,
                 exit_with_parent: bool = False, name: str | None = None,
                 grace: float | None = None, interface: str | None = None,
                 patient: bool = False, takeback_wait: float | None = None) -> list[str]:
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
    if patient:
        args.append("--patient")
    if takeback_wait is not None:
        args += ["--takeback-wait", str(takeback_wait)]
    return args


def spawn_ai_process(reactor: Any, address: str, tokens: Sequence[bytes],
                     strategy: str = "search", level: str = "normal",
                     seed: int | None = None, log_file: str | None = None,
                     journal_dir: str | None = None, exit_with_parent: bool = True,
                     name: str = "AI", grace: float | None = None,
                     interface: str | None = None, cwd: str | None = None,
                     patient: bool = False, takeback_wait: float | None = None) -> AiChild:
    """Start ``tractor ai`` in a child process for len(tokens) seats at ``address``.

    ``interface``: where its game node listens; it must be reachable by every other seat
    (the lobby tells them this machine's address for a seat that joined from here)."""
    args = ai_arguments(address, len(tokens), strategy, level, seed, journal_dir,
                        exit_with_parent, name, grace, interface, patient, takeback_wait)
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


class AiPlayers:
    """The AI players an AI server runs, shared so that no host on the LAN can take them
    all or keep them for ever (`tractor.net.lobby.ai_pool.AiPool`, which has the figures):

    - at most `MAX_AI_PROCESSES` at once, and `MAX_PER_REQUESTER` for one requesting
      address (a table of 12 with one person); a host that holds some never takes the
      last few places;
    - a host that holds none and finds every place taken gets the places of tables that
      have not moved on for two minutes (their players are stopped);
    - a player whose table has not moved on for `SEAT_DEADLINE` (its lobby never
      started, or it stalled) is stopped and its place freed;
    - journals of games over (or untouched for `JOURNAL_DAYS`) are deleted.
    """

    def __init__(self, reactor: Any, spawn_one: Callable[[str, bytes, str, str], AiChild],
                 journal_dir: str | None = None, pool: AiPool | None = None) -> None:
        self.reactor = reactor
        self.spawn_one = spawn_one
        self.journal_dir = journal_dir
        self.running: dict[int, AiChild] = {}  #: by the key each holds in the pool
        self.pool = pool if pool is not None else AiPool()
        self._started = 0
        self._loop = LoopingCall(self.check)
        self._loop.clock = reactor
        self._loop.start(CHECK_SECONDS, now=False)
        prune_journals(journal_dir, time.time())

    @property
    def children(self) -> list[AiChild]:
        return list(self.running.values())

    def admit(self, lobby: str, count: int) -> None:
        """Grant one request's ``count`` players for the table at ``lobby`` before any is
        started, or raise `AiServerBusy` (the reason goes to the host)."""
        for key in self.pool.admit(lobby, count, self.reactor.seconds()):
            self._stop(key, "stopped: its table had not moved on for "
                       f"{self.pool.reclaim_after:.0f} s, and a host with no players asked")

    def spawn(self, lobby: str, token: bytes, table: str) -> None:
        """One AI player for ``table``, dialing ``lobby`` (the requester's own address)."""
        requester, _ = parse_endpoint(lobby)
        key = self._started + 1
        try:
            taken = self.pool.add(key, lobby, self.reactor.seconds())
        except AiServerBusy as exc:
            raise RuntimeError(f"no AI player for {requester}: {exc.why}") from exc
        for old in taken:
            self._stop(old, "stopped to make room for another host's request")
        self._started = key
        log.info("starting AI {n} for table {table!r} at {lobby}", n=key, table=table,
                 lobby=lobby)
        try:
            child = self.spawn_one(lobby, token, table, f"AI {key}")
        except BaseException:  # whatever stops the spawn: free the place, then go on up
            self.pool.release(key)
            raise
        child.on_seated = lambda c: self._seated(key, c)
        child.on_progress = lambda c: self.pool.moved(key, self.reactor.seconds())
        child.ended.addCallback(lambda c: self._ended(key))
        self.running[key] = child

    def _seated(self, key: int, child: AiChild) -> None:
        self.pool.moved(key, self.reactor.seconds())
        log.info("{name} is seated: its table started", name=child.name)

    def _ended(self, key: int) -> None:
        self.pool.release(key)
        self.running.pop(key, None)
        prune_journals(self.journal_dir, time.time())

    def _stop(self, key: Any, why: str) -> None:
        child = self.running.get(key)
        if child is not None and child.alive:
            log.info("{name} {why}", name=child.name, why=why)
            child.terminate()
            self.reactor.callLater(KILL_AFTER, child.kill)
        self.pool.release(key)

    def check(self) -> None:
        """Stop the players whose table has not moved on in time."""
        for key in self.pool.expired(self.reactor.seconds()):
            self._stop(key, f"was stopped: its table had not moved on for {SEAT_DEADLINE:.0f} "
                       "s (its lobby never started, or it stalled)")

    def close(self) -> None:
        if self._loop.running:
            self._loop.stop()


def prune_journals(journal_dir: str | None, now: float) -> list[str]:
    """Delete the AI journals of games over for `FINISHED_DAYS`, or that nobody touched for
    `JOURNAL_DAYS`: a game that never resumes would otherwise keep its file for ever.
    Returns the names deleted."""
    if not journal_dir or not os.path.isdir(journal_dir):
        return []
    deleted = []
    for path in sorted(Path(journal_dir).glob("ai-*.sqlite")):
        try:
            age = now - path.stat().st_mtime
            stale = age > JOURNAL_DAYS * 86400
            if not stale and age > FINISHED_DAYS * 86400:
                journal = Journal(str(path))
                try:
                    games = journal.games()
                finally:
                    journal.close()
                stale = bool(games) and all(g.finished for g in games)
            if stale:
                path.unlink()
                for extra in ("-journal", "-wal", "-shm"):
                    Path(str(path) + extra).unlink(missing_ok=True)
                deleted.append(path.name)
        except (OSError, sqlite3.Error) as exc:
            log.warn("cannot prune {path}: {why}", path=str(path), why=str(exc))
    return deleted


async def run_ai_server(reactor: Any, listen: str, strategy: str, level: str,
                        announce: bool = True, name: str = "AI server",
                        log_file: str | None = None, journal_dir: str | None = None,
                        identity: Any = None, passphrase: str | None = None,
                        players: AiPlayers | None = None) -> Any:
    """Answer fill requests: each AI seat asked for becomes its own `tractor ai` process
    (bounded by `AiPlayers`; ``players``: others to serve, as tests do)."""

    def spawn_one(lobby: str, token: bytes, table: str, child_name: str) -> AiChild:
        return spawn_ai_process(reactor, lobby, [token], strategy, level, log_file=log_file,
                                journal_dir=journal_dir, name=child_name,
                                interface="0.0.0.0")

    if players is None:
        players = AiPlayers(reactor, spawn_one, journal_dir)
    server = await serve_ai(reactor, players.spawn, listen=listen, announce=announce,
                            name=name, identity=identity, passphrase=passphrase,
                            admit=players.admit)
    server.players = players
    return server
