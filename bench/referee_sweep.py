"""The referee's model checker, deeper than the suite runs it: more moves, more ticks for
the hostile seat, two ballots, equivocation with ballots, and honest messages that may
cross a tick (`Scenario.delay` 1). Every interleaving of each table, each state once.

    python bench/referee_sweep.py [--quick]

Prints, per table, the states explored, the final states and their outcomes, and seconds;
stops at the first violated property with its trace. The last line is one JSON object:
``tables``, ``states``, ``finals``, ``seconds``, ``violations`` (0 or 1).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

from referee_model import Scenario, Violation, explore  # noqa: E402

DEEP = {
    "a staller that owes the first move": Scenario(script=(2, 1), hostile=2, ballots=0,
                                                   until=10, hostile_until=4),
    "a staller, two moves each side": Scenario(script=(1, 2, 1, 2), hostile=2, ballots=0,
                                               until=12, hostile_until=5),
    "a staller whose messages cross ticks": Scenario(script=(1, 2), hostile=2, ballots=0,
                                                     until=10, hostile_until=4, delay=1),
    "a staller that also votes and passes": Scenario(script=(1, 2), hostile=2, ballots=1,
                                                     until=10, hostile_until=4),
    "two false ballots": Scenario(script=(1, 2), hostile=3, ballots=2, until=10,
                                  hostile_until=4),
    "an equivocating mover, then a move": Scenario(script=(2, 1), hostile=2, ballots=0,
                                                   versions=2, until=8, hostile_until=2),
    "a staller, and a voter that leaves on its verdict": Scenario(
        script=(1, 2), hostile=2, ballots=0, until=10, hostile_until=4, leaves=True),
}
QUICK = ("a staller that owes the first move", "two false ballots")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two tables only")
    parser.add_argument("--limit", type=int, default=20_000_000, help="states per table")
    args = parser.parse_args()
    total = finals = 0
    started = time.perf_counter()
    tables = {n: s for n, s in DEEP.items() if not args.quick or n in QUICK}
    violations = 0
    for name, scenario in tables.items():
        t0 = time.perf_counter()
        try:
            report = explore(scenario, limit=args.limit)
        except Violation as exc:
            print(f"{name}: VIOLATION {exc}")
            violations = 1
            break
        total += report.states
        finals += report.finals
        print(f"{name}: {report.states} states, {report.finals} final, outcomes "
              f"{report.outcomes}, {time.perf_counter() - t0:.1f} s", flush=True)
    seconds = time.perf_counter() - started
    print(json.dumps({"tables": len(tables), "states": total, "finals": finals,
                      "seconds": round(seconds, 1), "violations": violations}))


if __name__ == "__main__":
    main()
