"""The prompts before a game, as a person meets them in a terminal (issue 28, items 1 and 3).

``lobby>``: an empty Enter does nothing (it closed the table for everybody); ``quit`` asks
first when others are seated; Ctrl-D is ``quit``; a script's closed pipe still leaves.

``table passphrase:``: Ctrl-C ends the command (exit 130), Ctrl-D gives up with a clear
line, an empty Enter says why one is needed and asks again, the host types theirs twice
(a mismatch is said and asked again), and Ctrl-C at ``lobby>`` afterwards ends at once (the
old getpass prompt held the loop: the person was stuck, and the first Ctrl-C at the lobby
was swallowed).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pty_terminal import Terminal

pytest.importorskip("pyte")

# e2e: every test here runs real processes.
pytestmark = pytest.mark.e2e

MAIN = [sys.executable, "-P", "-m", "tractor.cli.main"]
LOOPBACK = ["--no-announce", "--listen", "tcp:0:interface=127.0.0.1"]
LEFT = "tractor: you left the lobby"


def env_for(home: Path) -> dict[str, str]:
    return {**os.environ, "TRACTOR_HOME": str(home), "NO_COLOR": "1"}


def host_terminal(home: Path, *more: str) -> Terminal:
    return Terminal(MAIN + ["host", *LOOPBACK, "--player", "Hana", *more], env_for(home))


def address_of(term: Terminal) -> str:
    match = re.search(r"tractor join (tcp:127\.0\.0\.1:\d+)", term.written())
    assert match, term.written()
    return match.group(1)


def join_by_pipe(address: str, home: Path, *more: str) -> subprocess.Popen[str]:
    return subprocess.Popen(MAIN + ["join", address, "--player", "Jo", *more],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env_for(home))


def exit_code(term: Terminal, seconds: float = 20) -> int | None:
    status = term.exited(seconds)
    return None if status is None else os.waitstatus_to_exitcode(status)


def stop(guest: subprocess.Popen[str] | None) -> str:
    if guest is None:
        return ""
    if guest.poll() is None:
        guest.kill()
    out, _ = guest.communicate(timeout=30)
    return out


# --- lobby> ----------------------------------------------------------------------------------


def test_an_empty_enter_at_the_lobby_does_nothing_and_quit_asks_when_others_sit(tmp_path):
    host = host_terminal(tmp_path / "host")
    guest = None
    try:
        assert host.wait_for("lobby>", 60), host.text()
        host.send("\r")
        host.send("\r")
        host.pump(1.0)
        # Before: "tractor: you left the lobby" and the table closed.
        assert LEFT not in host.written() and host.poll() is None, host.text()
        guest = join_by_pipe(address_of(host), tmp_path / "guest")
        assert host.wait_for("seat 1: Jo (human", 60), host.text()
        host.send("quit\r")
        assert host.wait_for("leave? the table closes for the others seated (Jo): y/N", 10), \
            host.text()
        host.send("\r")  # not a yes
        assert host.wait_for("you stay at the table", 10), host.text()
        assert host.poll() is None
        host.send("\x04")  # Ctrl-D is quit: asked again, and Ctrl-D again is yes
        assert host.wait_until(lambda text: text.count("leave? the table closes") == 2, 10), \
            host.text()
        host.send("\x04")
        assert exit_code(host) == 1, host.text()
        assert LEFT in host.written()
        assert "the host closed" in stop(guest)
    finally:
        host.close()
        stop(guest)


def test_quit_alone_leaves_at_once(tmp_path):
    host = host_terminal(tmp_path)
    try:
        assert host.wait_for("lobby>", 60), host.text()
        host.send("quit\r")
        assert exit_code(host) == 1, host.text()
        assert LEFT in host.written() and "y/N" not in host.written()
    finally:
        host.close()


def test_a_script_empty_line_does_nothing_and_its_end_of_input_leaves(tmp_path):
    host = subprocess.Popen(MAIN + ["host", *LOOPBACK, "--player", "Hana"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env_for(tmp_path))
    try:
        assert host.stdin is not None and host.stdout is not None
        for line in host.stdout:
            if line.startswith("lobby commands"):
                break
        host.stdin.write("\n\n")
        host.stdin.flush()
        with pytest.raises(subprocess.TimeoutExpired):
            host.wait(timeout=2)  # before: the first empty line left
        host.stdin.close()  # the script ends: it leaves
        assert host.wait(timeout=30) == 1
        assert LEFT in host.stdout.read()
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()


def test_the_host_changes_rules_and_seats_as_typed_and_the_guest_sees_each_change(tmp_path):
    """Issue 32: ``rules NAME=VALUE``, a refusal in the core's words, ``swap`` by name; the
    guest sees the rules before ``ready``, each change in a sentence, and asks for a seat."""
    host = host_terminal(tmp_path / "host")
    guest = None
    try:
        assert host.wait_for("lobby>", 60), host.text()
        assert "rules: players=4  decks=2  mode=teams" in host.text(), host.text()
        guest = join_by_pipe(address_of(host), tmp_path / "guest")
        assert host.wait_for("seat 1: Jo (human", 60), host.text()
        host.send("rules throw_penalty=0\r")
        assert host.wait_for("you changed the rules: throw_penalty=0; every person", 10), \
            host.text()
        host.send("rules players=5\r")
        assert host.wait_for("not changed: players must be an even number", 10), host.text()
        host.send("swap hana jo\r")
        assert host.wait_for("seat 0: Jo (human", 10), host.text()
        assert guest.stdin is not None
        guest.stdin.write("sit 3\n")
        guest.stdin.flush()
        assert host.wait_for("seat 3: Jo (human", 20), host.text()
        host.send("quit\r")
        assert host.wait_for("y/N", 10), host.text()
        host.send("y\r")
        assert exit_code(host) == 1, host.text()
        out = stop(guest)
        assert "rules: players=4  decks=2  mode=teams  declaration=reveal" in out, out
        assert "the host changed the rules: throw_penalty=0; every person says `ready` " \
            "again" in out, out
        assert "seat 1: Hana (human" in out and "the seats changed" in out, out
        assert "seat 3: Jo (human" in out, out
    finally:
        host.close()
        stop(guest)


# --- table passphrase: -----------------------------------------------------------------------


def test_ctrl_c_at_the_passphrase_prompt_ends_the_command(tmp_path):
    host = host_terminal(tmp_path, "--passphrase", "-")
    try:
        assert host.wait_for("table passphrase:", 60), host.text()
        host.send("\x03")
        assert exit_code(host) == 130, host.text()
        lines = [line.strip() for line in host.text().splitlines() if line.strip()]
        assert lines[-1] == "tractor: interrupted", host.text()
        assert "Traceback" not in host.written()
    finally:
        host.close()


def test_ctrl_d_at_the_passphrase_prompt_gives_up_plainly(tmp_path):
    host = host_terminal(tmp_path, "--passphrase", "-")
    try:
        assert host.wait_for("table passphrase:", 60), host.text()
        host.send("\x04")
        assert exit_code(host) == 1, host.text()
        assert "tractor: no passphrase given: the table was not opened" in host.text()
    finally:
        host.close()


def test_an_empty_passphrase_is_explained_and_asked_again_a_few_times(tmp_path):
    host = host_terminal(tmp_path, "--passphrase", "-")
    try:
        assert host.wait_for("table passphrase:", 60), host.text()
        for asked in (2, 3):
            host.send("\r")
            assert host.wait_until(lambda text, n=asked: text.count("table passphrase:") == n,
                                   10), host.text()
        assert host.text().count("an empty passphrase: type one (without one, anyone could "
                                 "sit at your table), or Ctrl-D to give up") == 2
        host.send("\r")
        assert exit_code(host) == 1, host.text()
        assert "no passphrase given after 3 tries: the table was not opened" in host.text()
    finally:
        host.close()


def test_the_hosts_passphrase_is_typed_twice_and_then_ctrl_c_at_the_lobby_ends(tmp_path):
    host = host_terminal(tmp_path / "host", "--passphrase", "-")
    guest = None
    try:
        assert host.wait_for("table passphrase:", 60), host.text()
        host.send("open sesame\r")
        assert host.wait_for("table passphrase again:", 10), host.text()
        host.send("open sesam\r")
        assert host.wait_for("the two passphrases differ: type it again", 10), host.text()
        host.send("open sesame\r")
        assert host.wait_until(lambda text: text.count("table passphrase again:") == 2, 10)
        host.send("open sesame\r")
        assert host.wait_for("lobby>", 60), host.text()
        assert "sesam" not in host.written()  # never shown
        # The passphrase is the one typed twice: a guest who knows it sits.
        guest = join_by_pipe(address_of(host), tmp_path / "guest", "--passphrase",
                             "open sesame")
        assert host.wait_for("seat 1: Jo (human", 60), host.text()
        host.send("\x03")  # before: swallowed once after getpass
        assert exit_code(host) == 130, host.text()
        assert "tractor: interrupted" in host.text()
    finally:
        host.close()
        stop(guest)


def test_a_joiner_who_gives_up_at_the_passphrase_is_told_so(tmp_path):
    host = host_terminal(tmp_path / "host")
    joiner = None
    try:
        assert host.wait_for("lobby>", 60), host.text()
        joiner = Terminal(MAIN + ["join", address_of(host), "--passphrase", "-"],
                          env_for(tmp_path / "joiner"))
        assert joiner.wait_for("table passphrase:", 60), joiner.text()
        joiner.send("\x04")
        assert exit_code(joiner) == 1, joiner.text()
        assert "tractor: no passphrase given: the table was not joined" in joiner.text()
    finally:
        host.close()
        if joiner is not None:
            joiner.close()
