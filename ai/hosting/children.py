"""AI peers in child processes: started so that they never depend on where the person
typed the command, watched so that one that dies is reported at once with its last words.

A child runs ``python -P -m tractor.cli.main ai ...`` from the data folder: ``-P`` keeps
the working directory (and the script's folder) off ``sys.path``, so a clone's own
``tractor/`` folder can never shadow the installed package, and the neutral working
directory keeps relative paths out of it. Its standard error goes through this process
into ``ai.log`` (each line tagged with the child's name; the file private to this user),
and the last line is kept, so "the AI peers did not join" becomes "AI 2 stopped: <why>"
the moment it happens.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from twisted.internet.defer import Deferred, DeferredList
from twisted.internet.error import ProcessDone, ProcessExitedAlready
from twisted.internet.protocol import ProcessProtocol
from twisted.internet.task import LoopingCall
from twisted.python.failure import Failure

from tractor.net.journal.store import open_private_log

#: Seat tokens travel to a spawned AI process in its environment, not its command line
#: (which every local user can read).
TOKENS_ENV = "TRACTOR_AI_TOKENS"
#: The pid a child started with ``--exit-with-parent`` must outlive no longer.
PARENT_ENV = "TRACTOR_PARENT_PID"
MAX_LINE = 300  #: characters of a child's last line kept for the report
#: The line a `tractor ai` child writes on its standard output once its table started.
SEATED_LINE = "tractor ai: seated"
#: The line it writes (at most every `PROGRESS_SECONDS`) while its table moves on: an AI
#: server tells a table that plays from one that stalls by it (`tractor.net.lobby.ai_pool`).
PROGRESS_LINE = "tractor ai: moved"
PROGRESS_SECONDS = 10.0
REAP_SECONDS = 0.25  #: how often exited children are collected (see `_Reaper`)


def python_command(*args: str) -> list[str]:
    """This interpreter running the installed `tractor` command, immune to the working
    directory (``-P``: nothing is prepended to ``sys.path``)."""
    return [sys.executable, "-P", "-m", "tractor.cli.main", *args]


#: The time and source of a Twisted log line: "2026-12-02T18:14:41+0000 [tractor....#info] ".
_LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\dT[\d:]+[+-]\d{4} \[[^\]]*\] ")


class AiChild(ProcessProtocol):
    """One `tractor ai` child process. ``ended`` fires (with this object) when it exits;
    ``last_line`` is the last line it wrote to standard error."""

    def __init__(self, name: str, log_path: str | None) -> None:
        self.name = name
        self.last_line = ""
        self._own_words = False  #: a line of its own (not a log line) came
        self.exit_code: int | None = None
        self.signal: int | None = None
        self.ended: Deferred[AiChild] = Deferred()
        self._log = open_private_log(log_path) if log_path else None
        self._partial = {1: b"", 2: b""}
        self._gone = False
        self.stopping = False  #: this process asked it to stop (no news when it does)
        self.seated = False  #: it said `SEATED_LINE`: its table started
        #: Told (one line) when it dies without being asked to; may be changed any time.
        self.on_death: Callable[[str], None] | None = None
        #: Told (this child) when it says it is seated.
        self.on_seated: Callable[[AiChild], None] | None = None
        #: Told (this child) when it says its table moved on.
        self.on_progress: Callable[[AiChild], None] | None = None

    # --- what the process does -----------------------------------------------------------

    def childDataReceived(self, fd: int, data: bytes) -> None:
        lines = (self._partial.get(fd, b"") + data).split(b"\n")
        self._partial[fd] = lines.pop()[-4096:]  # an unfinished line, bounded
        for line in lines:
            if fd == 1 and line.strip() == SEATED_LINE.encode():
                self.seated = True
                if self.on_seated is not None:
                    self.on_seated(self)
                continue
            if fd == 1 and line.strip() == PROGRESS_LINE.encode():
                if self.on_progress is not None:
                    self.on_progress(self)
                continue
            self._line(line)

    def _line(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace").rstrip()
        if not text:
            return
        said = _LOG_LINE.sub("", text, count=1)
        # What it said itself ("an AI seat stopped: ...") outranks its last log line, and
        # a log line is shown without its time and source (it goes to a person's screen).
        if said != text:
            if not self._own_words:
                self.last_line = said[-MAX_LINE:]
        else:
            self._own_words = True
            self.last_line = text[-MAX_LINE:]
        if self._log is not None:
            self._log.write(f"[{self.name}] {text}\n".encode())
            self._log.flush()

    def processEnded(self, reason: Failure) -> None:
        for fd, rest in self._partial.items():
            if rest:
                self._line(rest)
            self._partial[fd] = b""
        self._gone = True
        value = reason.value
        self.exit_code = 0 if isinstance(value, ProcessDone) else getattr(value, "exitCode", None)
        self.signal = getattr(value, "signal", None)
        if self._log is not None:
            self._log.write(f"[{self.name}] {self.how_it_ended()}\n".encode())
            self._log.close()
            self._log = None
        if self.on_death is not None and not self.stopping:
            self.on_death(f"{self.how_it_ended()} (see ai.log)")
        self.ended.callback(self)

    # --- reading ---------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return not self._gone

    def poll(self) -> int | None:
        """Like `subprocess.Popen.poll`: None while it runs, else its exit status."""
        if self.alive:
            return None
        return self.exit_code if self.exit_code is not None else -(self.signal or 1)

    def how_it_ended(self) -> str:
        """One line: the exit and the last thing it said."""
        if self.signal is not None:
            how = f"was stopped by signal {self.signal}"
        else:
            how = f"exited with status {self.exit_code}"
        return f"{self.name} {how}" + (f": {self.last_line}" if self.last_line else "")

    # --- stopping --------------------------------------------------------------------------

    def terminate(self) -> None:
        self._signal("TERM")

    def kill(self) -> None:
        self._signal("KILL")

    def _signal(self, name: str) -> None:
        self.stopping = True
        if self.alive and self.transport is not None:
            try:
                self.transport.signalProcess(name)
            except ProcessExitedAlready:
                pass


def spawn(reactor: Any, args: Sequence[str], name: str, log_path: str | None,
          cwd: str | os.PathLike[str], env: dict[str, str] | None = None) -> AiChild:
    """Start ``tractor <args>`` as a child (see `python_command`) in ``cwd``."""
    child = AiChild(name, log_path)
    environment = dict(os.environ if env is None else env)
    environment[PARENT_ENV] = str(os.getpid())
    transport = reactor.spawnProcess(child, sys.executable, python_command(*args),
                                     env=environment, path=str(Path(cwd)),
                                     childFDs={0: "w", 1: "r", 2: "r"})
    transport.closeStdin()
    _Reaper.watch(reactor)
    return child


class _Reaper:
    """Collects exited children while any is alive. Twisted learns of a child's exit from
    SIGCHLD through the signal wake-up fd, but prompt_toolkit's screen registers asyncio
    signal handlers, which take that fd over: a child that exits after its pipes closed
    then stays a zombie and never reports its end (and `stop_all` would wait for ever)."""

    _loops: dict[int, Any] = {}  #: reactor id -> its running LoopingCall

    @classmethod
    def watch(cls, reactor: Any) -> None:
        # Not at the top: Twisted's POSIX process module refuses to load on Windows.
        from twisted.internet import process

        key = id(reactor)
        if key in cls._loops:
            return

        def reap() -> None:
            process.reapAllProcesses()
            if not process.reapProcessHandlers:  # nothing left to collect
                cls._loops.pop(key).stop()

        loop = LoopingCall(reap)
        loop.clock = reactor
        cls._loops[key] = loop
        loop.start(REAP_SECONDS, now=False)


async def stop_all(reactor: Any, children: Iterable[AiChild], patience: float = 5.0) -> None:
    """Ask every live child to stop, and kill the ones still running after ``patience``."""
    live = [c for c in children if c.alive]
    for child in live:
        child.terminate()
    if not live:
        return
    def kill_live() -> None:
        for c in live:
            c.kill()

    timer = reactor.callLater(patience, kill_live)
    try:
        await DeferredList([c.ended for c in live])
    finally:
        if timer.active():
            timer.cancel()


def terminate_on_shutdown(reactor: Any, children: list[AiChild]) -> None:
    """When this process is told to stop (SIGTERM, SIGINT: the reactor shuts down without
    running the command's clean-up), its AI children are told to stop too."""
    def terminate_live() -> None:
        for c in children:
            if c.alive:
                c.terminate()

    reactor.addSystemEventTrigger("before", "shutdown", terminate_live)
