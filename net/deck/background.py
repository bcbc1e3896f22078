"""`Background`: the deck's heavy work (its own shuffle and lock, and the proofs of the
other seats' ones) handed to a `Runner`, so it does not hold up the protocol's thread.

The next hand's deck is shuffled and locked while this hand is played: its work runs in a
worker thread (`worker.DeckWorker`) and the engine asks again for the result once the
runner says it is done (`Deck.poll`). The engine never sees a thread: a job is a function
of values that do not change, and its result (or the exception it met) comes back here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: Where a deck engine runs its heavy work (shuffles, proofs and their checks) when it is
#: not to hold up the protocol's thread: ``runner(job, done)`` calls ``job()`` somewhere (a
#: worker thread) and later ``done(result)`` on the protocol's thread. ``job`` never raises:
#: it returns the exception it met. The engine never sees a thread (`Deck.runner`).
Runner = Callable[[Callable[[], Any], Callable[[Any], None]], None]


@dataclass
class Job:
    """One job given to the runner: its result once done."""

    done: bool = False
    value: Any = None

    def finish(self, value: Any) -> None:
        self.done, self.value = True, value


def returning_errors(job: Callable[[], Any]) -> Callable[[], Any]:
    """``job`` that returns the exception it meets instead of raising it in the runner."""
    def run() -> Any:
        try:
            return job()
        except Exception as exc:
            # An edge between threads: not handled here but carried, whatever it is, to be
            # raised again with its traceback on the protocol's thread (`Background.run`),
            # where a refusal halts the table on evidence and a bug halts it as a failure.
            return exc
    return run


@dataclass
class Background:
    """The runner (None: every job runs at once, here), the jobs under way by key, and
    the checked shuffles and locks waiting to be applied."""

    runner: Runner | None = None
    jobs: dict[tuple[Any, ...], Job] = field(default_factory=dict)
    #: Checked shuffles and locks, by (seat, message number), for the engine to apply.
    results: dict[tuple[int, int], Any] = field(default_factory=dict)

    def run(self, key: tuple[Any, ...], job: Callable[[], Any],
            here: bool = False) -> tuple[bool, Any]:
        """``job``'s result as (True, result), or (False, None) while the runner works on
        it (it is started on the first call; a later call with the same key takes the
        result). Without a runner, or ``here`` (rebuilding from a journal), it runs at
        once. A job's exception is raised here, on the protocol's thread."""
        if self.runner is None or here:
            return True, job()
        work = self.jobs.get(key)
        if work is None:
            work = self.jobs[key] = Job()
            self.runner(returning_errors(job), work.finish)
        if not work.done:
            return False, None
        del self.jobs[key]
        if isinstance(work.value, BaseException):
            raise work.value
        return True, work.value

    @property
    def working(self) -> bool:
        """Whether the runner has a job under way."""
        return any(not w.done for w in self.jobs.values())
