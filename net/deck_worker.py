"""`DeckWorker`: one background thread, at a low CPU priority, for the decks' heavy work.

The next hand's deck is shuffled, locked and checked while this hand is played
(`GameSession.upcoming`). Its proofs cost a few hundred milliseconds of scalar
multiplications a hand; on the reactor's thread they would freeze the screen and the
links for that long at every step. The deck engine hands that work to a `Runner`
(`net.deck.engine.Runner`); this is the one a `PeerNode` gives it: jobs run one after
another in a thread whose scheduling priority is the lowest (nice 19 on Linux, where a
thread has its own), so a person's screen and an AI's search come first, and the answer
comes back on the reactor's thread.

A thread's priority does not order the interpreter lock, and the proofs' arithmetic is
partly Python: run beside a search, they slowed it by some 12 % and got little done
themselves (``bench/shuffle_ahead.py``). So the worker also gives way to `FOREGROUND` work:
while an AI's search runs (`tractor.ai.executors` marks it), no job starts, for up to
`MAX_DEFER` seconds a job (a process whose searches never pause still gets its decks
ready). A job takes 45-90 ms at 4 seats and 2 decks, so a search that begins during one
shares the processor that long at most.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: The nice value of the worker thread: the lowest priority short of SCHED_IDLE, which a
#: busy machine could starve for ever (the next hand would never be ready).
NICE = 19


#: Seconds a job waits at most for the foreground work to pause.
MAX_DEFER = 2.0


class Foreground:
    """Work that comes before the decks' (an AI's search), counted while it runs."""

    def __init__(self) -> None:
        self._running = 0
        self._changed = threading.Condition()

    @contextmanager
    def running(self) -> Iterator[None]:
        with self._changed:
            self._running += 1
        try:
            yield
        finally:
            with self._changed:
                self._running -= 1
                self._changed.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no foreground work runs (False: still some after ``timeout``)."""
        with self._changed:
            return self._changed.wait_for(lambda: self._running == 0, timeout)


#: The process's foreground work: what every `DeckWorker` gives way to.
FOREGROUND = Foreground()


def lower_this_thread() -> bool:
    """Give the calling thread the lowest priority; False where the system does not allow
    one thread its own (its work then runs at the process's priority)."""
    try:
        native = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, native, NICE)
    except (AttributeError, OSError):
        return False
    return True


class DeckWorker:
    """Runs jobs in order in one daemon thread; ``done(result)`` is called on the reactor's
    thread. Stopped with the reactor (a job under way is left: its deck is thrown away)."""

    def __init__(self, reactor: Any) -> None:
        self._reactor = reactor
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Callable[[Any], None]] | None]
        self._jobs = queue.SimpleQueue()
        self.lowered = False  #: whether the thread got its low priority
        self.ran = 0  #: jobs finished
        self.deferred_past = 0  #: jobs started while foreground work went on past MAX_DEFER
        self._thread = threading.Thread(target=self._loop, name="tractor-deck", daemon=True)
        self._thread.start()
        self._stopped = False
        reactor.addSystemEventTrigger("during", "shutdown", self.stop)

    def run(self, job: Callable[[], Any], done: Callable[[Any], None]) -> None:
        """A `Runner`: ``job()`` in the thread, then ``done`` with its result."""
        if not self._stopped:
            self._jobs.put((job, done))

    def stop(self) -> None:
        self._stopped = True
        self._jobs.put(None)

    def _loop(self) -> None:
        self.lowered = lower_this_thread()
        while (item := self._jobs.get()) is not None:
            job, done = item
            if not FOREGROUND.wait_idle(MAX_DEFER):
                self.deferred_past += 1
            try:
                result = job()  # a deck's job returns its exception rather than raise it
            except Exception as exc:  # all the same: the thread serves the next hands
                result = exc
            self.ran += 1
            if not self._stopped:
                self._reactor.callFromThread(done, result)
