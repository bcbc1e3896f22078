"""A watcher's replay (`Spectator`) in every way a table plays: the auction variant, find-a-
friend at five seats and six seats in teams, each one hand between in-memory peers, ends
with the seats' results, and its watch view draws at 80x24."""

from __future__ import annotations

import pytest
from memnet import TABLE, MemNet
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from tractor import Rules
from tractor.cli.screen.app import capture
from tractor.cli.screen.watch_screen import build_watch_app
from tractor.cli.seat.watcher_client import WatcherClient
from tractor.net.table.spectator import Spectator

# slow: a whole hand between in-memory peers for each variant.
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("rules", [Rules(declaration="auction"), Rules(players=5, mode="friends"),
                                   Rules(players=6)], ids=["auction", "friends", "six"])
def test_a_watcher_replays_every_variant_to_the_seats_results(rules: Rules) -> None:
    net = MemNet(seed=4, seats=rules.players, rules=rules)
    net.run()
    assert net.completed()
    watcher = Spectator(rules, TABLE, [k.public_key() for k in net.keys])
    client = WatcherClient(watcher, [])
    for frame in dict.fromkeys(net.sessions[rules.players - 1].journal()):
        if watcher.take(frame):
            client.changed()
    assert [r.to_data() for r in watcher.session.results] == net.results()[0]
    # The watch view of each variant at 80x24: the hand's summary, then the table.
    with create_pipe_input() as pipe:
        app = build_watch_app(client, input=pipe, output=DummyOutput())
        summary = capture(app, 80, 24)
        assert "Hand 1 is over." in summary and "(you)" not in summary
        app.tractor_view.close_panel()  # type: ignore[attr-defined]
        table = capture(app, 80, 24)
        assert all(f"seat {s}" in table for s in range(rules.players))
