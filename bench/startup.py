"""How long a person waits: from Enter on `tractor` to the first decision on the full screen
(three AI peer processes, the verified shuffle, the deal), from Enter on `tractor resume`
after the game was killed mid-hand to the first line, the full screen and the first
decision again, and, once that hand is played out, from the end of the hand to the next
hand's first decision (Enter pressed on the summary at once: the next hand's shuffle with
proofs and its deal). The game is then killed again at that decision and resumed once
more (``resume2_*``: a journal of a whole hand and more, every AI seat replaying its own).

Runs the installed `tractor` command in a pseudo-terminal, as a person would, with a fresh
data folder per run; the screen is read back with pyte (a test dependency). Prints each
run's figures, then a JSON last line: ``{"first_decision_s": ..., "resume_decision_s":
..., ...}`` (medians over the runs), with the load average before the runs (the machine
may be shared: figures under load are longer).

    python bench/startup.py [--runs 3] [--strategy search] [--level normal]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from pty_terminal import Terminal, play_full_screen_hand  # noqa: E402

DECIDING = ("your turn", "you may declare")


def tractor_command() -> str:
    """The installed console script beside this interpreter (else on PATH)."""
    here = Path(sys.executable).with_name("tractor")
    return str(here) if here.exists() else (shutil.which("tractor") or "tractor")


def status_of(text: str) -> str:
    """The full screen's first line: the game's status (whose turn, what is asked)."""
    lines = text.splitlines()
    return lines[0] if lines else ""


def status(term: Terminal) -> str:
    return status_of(term.text())


def until_decision(term: Terminal, seconds: float) -> float | None:
    """Seconds until the status line asks the person something (None: not in time)."""
    start = time.perf_counter()
    if term.wait_until(lambda text: any(w in status_of(text) for w in DECIDING), seconds):
        return time.perf_counter() - start
    return None


def until_screen(term: Terminal, seconds: float) -> float | None:
    """Seconds until the full screen is drawn (its status line names the game)."""
    start = time.perf_counter()
    if term.wait_until(lambda text: "Tractor ·" in status_of(text), seconds):
        return time.perf_counter() - start
    return None


def resumed(exe: str, env: dict[str, str], home: Path) -> tuple[Terminal, dict[str, float | None]]:
    """`tractor resume` from Enter: to the first line, the full screen, the first decision."""
    start = time.perf_counter()
    term = Terminal([exe, "resume"], env, cwd=str(home))
    shown = first_progress(term, 60)
    screen = until_screen(term, 120)
    screen = None if screen is None else time.perf_counter() - start
    decided = None if until_decision(term, 120) is None else time.perf_counter() - start
    return term, {"progress_s": shown, "screen_s": screen, "decision_s": decided}


def crash(term: Terminal) -> None:
    """Kill it like a crash; its AI peers leave with it (they die with their parent)."""
    os.kill(term.pid, signal.SIGKILL)
    term.close()
    time.sleep(1.0)


def first_progress(term: Terminal, seconds: float) -> float | None:
    """Seconds until the screen shows anything at all."""
    start = time.perf_counter()
    if term.wait_until(lambda text: bool(text.strip()), seconds):
        return time.perf_counter() - start
    return None


def one_run(strategy: str, level: str) -> dict[str, float | None]:
    home = Path(tempfile.mkdtemp(prefix="tractor-startup-"))
    env = {**os.environ, "TRACTOR_HOME": str(home), "NO_COLOR": "1"}
    exe = tractor_command()
    try:
        term = Terminal([exe, "play", "--strategy", strategy, "--level", level], env,
                        cwd=str(home))
        first = until_decision(term, 120)
        # A few decisions in (a play, not only the deal), kill it like a crash.
        made = 0
        deadline = time.time() + 120
        while made < 3 and time.time() < deadline:
            line = status(term)
            if "you may declare" in line:
                term.send("p")
            elif "your turn" in line:
                term.send("i")
                term.pump(0.2)
                term.send("\r")
                made += "follow" in line or "lead" in line
            term.pump(0.3)
        crash(term)
        term, again = resumed(exe, env, home)
        between = None
        play_full_screen_hand(term, 600)
        if "is over" in term.text():
            term.send("\r")  # leave the summary at once: only the next deal is waited for
            between = until_decision(term, 120)
        deeper: dict[str, float | None] = dict.fromkeys(again)
        if between is not None:
            crash(term)
            term, deeper = resumed(exe, env, home)
        term.send("\x11")
        term.exited(5)
        term.close()
        return {"first_decision_s": first,
                **{f"resume_{k}": v for k, v in again.items()},
                "next_hand_decision_s": between,
                **{f"resume2_{k}": v for k, v in deeper.items()}}
    finally:
        shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--strategy", default="search")
    parser.add_argument("--level", default="normal")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    runs = []
    for i in range(args.runs):
        run = one_run(args.strategy, args.level)
        runs.append(run)
        print(f"run {i + 1}: " + ", ".join(
            f"{k} {'-' if v is None else f'{v:.2f}'}" for k, v in run.items()), flush=True)

    def median(key: str) -> float | None:
        values = [r[key] for r in runs if r[key] is not None]
        return round(statistics.median(values), 2) if values else None

    result = {"first_decision_s": median("first_decision_s"),
              "resume_decision_s": median("resume_decision_s"),
              "resume_progress_s": median("resume_progress_s"),
              "resume_screen_s": median("resume_screen_s"),
              "resume2_screen_s": median("resume2_screen_s"),
              "resume2_decision_s": median("resume2_decision_s"),
              "next_hand_decision_s": median("next_hand_decision_s"),
              "next_hand_decision_max_s": max((r["next_hand_decision_s"] or 0.0)
                                              for r in runs),
              "first_decision_max_s": max((r["first_decision_s"] or 0.0) for r in runs),
              "resume_decision_max_s": max((r["resume_decision_s"] or 0.0) for r in runs),
              "runs": len(runs), "strategy": args.strategy, "level": args.level,
              "cores": os.cpu_count(), "load_before": load}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
