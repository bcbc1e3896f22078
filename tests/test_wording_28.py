"""Issue 28, item 10: what the screens and commands say is what is true. A table opened
with ``--no-announce`` is not found by `tractor join` without its address; the auction's
prompt says what a bid decides (seeds/README.md: only who declares); the plain tracker
names the players as the full screen does; a failed throw's penalty is said as one."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace

import pytest
from local_client import LocalClient
from test_hand import T_HANDS, T_TRICKS, in_play, play_trick

from tractor import Game, Play, Rules
from tractor.ai.players.heuristic import HeuristicStrategy
from tractor.cli.screen import render, table_view
from tractor.cli.screen.plain import PlainSession
from tractor.phases import Decision


@pytest.mark.e2e
def test_a_table_not_announced_does_not_send_people_to_the_lan_listing(tmp_path) -> None:
    host = subprocess.Popen(
        [sys.executable, "-P", "-m", "tractor.cli.main", "host", "--no-announce",
         "--listen", "tcp:0:interface=127.0.0.1", "--player", "Hana", "--name", "quiet"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "TRACTOR_HOME": str(tmp_path), "NO_COLOR": "1"})
    try:
        out, _ = host.communicate("quit\n", timeout=120)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    opened = [line for line in out.splitlines() if "table 'quiet' open" in line]
    assert len(opened) == 1, out
    assert "tractor join tcp:127.0.0.1:" in opened[0], out  # the address still given
    # (on loopback: this machine's only, which says more than "not announced")
    assert "find it on the LAN" not in out and "open on this machine only" in opened[0], out


def test_the_bid_prompt_says_a_bid_only_picks_the_declarers() -> None:
    rules = Rules(declaration="auction")
    obs = replace(Game(rules).observe(0), bids=((3, 35),), phase="bid", to_act=0)
    prompt = render.decision_prompt("bid", obs, ["Tess", "AI 1", "AI 2", "AI 3"])
    assert "means to take" not in prompt and "points your team" not in prompt, prompt
    assert "the highest bidder's team declares" in prompt, prompt
    assert "no points to reach" in prompt and "Bid 40 to 200 in steps of 5" in prompt, prompt


def test_the_plain_tracker_names_the_players() -> None:
    names = ["Tess", "AI 1", "Ann Lee", "AI 3"]
    ai = HeuristicStrategy(seed=3)
    client = LocalClient(seed=3, others=ai.act, names=names)
    while len(client.observation().tricks) < 6:  # a few voids and singles shown by then
        action = client.hint() if client.decision() == Decision.DECLARE else ai.act(
            client.game.hand, client.seat)
        assert client.submit(action) is None
    out: list[str] = []
    PlainSession(client, out.append).handle("tracker")
    said = "".join(out)
    assert said.strip() == render.tracker_text(client.observation(), names, 80), said
    assert any(f"\n  {name} " in said for name in names[1:]), said  # a fact about a seat
    assert "seat " not in said, said


def test_the_points_after_a_failed_throw_say_what_the_penalty_did() -> None:
    rules = Rules(talon_cards=84)
    hand = in_play(rules, T_HANDS, "2H")
    play_trick(hand, *T_TRICKS[0])  # a defender takes the 5
    hand.apply(Play.of(1, "KD QD JD"))  # a defender's throw fails: two cards withdrawn
    obs = replace(hand.observe(0), game=Game(rules).record())
    assert obs.defender_points == -15 and obs.penalties == -20
    header = " ".join(render.to_text(line) for line in table_view.header_lines(obs, 80))
    assert "points -15/80 (5 in tricks, penalty -20)" in header, header
    table = render.table_text(obs, ["Tess", "AI 1", "AI 2", "AI 3"])
    assert "Defender points: -15 (5 in tricks, penalty -20)" in table, table
