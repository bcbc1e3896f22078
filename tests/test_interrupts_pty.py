"""Ctrl-C in a terminal, at many moments of `tractor play`, `host`, `join`, `resume` and
`watch` (issue 28, item 2; `watch`'s pick from the LAN's games and its passphrase: issue
32): one plain line, exit status 130, the journal still readable and no AI child left
behind; never a traceback. At `watch`'s prompts, Ctrl-D and an empty Enter too.

Before: a KeyboardInterrupt traceback from inside an import (spake2) in the first 0.3 s of
`tractor play`, an asyncio CancelledError after "main function encountered error" while
`tractor resume` checked the moves, another at ``lobby>``.

Each command runs in a pseudo-terminal (as a person's), Ctrl-C typed at moments spread
over its first 3 s: the commands' moments interleave, so together they cover every 0.1 s.
Where the full play screen is up, Ctrl-C asks "Quit?" (kept: a feature), and a second
Ctrl-C leaves it.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import PROMPTS, Session, ai_processes
from pty_terminal import Terminal

from tractor.net.journal.store import Journal

pytest.importorskip("pyte")

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e

MAIN = [sys.executable, "-P", "-m", "tractor.cli.main"]
FAST = ["--deal-pace", "0", "--hint-level", "easy"]
#: `tractor play` has take-backs: its AI seats would wait 1.5 s after each play of the person.
FAST_PLAY = [*FAST, "--takeback-wait", "0"]
FAREWELL = re.compile(r"^tractor: interrupted(; the journal is kept \(`tractor resume` "
                      r"continues the game\))?$")
#: What must never reach the person: Python's, asyncio's and Twisted's reports.
NOISE = ("Traceback", "Error", "KeyboardInterrupt", "Unhandled", "never retrieved",
         "encountered error")
LOOPBACK = ["--no-announce", "--listen", "tcp:0:interface=127.0.0.1"]
#: Ctrl-C moments (seconds after the start) of each command: 0.1 s apart overall.
MOMENTS = {command: [round(0.1 + offset + 0.4 * k, 2) for k in range(8)]
           for command, offset in (("play", 0.0), ("host", 0.1), ("join", 0.2),
                                   ("resume", 0.3), ("passphrase", 0.2))}
MOMENTS["pick"] = MOMENTS["play"]
#: `tractor` with one game under way heard on the LAN (`tractor watch` alone lists it),
#: without multicast (this test sends nothing beyond loopback), and in half a second
#: instead of two (the pick is asked sooner: more of the moments find it).
ONE_GAME_HEARD = [sys.executable, "-P", "-c", r"""
import sys
from twisted.internet.task import deferLater
from tractor.net.lobby import discovery

def heard(reactor, seconds=2.0, kind=None, **_):
    game = discovery.Announcement("game", "swept", "tcp:127.0.0.1:9", 8, 0, "2 decks", False,
                                  "5eed", "127.0.0.1", 0.0)
    return deferLater(reactor, 0.5, lambda: [game])

