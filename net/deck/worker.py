"""`DeckWorker`: one background thread for the decks' heavy work, giving way to searches.

The next hand's deck is shuffled, locked and checked while this hand is played
(`GameSession.upcoming`). Its proofs cost a few hundred milliseconds of scalar
multiplications a hand; on the reactor's thread they would freeze the screen and the
links for that long at every step. The deck engine hands that work to a `Runner`
(`net.deck.background.Runner`); this is the one a `PeerNode` gives it: jobs run one after
another in a thread, and the answer comes back on the reactor's thread.

The worker gives way to `FOREGROUND` work: while an AI's search runs
(`tractor.ai.hosting.executors` marks it), no job starts, for up to `MAX_DEFER` seconds a job (a
process whose searches never pause still gets its decks ready). A job takes 45-90 ms at 4
seats and 2 decks, so a search that begins during one shares the processor that long at
most (``bench/shuffle_ahead.py`` measures the search beside the worker). The thread is not
given a lower OS priority: preempted while it holds the interpreter lock, it would hold up
the reactor and the search behind it.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

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


class DeckWorker:
    """Runs jobs in order in one daemon thread; ``done(result)`` is called on the reactor's
    thread. Stopped with the reactor (a job under way is left: its deck is thrown away)."""

    def __init__(self, reactor: Any) -> None:
        self._reactor = reactor
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Callable[[Any], None]] | None]
        self._jobs = queue.SimpleQueue()
        self.ran = 0  #: jobs finished
        self.deferred_past = 0  #: jobs started while foreground work went on past MAX_DEFER
        self._thread = threading.Thread(target=self._loop, name="tractor-deck", daemon=True)
        self._thread.start()
        self._stopped = False
        self._trigger: Any = reactor.addSystemEventTrigger("during", "shutdown",
                                                           self._shutdown)

    def run(self, job: Callable[[], Any], done: Callable[[Any], None]) -> None:
        """A `Runner`: ``job()`` in the thread, then ``done`` with its result."""
        if not self._stopped:
            self._jobs.put((job, done))

    def stop(self) -> None:
        """End the thread once the job under way is done; later jobs are dropped."""
        if self._stopped:
            return
        self._stopped = True
        self._jobs.put(None)
        if self._trigger is not None:
            self._reactor.removeSystemEventTrigger(self._trigger)
            self._trigger = None

    def _shutdown(self) -> None:
        self._trigger = None  # firing now: nothing to remove
        self.stop()

    def _loop(self) -> None:
        # Not niced: a thread preempted for its low priority while it holds the interpreter
        # lock would stall the reactor and the search behind it (an outside review measured
        # 276 ms under one competing process). The gate keeps the jobs out of the searches.
        while (item := self._jobs.get()) is not None:
            job, done = item
            if not FOREGROUND.wait_idle(MAX_DEFER):
                self.deferred_past += 1
            try:
                result = job()  # a deck's job returns its exception rather than raise it
            except Exception as exc:
                # A thread's loop, an edge: whatever a job raises (a bug too), the thread
                # serves the next hands, and the exception goes to ``done`` as the result,
                # raised again on the reactor's thread (`Background.run`) with its traceback.
                result = exc
            self.ran += 1
            if not self._stopped:
                self._reactor.callFromThread(done, result)
