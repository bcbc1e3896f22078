"""Where an AI peer works out its decisions: off the reactor's thread.

A search spends up to 1.6 s on one play. Worked out on the reactor (inside the table's
``receive``) it stopped everything else for that long: the links and their heartbeats,
the key deadlines, the other AI seats of the process, a screen. `ThreadExecutor` runs
the work in a thread of a pool of its own and fires the answer's Deferred back on the
reactor's thread, where `tractor.ai.hosting.peer.StrategyPlayer` hands it to the table as a
person's answer is handed (`GameSession.decide`).

The search is pure Python and shares the interpreter lock with the reactor; the lock
changes hands every few milliseconds (`sys.getswitchinterval`), which keeps the reactor
responsive (``bench/ai_stall.py`` measures it). The protocol code never sees a thread:
an executor is injected, and tests step the work themselves (`tests/helpers.StepExecutor`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from twisted.internet.defer import CancelledError, Deferred, fail
from twisted.internet.threads import deferToThreadPool
from twisted.python.failure import Failure
from twisted.python.threadpool import ThreadPool

from tractor.net.deck.worker import FOREGROUND

T = TypeVar("T")


def _in_foreground(work: Callable[[], T]) -> T:
    """The work, marked as what the decks' worker gives way to (`net.deck.worker`)."""
    with FOREGROUND.running():
        return work()


class Executor(Protocol):
    """Runs ``work()`` somewhere; its Deferred fires on the reactor's thread with the result
    (or the failure), or fails with `CancelledError` once the executor stopped."""

    #: Set when the work under way should end at once (the process is stopping); a long
    #: search reads it between its sampled worlds.
    interrupt: threading.Event

    def run(self, work: Callable[[], T]) -> Deferred[T]:
        ...


class ThreadExecutor:
    """Work in a pool of at most ``threads`` threads, stopped when the reactor stops.

    Stopping interrupts the work under way (`interrupt`), drops its answer (the Deferred
    fails with `CancelledError`) and joins the threads, which then takes one step of a
    search, not the rest of it: a process that is told to leave leaves at once."""

    def __init__(self, reactor: Any, threads: int = 1, name: str = "tractor-ai") -> None:
        self.reactor = reactor
        self.interrupt = threading.Event()
        self._pool = ThreadPool(minthreads=0, maxthreads=max(1, threads), name=name)
        self._pool.start()
        self._pending: set[Deferred[Any]] = set()
        self._trigger = reactor.addSystemEventTrigger("during", "shutdown", self._shutdown)

    def run(self, work: Callable[[], T]) -> Deferred[T]:
        if self.interrupt.is_set():
            return fail(CancelledError("the AI's worker has stopped"))
        outer: Deferred[T] = Deferred()
        self._pending.add(outer)

        def settle(result: Any) -> None:
            self._pending.discard(outer)
            if outer.called:  # cancelled meanwhile: the answer is wanted no more
                return
            if isinstance(result, Failure):
                outer.errback(result)
            else:
                outer.callback(result)

        deferToThreadPool(self.reactor, self._pool, _in_foreground, work).addBoth(settle)
        return outer

    def stop(self) -> None:
        """Interrupt the work under way, drop its answers and wait for the threads."""
        if self._trigger is not None:
            self.reactor.removeSystemEventTrigger(self._trigger)
        self._shutdown()

    def _shutdown(self) -> None:
        self._trigger = None
        if self.interrupt.is_set():
            return
        self.interrupt.set()
        pending, self._pending = self._pending, set()
        for d in pending:
            d.cancel()
        self._pool.stop()
