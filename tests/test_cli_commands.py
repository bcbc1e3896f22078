"""The `tractor` command line: every command has --help, bad input gets a clear reason and
no traceback, the rules option parser, history/replay on an empty journal."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tractor.cli.main import COMMANDS, main
from tractor.cli.options import parse_rules
from tractor.rules import RulesError


def tractor(*args: str, home, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-P", "-m", "tractor.cli.main", *args],
                          capture_output=True, text=True, timeout=timeout,
                          env={"TRACTOR_HOME": str(home), "PATH": "/usr/bin:/bin"},
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    assert f"usage: tractor {command}" in capsys.readouterr().out


def test_rules_options_parse_and_refuse_clearly():
    rules = parse_rules("players=6, decks=3, must_play_tractor=true, talon_cards=none")
    assert (rules.players, rules.decks, rules.must_play_tractor) == (6, 3, True)
    assert parse_rules(None) == parse_rules("")
    with pytest.raises(RulesError, match="unknown rules option"):
        parse_rules("colour=red")
    with pytest.raises(RulesError, match="name=value"):
        parse_rules("decks")
    assert parse_rules("declaration=auction").declaration == "auction"  # between peers too
    with pytest.raises(RulesError, match="declaration"):
        parse_rules("declaration=shout")


@pytest.mark.e2e
def test_bad_input_gets_a_reason_not_a_traceback(tmp_path):
    out = tractor("play", "--rules", "decks=99", home=tmp_path)
    assert out.returncode == 2
    assert out.stderr.startswith("tractor: ") and "Traceback" not in out.stderr
    out = tractor("replay", "nope", home=tmp_path)
    assert out.returncode == 2 and "no game 'nope'" in out.stdout
    out = tractor("history", home=tmp_path)
    assert out.returncode == 0 and "no games yet" in out.stdout
    out = tractor("resume", home=tmp_path)
    assert out.returncode == 1 and "no unfinished game" in out.stdout
    out = tractor("join", "tcp:127.0.0.1:1", "--plain", home=tmp_path)
    assert out.returncode == 1 and "cannot reach the lobby" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr


@pytest.mark.e2e
@pytest.mark.parametrize(("args", "reason"), [
    (["join", "tcp:localhost"], "give the table's address as HOST:PORT"),
    (["join", "tcp:127.0.0.1:99999"], "give the table's address as HOST:PORT"),
    (["ai", "--join", "localhost"], "give the table's address as HOST:PORT"),
    (["host", "--listen", "garbage"], "a lobby endpoint like tcp:40123"),
    (["host", "--listen", "tcp:99999"], "a lobby endpoint like tcp:40123"),
    (["host", "--name", ""], "a table name is 1 to"),
    (["host", "--ai", "-1"], "a whole number, 0 or more"),
    (["host", "--ai", "5", "--no-announce"], "has room for 3 AI players besides you, not 5"),
    (["host", "--rules", "players=5,mode=friends", "--ai", "5", "--no-announce"],
     "a table of 5 seats has room for 4 AI players besides you, not 5"),
    (["host", "--seats", "5", "--ai", "1", "--no-announce"], "an odd table plays mode=friends"),
    (["play", "--grace", "-5"], "a number of seconds above 0"),
    (["play", "--player", " "], "a name is 1 to"),
    (["resume", "nosuchgame"], "no game 'nosuchgame' in your journal"),
    (["bogus"], "unknown command 'bogus' (commands: play, host"),
    (["play", "--rules", "="], "(options: decks, players"),
    (["play", "--rules", "colour=red"], "unknown rules option(s): colour (options: decks"),
])
def test_bad_options_and_addresses_get_a_reason_not_library_internals(args, reason, tmp_path):
    # Before: "TCP4ClientEndpoint.__init__() missing 1 required positional argument",
    # "connect_ex(): port must be 0-65535", "unexpected error (details in error.log)".
    proc = tractor(*args, home=tmp_path)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert reason in text, text
    assert "Traceback" not in text and "unexpected error" not in text
    assert not (tmp_path / "error.log").exists()


@pytest.mark.e2e
def test_a_data_folder_that_is_a_file_is_named_not_a_traceback(tmp_path):
    afile = tmp_path / "file"
    afile.write_text("")
    for command in ("history", "play"):
        proc = tractor(command, home=afile)
        assert proc.returncode == 1
        assert f"cannot use the data folder {afile}" in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr


@pytest.mark.e2e
@pytest.mark.parametrize("args", [("rules",), ("stats", "--json")])
def test_a_reader_that_leaves_early_gets_no_traceback(args, tmp_path):
    """`tractor stats --json | head`: the reader closes its end before all is written. The
    command stops quietly (status 1), with no BrokenPipeError traceback on the terminal."""
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first byte
    try:
        proc = subprocess.run([sys.executable, "-P", "-m", "tractor.cli.main", *args],
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=60,
                              env={"TRACTOR_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
                              stdin=subprocess.DEVNULL)
    finally:
        os.close(write_end)
    assert proc.returncode == 1
    assert proc.stderr == ""