discovery.browse = heard
from tractor.cli.main import main
sys.exit(main())
"""]


def env_for(home: Path) -> dict[str, str]:
    # No cursor position requests: eight programs start at once here, and on a loaded
    # machine the test terminal's answer can come after prompt_toolkit gave up waiting for
    # it, so the tty echoes it ("^[[10;1R") just before the line the test reads. A person's
    # terminal answers at once; what is tested here is Ctrl-C, not CPR.
    return {**os.environ, "TRACTOR_HOME": str(home), "NO_COLOR": "1",
            "PROMPT_TOOLKIT_NO_CPR": "1"}


class Interrupted:
    """``tractor argv`` in a pseudo-terminal, to be sent Ctrl-C ``moment`` seconds after
    it started; then, if the play screen asks "Quit?", Ctrl-C again."""

    def __init__(self, argv: list[str], home: Path, moment: float,
                 main: list[str] = MAIN) -> None:
        self.home, self.moment = home, moment
        self.term = Terminal(main + argv, env_for(home), cols=100, rows=30)
        self.started = time.time()
        self.presses = 0
        self.status: int | None = None

    def step(self, now: float) -> bool:
        """Press Ctrl-C when it is time; True once the program has ended."""
        if self.presses == 0 and now >= self.started + self.moment and self._has_terminal():
            self.term.send("\x03")
            self.presses, self.pressed_at = 1, now
        elif self.presses == 1 and "Quit?" in self.term.text():
            self.term.send("\x03")
            self.presses = 2
        self.status = self.term.poll()
        return self.status is not None

    def _has_terminal(self) -> bool:
        """Whether the program's process has taken the terminal (a Ctrl-C before that, in
        the moment after the fork, reaches no process and is lost: on a loaded machine the
        child may not run for a few tenths of a second)."""
        try:
            return os.tcgetpgrp(self.term.fd) == self.term.pid
        except OSError:
            return False


def interrupt_all(argv: list[str], homes: dict[float, Path], stagger: float = 0.3,
                  main: list[str] = MAIN) -> list[Interrupted]:
    """Each moment's run, started ``stagger`` seconds apart (all start-ups at once would
    crowd two cores), read together until every one has ended or waited 20 s since
    its Ctrl-C."""
    runs: list[Interrupted] = []
    live: list[Interrupted] = []
    pending = sorted(homes.items())
    next_start = time.time()
    while pending or live:
        now = time.time()
        if pending and now >= next_start:
            moment, home = pending.pop(0)
            runs.append(Interrupted(argv, home, moment, main))
            live.append(runs[-1])
            next_start = now + stagger
        ready, _, _ = select.select([r.term.fd for r in live], [], [], 0.02)
        for run in live:
            if run.term.fd in ready:
                try:
                    run.term.feed(os.read(run.term.fd, 65536))
                except OSError:  # the program's end closed the terminal
                    pass
        for run in list(live):
            if run.step(time.time()) or (run.presses and time.time() > run.pressed_at + 20):
                live.remove(run)
    for run in runs:
        run.term.pump(0.1)  # anything still in the terminal
        run.term.close()
    return runs


def plain_lines(written: str) -> list[str]:
    """What the program wrote, as lines (escape sequences out)."""
    text = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]", "", written)
    return [line.strip() for line in re.split(r"[\r\n]+", text) if line.strip()]


def before_main(written: str) -> bool:
    """Ctrl-C came before `tractor.cli.main.main` ran (Python starting, the site module, the
    first imports): Python's own report, if any, shows no frame of ``main``."""
    report = written.replace("^C", "").strip()
    return not report or (report.startswith(("Traceback", "Fatal Python error"))
                          and not re.search(r'cli/main\.py", line \d+, in main\n', written))


def problems(status: int | None, written: str, home: Path) -> list[str]:
    """What is wrong with one interrupted run (nothing: [])."""
    if before_main(written):
        return []  # Ctrl-C while Python itself started: out of the program's reach
    found = [f"{word!r} written" for word in NOISE if word in written]
    lines = plain_lines(written)
    if status is None:
        found.append("it did not end")
    elif os.waitstatus_to_exitcode(status) == 0 and "Quit?" in written:
        if not any(line.startswith("saved: `tractor resume`") for line in lines):
            found.append("the play screen's quit said nothing of the saved game")
    elif os.waitstatus_to_exitcode(status) != 130:
        found.append(f"exit status {os.waitstatus_to_exitcode(status)}")
    elif not lines or not FAREWELL.match(lines[-1].removeprefix("^C")):
        found.append("the last line is not the plain 'interrupted' line")
    elif sum("interrupted" in line for line in lines) != 1:
        found.append("'interrupted' said more than once")
    if _gone_within(home, 5.0) is False:
        found.append("an AI child outlived it")
    journal = home / "journal.sqlite"
    try:
        games = Journal(str(journal)).games() if journal.exists() else []
    except Exception as exc:  # noqa: BLE001 - any failure to read it is the finding
        found.append(f"the journal does not open: {exc!r}")
    else:
        if "journal is kept" in written and not any(not g.finished for g in games):
            found.append("no game to resume in the journal")
    return found


def _gone_within(home: Path, seconds: float) -> bool:
    deadline = time.time() + seconds
    while ai_processes(home):
        if time.time() > deadline:
            return False
        time.sleep(0.1)
    return True


def sweep(argv: list[str], moments: list[float], home_for, at_once: int = 8,
          main: list[str] = MAIN, stagger: float = 0.3) -> dict[float, str]:
    """Interrupt ``argv`` at each moment, ``at_once`` runs overlapping; the report of
    each run that went wrong."""
    started = time.time()
    batches = [moments[k:k + at_once] for k in range(0, len(moments), at_once)]
    failed = {}
    for batch in batches:
        for run in interrupt_all(argv, {moment: home_for(moment) for moment in batch},
                                 stagger, main):
            written = run.term.written()
            wrong = problems(run.status, written, run.home)
            if wrong:
                failed[run.moment] = ("; ".join(wrong) + "\n"
                                      + "\n".join(plain_lines(written)[-12:]))
    print(f"{argv[0]}: {len(moments)} runs in {time.time() - started:.1f} s")
    return failed


@pytest.mark.parametrize("command", ["play", "host"])
def test_ctrl_c_at_any_moment_of_play_and_host(command, tmp_path):
    argv = {"play": ["play", *FAST_PLAY], "host": ["host", *LOOPBACK, "--ai", "1"]}[command]
    failed = sweep(argv, MOMENTS[command], lambda moment: tmp_path / f"at-{moment}")
    assert not failed, failed


