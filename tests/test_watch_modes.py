"""A watcher's replay (`Spectator`) in every way a table plays: the auction variant, find-a-
friend at five seats and six seats in teams, each one hand between in-memory peers, ends
with the seats' results."""

from __future__ import annotations

import pytest
from memnet import TABLE, MemNet

from tractor import Rules
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
    for frame in dict.fromkeys(net.sessions[rules.players - 1].journal()):
        watcher.take(frame)
    assert [r.to_data() for r in watcher.session.results] == net.results()[0]
