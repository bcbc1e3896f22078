"""The headless commands: `tractor ai` (AI peers that join a table, or one resumed from
its journal) and `tractor ai-server` (AI peers for the empty seats of LAN tables)."""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet.defer import Deferred
from twisted.internet.task import LoopingCall

from tractor.ai.hosting.children import PARENT_ENV, PROGRESS_LINE, SEATED_LINE, stop_all
from tractor.ai.hosting.executors import ThreadExecutor
from tractor.ai.hosting.peer import StrategyPlayer
from tractor.ai.hosting.runner import (
    be_patient,
    play_ai_seats,
    run_ai_server,
    tokens_from_env,
)
from tractor.ai.hosting.takeback_wait import MAX_TAKEBACK_WAIT, TAKEBACK_GRACE
from tractor.ai.players.strategies import make_strategy
from tractor.net.journal.store import Journal
from tractor.net.mesh.leaving import closed
from tractor.net.table.seat import resume_seat

from .options import AddressError, data_dir, lobby_endpoint
from .passphrase import AI_JOINING, AI_SERVING, ask_passphrase
from .prompts import GaveUp, say


async def ai(reactor: Any, args: argparse.Namespace) -> int:
    if args.exit_with_parent:
        _watch_parent(reactor)
    if args.resume:
        return await _resume_ai(reactor, args.resume)
    if not args.join:
        say("tractor ai: give --join ADDRESS (or --resume JOURNAL)")
        return 2
    try:
        address = lobby_endpoint(args.join)
        passphrase = await ask_passphrase(args.passphrase, False, AI_JOINING)
    except (AddressError, GaveUp) as exc:
        say(f"tractor ai: {exc}")
        return 2
    lines = await play_ai_seats(reactor, address, args.seats, args.strategy, args.level,
                                args.seed, tokens_from_env(), passphrase, args.journal_dir,
                                args.name, args.grace, args.interface,
                                on_seated=lambda seating: say(SEATED_LINE),
                                patient=args.patient, takeback_wait=args.takeback_wait,
                                # Only a parent (an AI server, a host) reads these lines.
                                on_progress=((lambda: say(PROGRESS_LINE))
                                             if args.exit_with_parent else None))
    for line in lines:
        say(line)
    return 0 if all("stopped" not in line for line in lines) else 1


def _watch_parent(reactor: Any) -> None:
    """Leave with the process that started us (the AI peers of a person's table): at once
    on Linux (the kernel sends SIGTERM when the parent dies, which stops the reactor), and
    elsewhere within a second of noticing we were orphaned."""
    expected = os.environ.pop(PARENT_ENV, "")
    parent = int(expected) if expected.isdigit() else os.getppid()
    _die_with_parent()
    if os.getppid() != parent:  # it died before we could ask
        reactor.callWhenRunning(reactor.stop)
        return

    def check() -> None:
        if os.getppid() != parent:
            reactor.stop()

    LoopingCall(check).start(1.0, now=False)


def _die_with_parent() -> None:
    """Linux's prctl(PR_SET_PDEATHSIG, SIGTERM); nothing elsewhere."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


async def _resume_ai(reactor: Any, path: str) -> int:
    journal = Journal(path)
    games = journal.games()
    if not games:
        say(f"tractor ai: no game in {path}")
        return 1
    game = games[-1].id
    meta = journal.meta(game)
    rules = games[-1].rules
    executor = ThreadExecutor(reactor)
    # The seats people play, kept at the start (none in a journal from before take-backs).
    people = [s for s in meta.get("people", []) if type(s) is int]
    player = StrategyPlayer(make_strategy(meta.get("strategy", "heuristic"),
                                          meta.get("level", "normal")), rules,
                            executor=executor, people=people,
                            takeback_wait=_kept_wait(meta.get("takeback_wait")))
    resumed = False
    try:
        node, _ = await resume_seat(reactor, journal, game, player)
        resumed = True
    finally:
        if not resumed:  # failed or cancelled: its worker thread goes too
            executor.stop()
    if meta.get("patient"):
        be_patient(node)
    player.serve(node)  # the decision the crash interrupted, if any, is worked out now
    try:
        await node.done
        return 0
    except Exception as exc:
        # A command's top level: the game ended on whatever halted it (a seat gone, a
        # verdict, a stall); one line says what, the exit status says it failed.
        say(f"tractor ai: {exc}")
        return 1
    finally:
        node.stop()
        await closed(reactor, lambda: node.connections)  # its last ballots leave first
        executor.stop()


def server_identity(path: Path) -> Ed25519PrivateKey:
    """This machine's AI server key (hosts pin it): made on first use, kept private."""
    if path.exists():
        raw = path.read_bytes()
        if len(raw) != 32:
            raise OSError(f"{path} is not an AI server key (32 bytes): move it away, and a "
                          "new key is made (hosts that used this server then see a warning)")
        return Ed25519PrivateKey.from_private_bytes(raw)
    key = Ed25519PrivateKey.generate()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(key.private_bytes_raw())
    return key


async def ai_server(reactor: Any, args: argparse.Namespace) -> int:
    identity = server_identity(data_dir() / "ai-server.key")
    try:
        passphrase = await ask_passphrase(args.passphrase, False, AI_SERVING)
    except GaveUp as exc:
        say(f"tractor ai-server: {exc}")
        return 2
    server = await run_ai_server(reactor, args.listen, args.strategy, args.level,
                                 announce=not args.no_announce,
                                 log_file=str(data_dir() / "ai.log"),
                                 journal_dir=str(data_dir() / "ai"), identity=identity,
                                 passphrase=passphrase)
    say(f"AI server ready at {server.address}, key {server.instance}: hosts on the LAN can "
        "fill empty seats with `fill lan` in their lobby, after checking that key"
        + (" (they need its passphrase: `tractor host --ai-server-passphrase -`)"
           if passphrase else "") + " (Ctrl-C to stop)")
    forever: Deferred[None] = Deferred()  # until Ctrl-C (or SIGTERM) cancels it
    try:
        await forever
    finally:
        children = server.players.children
        say(f"AI server stopping: {sum(c.alive for c in children)} AI player(s) "
            "leave their tables")
        server.close()
        server.players.close()
        await stop_all(reactor, children)
    return 0


def _kept_wait(value: object) -> float:
    """The take-back wait a journal kept (`--takeback-wait`); the default for anything else."""
    if isinstance(value, int | float) and not isinstance(value, bool) \
            and 0 <= value <= MAX_TAKEBACK_WAIT:
        return float(value)
    return TAKEBACK_GRACE
