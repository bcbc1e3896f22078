"""Does shuffling the next deck while a hand is played slow the AI's search?

Plays the same hands three times with the search player at every seat, each decision a
fixed number of sampled worlds (the same work each time, seeded): alone; "beside" a
`DeckWorker` (`tractor.net.deck.worker`: its thread in the same process) kept
busy with a table's real deck jobs, shuffles and locks made and checked, without a pause;
and "gated": the same, with the decisions marked as foreground work as the AI's executor
marks them, so the worker starts no job while one runs. Without a pause is the worst
case: a peer's real work for the next hand is 8 jobs of 45-90 ms (4 seats, 2 decks),
spread over the minutes of a hand. Also reported: how late a 10 ms timer of another
thread runs meanwhile (what a screen or the reactor would feel), and how many deck jobs
the worker got through.

    python bench/shuffle_ahead.py [--hands 1] [--worlds 20] [--rounds 3] [--seats 4]
                                  [--decks 2]

Each figure is the median of ``--rounds`` rounds, the modes interleaved in each (the
search's own time varies by some 8 % from run to run on a 2-core machine).

The last line is one JSON object: ``{"hands", "worlds", "seats", "decks",
"search_alone_s", "search_beside_deck_work_s", "search_gated_deck_work_s",
"slowdown_beside", "slowdown_gated", "deck_jobs_per_table", "deck_jobs_beside",
"deck_jobs_gated", "timer_late_p99_ms": {"alone", "beside", "gated"}, "rounds"}``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ai_eval import Clock, deal_setup, new_hand, play_hand  # noqa: E402

from tractor.ai.players.search import SearchStrategy  # noqa: E402
from tractor.net.deck.local import LocalDeal  # noqa: E402
from tractor.net.deck.worker import FOREGROUND, DeckWorker  # noqa: E402
from tractor.rules import Rules  # noqa: E402


class Foreground:
    """A strategy whose decisions run as the AI's executor runs them: marked as foreground
    work (``marked``), which the deck worker gives way to; or not marked."""

    def __init__(self, inner: SearchStrategy, marked: bool) -> None:
        self.inner, self.marked = inner, marked

    def _run(self, fn: Callable[..., Any], *args: Any) -> Any:
        if not self.marked:
            return fn(*args)
        with FOREGROUND.running():
            return fn(*args)

    def act(self, hand: Any, seat: int) -> Any:
        return self._run(self.inner.act, hand, seat)

    def declare(self, hand: Any, seat: int) -> Any:
        return self._run(self.inner.declare, hand, seat)


def search_hands(hands: int, worlds: int, marked: bool = False) -> float:
    """Wall seconds of every decision of ``hands`` hands, all seats searching."""
    rules = Rules()
    total = 0.0
    for h in range(hands):
        deck, starter = deal_setup(rules, 11, h)
        clocks = [Clock() for _ in range(rules.players)]
        seats = [Foreground(SearchStrategy(seed=100 * h + s, iterations=worlds), marked)
                 for s in range(4)]
        play_hand(new_hand(rules, deck, starter), seats, clocks)  # type: ignore[arg-type]
        total += sum(sum(c.wall) for c in clocks)
    return total


class Timer(threading.Thread):
    """How late a 10 ms sleep of another thread wakes, as a reactor's timers would."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.late: list[float] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            due = time.perf_counter() + 0.01
            time.sleep(0.01)
            self.late.append(max(0.0, time.perf_counter() - due))


def deck_jobs(seats: int, decks: int) -> list[Callable[[], Any]]:
    """The jobs a whole table's set-up gives its deck workers: every seat's shuffle and
    lock made, every other seat's checked (each job is pure: it can run again)."""
    jobs: list[Callable[[], Any]] = []

    def record(job: Callable[[], Any], done: Callable[[Any], None]) -> None:
        jobs.append(job)
        done(job())

    d = LocalDeal(seats=seats, decks=decks)
    for peer in d.peers:
        peer.runner = record
    d.setup()
    return jobs


class DirectReactor:
    """The reactor a `DeckWorker` answers through; here the answer is taken at once."""

    def addSystemEventTrigger(self, *args: Any) -> None:
        pass

    def callFromThread(self, f: Callable[..., Any], *args: Any) -> None:
        f(*args)


class DeckWork:
    """A `DeckWorker` kept busy with a table's deck jobs, one after another, for ever."""

    def __init__(self, jobs: list[Callable[[], Any]]) -> None:
        self.jobs = jobs
        self.worker = DeckWorker(DirectReactor())
        self.done = 0
        self.stopped = False
        self._next()

    def _next(self, _result: Any = None) -> None:
        if not self.stopped:
            self.worker.run(self.jobs[self.done % len(self.jobs)], self._finished)

    def _finished(self, result: Any) -> None:
        self.done += 1
        self._next()

    def stop(self) -> None:
        self.stopped = True
        self.worker.stop()


MODES = ("alone", "beside", "gated")


def p99(values: list[float]) -> float:
    values = sorted(values)
    return values[int(0.99 * (len(values) - 1))] if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1)
    parser.add_argument("--worlds", type=int, default=20)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--decks", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    jobs = deck_jobs(args.seats, args.decks)
    per_table = len(jobs)
    timer = Timer()
    timer.start()
    runs: dict[str, list[tuple[float, float, int]]] = {m: [] for m in MODES}
    for r in range(args.rounds):  # interleaved: the machine's drift falls on every mode
        for mode in MODES:
            timer.late = []
            work = DeckWork(jobs) if mode != "alone" else None
            seconds = search_hands(args.hands, args.worlds, marked=mode == "gated")
            if work is not None:
                work.stop()
            runs[mode].append((seconds, p99(timer.late), work.done if work else 0))
            print(f"round {r + 1} {mode:>6}: search {seconds:.2f} s, a 10 ms timer late by "
                  f"{1000 * runs[mode][-1][1]:.2f} ms (p99), deck jobs done beside it "
                  f"{runs[mode][-1][2]}")
    figures = {m: tuple(statistics.median(x[i] for x in v) for i in range(3))
               for m, v in runs.items()}
    timer.stop.set()
    alone = figures["alone"][0]
    out = {
        "hands": args.hands, "worlds": args.worlds, "seats": args.seats, "decks": args.decks,
        "search_alone_s": round(alone, 2),
        "search_beside_deck_work_s": round(figures["beside"][0], 2),
        "search_gated_deck_work_s": round(figures["gated"][0], 2),
        "slowdown_beside": round(figures["beside"][0] / alone, 3),
        "slowdown_gated": round(figures["gated"][0] / alone, 3),
        "deck_jobs_per_table": per_table,
        "deck_jobs_beside": figures["beside"][2], "deck_jobs_gated": figures["gated"][2],
        "timer_late_p99_ms": {m: round(1000 * f[1], 2) for m, f in figures.items()},
        "rounds": args.rounds,
    }
    print(f"slowdown of the search: x{out['slowdown_beside']} with the deck work beside it "
          f"x{out['slowdown_gated']} when it gives way to the search "
          f"(a table's set-up is {per_table} jobs)")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
