"""`tractor history` and `tractor replay` read a peer's journal: games listed, and a
finished hand shown in full (every seat's cards, talon, burial, tricks, result, audit)."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from tractor.cli.history import history_lines, replay
from tractor.net.journal.records import GameStart
from tractor.net.journal.store import Journal
from tractor.records import hand_result
from tractor.rules import Rules


@pytest.mark.e2e
def test_history_and_replay_of_a_loopback_game(tmp_path):
    proc = subprocess.run([sys.executable, "-P", "-m", "tractor.net.mesh.loopback", "--hands", "2",
                           "--seed", "8", "--journal-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    journal = Journal(str(tmp_path / "seat1.sqlite"))
    journal.set_meta("loopback-8", {"names": ["Ann", "Bo", "Cy", "Di"]})
    lines = history_lines(journal)
    assert len(lines) == 1 and lines[0].startswith("loopback-8 ")
    assert "seat 1 with Ann, Cy, Di  unfinished in hand 3" in lines[0]
    out = io.StringIO()
    assert replay(journal, "loopback-8", out, hand_no=2) == 0
    text = out.getvalue().splitlines()
    assert text[0].startswith("hand 2: starter seat")
    seats = [line for line in text if line.startswith("  seat ") and ": " in line
             and "declared" not in line]
    assert len(seats) == 4 and all(len(s.split(": ")[1].split()) == 25 for s in seats)
    assert any(line.startswith("  talon: ") and len(line.split()) == 9 for line in text)
    tricks = [line for line in text if line.strip().startswith("trick ")]
    assert tricks and all("->" in t for t in tricks)
    assert text[-1] == "  audit: 4 of 4 peers verified the hand: no rule broken"
    # Stepping: stop after the deal.
    steps = io.StringIO()
    replay(journal, "loopback-8", steps, hand_no=1, pause=lambda: False)
    assert "trick" not in steps.getvalue()
    bad = io.StringIO()
    assert replay(journal, "nope", bad) == 2 and "no game 'nope'" in bad.getvalue()
    assert replay(journal, "loopback-8", bad, hand_no=7) == 2
    assert "game loopback-8 has finished hands 1-2: there is no hand 7" in bad.getvalue()


def test_history_of_an_empty_journal(tmp_path):
    assert history_lines(Journal(str(tmp_path / "j.sqlite"))) == [
        "no games yet: `tractor play` starts one"]


def test_history_says_the_hand_a_game_stopped_in_and_its_rules_in_80_columns(tmp_path):
    """A game quit in its first hand was "0 hand(s)"; the rules were not shown at all."""
    journal = Journal(str(tmp_path / "j.sqlite"))
    many = Rules(decks=3, throw_penalty=0, must_defend="5/K", takebacks=True,
                 talon_multiplier="power", win="reach_ace", must_play_tractor=True,
                 throw_ruff="largest_component", throw_forced="first_claimant",
                 joker_declare="none", hide_played=True, show_talon=True)
    for game, rules in (("quit-0", Rules(throw_penalty=0, must_defend="K/5")),
                        ("plain-0", Rules()), ("many-0", many), ("won-0", Rules())):
        journal.add_game(game, GameStart(0, bytes(32), bytes(32), rules, game.encode() * 3,
                                         tuple(bytes([s]) * 32 for s in range(4)), 0))
        journal.set_meta(game, {"names": ["Ann", "AI 1", "AI 2", "AI 3"]})
    journal.record_result("won-0", 0, hand_result(Rules(), 0, 0, 1, False, 0, 0))
    journal.record_result("won-0", 1, hand_result(Rules(), 0, 0, 1, False, 0, 0),
                          finished=True, winners=(0, 2))
    lines = history_lines(journal, 80)
    assert lines[0].endswith("seat 0 with AI 1, AI 2, AI 3")
    assert lines[1:3] == ["    unfinished in hand 1 (tractor resume)",
                          "    rules: throw_penalty=0  must_defend=5/K"]
    assert lines[4] == "    unfinished in hand 1 (tractor resume)"  # no rules line: defaults
    assert lines[7].startswith("    rules: decks=3  talon_multiplier=power")
    assert lines[7].endswith(" more") and "+" in lines[7]
    assert lines[8].endswith("AI 3  2 hands  finished")
    # Who won a finished game (it was never said): this seat and its partner.
    assert lines[9] == "    won by you, AI 2"
    assert all(len(line) <= 80 for line in lines) and len(lines) == 10
    assert history_lines(journal)[-1].endswith("2 hands  finished  won by you, AI 2")
