"""Issue 31: a hand of find-a-friend at five seats, `tractor play --rules
players=5,mode=friends` in a pseudo-terminal of 80x24 read back with pyte, as a person
plays it: the call (a trump refused with the rules' words, then the hint taken) when this
seat starts, the calls and the sides at the table, and the summary with the sides, every
player's level and the peers' audit.

The deal is fresh (every peer's secrets are bound to the table), so who starts is not
known in advance: the person declares whenever offered, and the call is checked when it
comes to them. Needs the peers' table for the mode (`tractor.net.table.calling`).
"""

from __future__ import annotations

import os
import sys
import time

import pytest
from pty_terminal import Terminal, quit_screen, take_hint

pytestmark = pytest.mark.e2e


def test_a_find_a_friend_hand_at_80x24(tmp_path) -> None:
    pytest.importorskip("pyte")
    pytest.importorskip("tractor.net.table.calling", reason="the peers' find-a-friend table")
    env = {**os.environ, "TRACTOR_HOME": str(tmp_path), "NO_COLOR": "1"}
    term = Terminal([sys.executable, "-P", "-m", "tractor.cli.main", "play", "--rules",
                     "players=5,mode=friends", "--strategy", "heuristic", "--level", "easy",
                     "--deal-pace", "0", "--takeback-wait", "0", "--seed", "3", "--player",
                     "Tess"], env, cols=80,
                    rows=24)
    seen: dict[str, str] = {}
    try:
        deadline = time.time() + 240
        while time.time() < deadline and "is over" not in term.text():
            term.pump(0.3)
            text = term.text()
            status = text.splitlines()[0] if text else ""
            if "you may declare" in status:
                term.send("e")
                term.wait_for("You may declare", 5)
                term.send("1")
            elif "call your friends" in status and "call" not in seen:
                seen["call"] = text
                term.send("BJ\r")  # the small joker is always a trump
                assert term.wait_for("cannot be called", 10), term.text()
                seen["refused"] = term.text()
                term.send("\x1b")
                take_hint(term)
            elif "your turn" in status:
                if "→" in text.splitlines()[1]:
                    seen.setdefault("playing", text)
                take_hint(term)
        summary = term.text()
        assert "is over" in summary, summary
        assert quit_screen(term) is not None
    finally:
        term.close()
    lines = summary.splitlines()
    assert all(len(line) <= 80 for line in lines) and len(lines) == 24
    text = " ".join(line.strip() for line in lines)
    assert "Starter's side: " in text and "defenders: " in text
    assert "Levels: Tess 2" in text and "Next starter: " in text
    assert "5 of 5 peers verified the hand: no rule broken" in text
    assert "team" not in text
    if "call" in seen:  # this seat started: its call prompt and the rules' reason
        assert "Call 1 friend: type a card and Enter" in seen["call"]
        assert "Allowed: any card but a trump." in seen["call"]
        assert "\ncall>" in seen["call"]
        refused = " ".join(seen["refused"].split())
        assert "a trump (BJ) cannot be called: the rules allow no trump " \
               "(friend_cards=no_trump)" in refused
    if "playing" in seen:  # the calls in the header: a seat, or ? while not played
        header = seen["playing"].splitlines()[1]
        assert header.startswith("Trump ") and ("call 1st " in header or "call 2nd " in header)
