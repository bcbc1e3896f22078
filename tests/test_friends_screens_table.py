"""Issue 31: find-a-friend between peers, as a person's seat tells it: the log's call and
reveals (`cli.seat.hand_log`), the end-of-hand and game-over lines (`cli.seat.seat_log`),
and `tractor replay`'s story of a hand (`cli.history.hand_story`): calls, reveals, sides,
levels per player.

The hands are played on the real deck between in-memory peers (`LocalDeal`). They need
the peers' table for find-a-friend (`tractor.net.table.calling`, branch fnet): until it is
there, this module is skipped.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("tractor.net.table.calling", reason="the peers' find-a-friend table")

from tractor import Rules  # noqa: E402  (after the skip: the table must be there)
from tractor.cards import format_cards  # noqa: E402
from tractor.cli.history import hand_story  # noqa: E402
from tractor.cli.seat.hand_log import table_events  # noqa: E402
from tractor.cli.seat.seat_log import SeatLog  # noqa: E402
from tractor.friends import Sides  # noqa: E402
from tractor.net.deck.local import LocalDeal  # noqa: E402
from tractor.net.table.hand import TableHand  # noqa: E402
from tractor.net.table.player import RandomPlayer  # noqa: E402
from tractor.net.table.setup import HandSetup  # noqa: E402

NAMES = ["Tess", "AI 1", "Ann Lee", "AI 3", "AI 4", "AI 5", "AI 6"]


def finished(rules: Rules, seed: int, levels: str = "2") -> TableHand:
    """One hand between in-memory peers with random players; seat 0's table, finished."""
    n = rules.players
    setup = HandSetup(rules, (levels,) * n, first=2)
    deal = LocalDeal(seats=n, decks=rules.decks, hand_size=rules.hand_size, seed=seed,
                     first=2)
    tables = [TableHand(setup, deal.peers[s], RandomPlayer(seed * 10 + s)) for s in range(n)]
    deal.peers = tables  # type: ignore[assignment]  # the tables feed their decks
    deal.call_all("start")
    deal.run()
    table = tables[0]
    assert table.phase == "done" and table.result is not None
    return table


def reveals(table: TableHand) -> list[tuple[int, int, int]]:
    """(trick number, seat, call index) of every call falling, by the rules core."""
    assert table.public.sides is not None and table.starter is not None
    sides = Sides(table.rules, table.starter, table.public.sides.calls)
    out = []
    for number, trick in enumerate(table.public.tricks, 1):
        for k, faces in enumerate(trick.plays):
            before = sides.friends
            sides.on_play((trick.leader + k) % table.rules.players, faces)
            out += [(number, seat, i) for i, (was, seat) in
                    enumerate(zip(before, sides.friends, strict=True))
                    if was is None and seat is not None]
    return out


@pytest.mark.parametrize("players,seed", [(5, 7), (6, 3), (7, 5)])
def test_the_log_tells_the_call_then_each_reveal_right_after_its_play(players, seed) -> None:
    table = finished(Rules(players=players, mode="friends"), seed)
    names = NAMES[:players]
    lines = [e.line for e in table_events(table, names.__getitem__)]
    starter = table.starter
    assert starter is not None and table.public.sides is not None
    calls = table.public.sides.calls
    buried = next(i for i, line in enumerate(lines) if " buries " in line)
    assert lines[buried + 1].startswith(f"{names[starter]} calls {calls[0]}")
    told = [i for i, line in enumerate(lines) if "'s friend (" in line or "falls to" in line]
    expected = reveals(table)
    assert len(told) == len(expected) > 0
    for at, (number, seat, call) in zip(told, expected, strict=True):
        card = format_cards([calls[call].face], symbols=True)
        played = lines[at - 1]
        assert played.startswith(names[seat]) and card in played, (played, lines[at])
        if seat != starter:
            assert lines[at] == f"{names[seat]} is {names[starter]}'s friend ({calls[call]})"
        winner = next(line for line in lines[at:] if line.startswith("trick "))
        assert winner.startswith(f"trick {number} to ")


def test_the_end_of_hand_and_game_over_lines_name_seats_not_teams() -> None:
    table = finished(Rules(players=5, mode="friends"), 7, levels="A")
    res = table.result
    assert res is not None and res.levels_gained > 0
    log = SeatLog([], NAMES[:5], 5)
    line = log.over_line(1, table)
    side = " and ".join(NAMES[s] for s in res.side) if len(res.side) == 2 else None
    assert line.startswith("hand 1 over: the starter's side ")
    if side:
        assert f"the starter's side {side};" in line
    assert f"defenders took {res.defender_points} points" in line and "team" not in line
    assert "5 of 5 peers verified the hand" in line
    gaining = [NAMES[s] for s in res.gaining]
    over = log.game_over(table)  # every gaining seat was at A: each passes it and wins
    assert over == f"game over: {', '.join(gaining[:-1])} and {gaining[-1]} win"


def test_replay_tells_calls_reveals_sides_and_every_level() -> None:
    table = finished(Rules(players=6, mode="friends"), 3)
    names = NAMES[:6]
    steps = hand_story(table, names, 1)
    head = steps[0]
    starter = table.starter
    assert starter is not None and table.public.sides is not None and table.result
    who = f"seat {starter} ({names[starter]})"
    assert head[0].startswith(f"hand 1: starter {who}, find-a-friend, trump ")
    calls = table.public.sides.calls
    assert f"  {who} calls {calls[0]} and {calls[1]}" in head
    for number, seat, call in reveals(table):
        step = steps[number]  # the deal is step 0, trick n is step n
        assert step[0].startswith(f"  trick {number:2}: ")
        if seat != starter:
            assert f"    * seat {seat} ({names[seat]}) is {who}'s friend ({calls[call]})" \
                in step
    result = steps[len(table.tricks) + 1]
    res = table.result
    assert result[0].startswith(f"  defenders {res.defender_points} points")
    text = "\n".join(result)
    assert f"Starter's side: {who}" in text
    levels = next(line for line in result if line.startswith("  Levels: "))
    assert len(re.findall(r"\) 2(?: →|,|$)", levels)) == 6  # every player's level
    assert levels.count("→") == (len(res.gaining) if res.levels_gained else 0)
    assert f"Next starter: seat {res.next_starter} ({names[res.next_starter]})." in text
    assert "team" not in "\n".join(line for step in steps for line in step)
