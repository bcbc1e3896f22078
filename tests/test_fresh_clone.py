"""The README's first command, verbatim, from the root of a fresh copy of the tree, as a new
user runs it: a new venv, a non-editable ``pip install .``, then ``tractor`` in a terminal,
with the copy's own ``tractor/`` folder right there in the working directory (it shadowed
the installed package in the AI children, which died, and the player waited 60 s for
nothing). A whole hand is played from the keyboard against the three AI peers."""

from __future__ import annotations

import getpass
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from processes import ai_processes
from pty_terminal import Terminal, play_full_screen_hand, quit_screen

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    """The set-up commands of README.md's Quick start, in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", quick, re.S)]


def fresh_copy(dest: Path) -> Path:
    """What a clone of this working tree holds: the tracked files and the new ones git
    would take (ignored build and venv folders stay behind)."""
    listing = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], cwd=ROOT, capture_output=True)
    if listing.returncode != 0:  # not a git checkout: copy without the usual litter
        shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(
            ".venv*", ".git", "__pycache__", "*.egg-info", "build", ".*_cache", ".hypothesis"))
        return dest
    for name in listing.stdout.decode().split("\0"):
        if name and (ROOT / name).is_file():
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target)
    return dest


def test_the_readme_first_command_plays_a_hand_from_a_fresh_clone(tmp_path):
    pytest.importorskip("pyte")
    first = readme_commands()[0]
    assert first.endswith("pip install . && tractor"), first  # the contract's command
    clone = fresh_copy(tmp_path / "tractor-clone")
    assert (clone / "tractor" / "__init__.py").exists()  # the folder that used to shadow
    home = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(TRACTOR_HOME=str(home), NO_COLOR="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    # The venv of this test run must not leak in: a person's PATH has no venv active.
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not p.startswith(str(ROOT)))
    term = Terminal(["bash", "-c", first], env, cols=100, rows=30, cwd=str(clone))
    try:
        assert term.wait_for("Starting: you and 3", 600), term.written()[-3000:]
        started = time.time()
        assert term.wait_for("Tractor · hand 1", 60), (
            term.text(), (home / "ai.log").read_text() if (home / "ai.log").exists() else "")
        shown = time.time() - started
        assert "Traceback" not in term.text()
        me = getpass.getuser()
        # The own row is marked and carries the login name (not "You"; cut to 6 letters).
        own_row = re.compile(f"{re.escape(me[:6])}[^\\n]*\\(you\\)")
        assert term.wait_until(lambda text: own_row.search(text) is not None, 30), term.text()
        keys = play_full_screen_hand(term, 600)
        screen = term.text()
        assert "Hand 1 is over." in screen, screen
        assert "4 of 4 peers verified the hand" in screen, screen
        assert keys >= 6  # decisions from the keyboard (a hand of big leads has few tricks)
        t0 = time.time()
        assert quit_screen(term) is not None, term.text()  # Ctrl-Q asks, a second leaves
        left = time.time() - t0
        deadline = time.time() + 5
        while ai_processes(home) and time.time() < deadline:
            time.sleep(0.1)
        assert ai_processes(home) == [], "AI peers outlived the game"
        print(f"first screen {shown:.1f} s after the install; Ctrl-Q left in {left:.1f} s")
    finally:
        term.close()
    log = (home / "ai.log").read_text()
    assert "No module named" not in log and "Traceback" not in log, log[-3000:]
