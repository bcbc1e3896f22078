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
    with pytest.raises(RulesError, match="auction variant"):
        parse_rules("declaration=auction")


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