def test_ctrl_c_at_any_moment_of_join(tmp_path):
    host = subprocess.Popen(MAIN + ["host", *LOOPBACK, "--player", "Hana", "--seats", "8"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env_for(tmp_path / "h"))
    try:
        assert host.stdout is not None
        address = None
        for line in host.stdout:
            match = re.search(r"tractor join (tcp:127\.0\.0\.1:\d+)", line)
            if match:
                address = match.group(1)
                break
        assert address, "the host printed no address"
        # Three at a time: a seat stays taken until the host hears its guest has gone, so
        # two batches may hold seats at once (7 free).
        failed = sweep(["join", address, *FAST], MOMENTS["join"],
                       lambda moment: tmp_path / f"at-{moment}", at_once=3)
        assert not failed, failed
    finally:
        host.kill()
        host.wait()


@pytest.fixture(scope="module")
def saved_game(tmp_path_factory) -> Path:
    """A practice game left at its first question (`quit`: saved, `tractor resume` goes
    on)."""
    home = tmp_path_factory.mktemp("saved")
    play = Session(["play", "--plain", *FAST_PLAY, "--strategy", "heuristic", "--level", "easy"],
                   env_for(home))
    try:
        assert play.until(lambda out: out.endswith(PROMPTS), 120), play.out[-2000:]
        play.send("quit")
        assert play.proc.wait(timeout=60) == 0
    finally:
        if play.proc.poll() is None:
            play.proc.kill()
    assert _gone_within(home, 10.0)
    return home


def test_ctrl_c_at_any_moment_of_resume(saved_game, tmp_path):
    def copy(moment: float) -> Path:
        home = tmp_path / f"at-{moment}"
        shutil.copytree(saved_game, home)
        return home

    # One after another: every copy of the game listens on the same ports.
    failed = sweep(["resume", *FAST], MOMENTS["resume"], copy, at_once=1)
    assert not failed, failed


@pytest.mark.parametrize("prompt", ["pick", "passphrase"])
def test_ctrl_c_at_any_moment_of_watch(prompt, tmp_path):
    argv, main = {"pick": (["watch"], ONE_GAME_HEARD),
                  "passphrase": (["watch", "127.0.0.1:9", "--passphrase", "-"], MAIN)}[prompt]
    # (Started 0.15 s apart: a watch that asks is lighter than a game that starts.)
    failed = sweep(argv, MOMENTS[prompt], lambda moment: tmp_path / f"at-{moment}",
                   main=main, stagger=0.15)
    assert not failed, failed


def _asked_again(written: str, prompt: str) -> bool:
    """Whether ``prompt`` came again after the words on an empty passphrase."""
    why, _, after = written.partition("an empty passphrase: type one")
    return bool(why) and prompt in after


#: At `tractor watch`'s prompts: the keys, then the program's last line and exit status.
#: An empty Enter gives up the pick (as its prompt says, and as `tractor join`'s list
#: does), and asks for the passphrase again.
ANSWERS = [
    ("pick", "\x04", "tractor watch: no game chosen", 1),
    ("pick", "\r", "tractor watch: no game chosen", 1),
    ("passphrase", "\x04", "tractor watch: no passphrase given: nothing was watched", 1),
    ("passphrase", "\r", "tractor: interrupted", 130),  # (asked again: then Ctrl-C)
]


def test_ctrl_d_and_an_empty_enter_at_watchs_prompts(tmp_path):
    terms = [Terminal((ONE_GAME_HEARD + ["watch"]) if prompt == "pick" else
                      (MAIN + ["watch", "127.0.0.1:9", "--passphrase", "-"]),
                      env_for(tmp_path / f"{k}"), cols=100, rows=30)
             for k, (prompt, _, _, _) in enumerate(ANSWERS)]
    try:
        for term, (prompt, keys, last, status) in zip(terms, ANSWERS, strict=True):
            asked = "watch which game?" if prompt == "pick" else "table passphrase:"
            assert term.wait_for(asked, 30), term.written()[-2000:]
            term.send(keys)
            if status == 130:
                assert term.wait_until(lambda _, t=term, a=asked: _asked_again(t.written(), a),
                                       10), term.written()[-2000:]
                term.send("\x03")
            code = term.exited(20)
            written = term.written()
            assert code is not None and os.waitstatus_to_exitcode(code) == status, \
                written[-2000:]
            assert plain_lines(written)[-1] == last, written[-2000:]
            assert not [word for word in NOISE if word in written], written[-2000:]
    finally:
        for term in terms:
            term.close()
