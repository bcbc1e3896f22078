"""1,000 seeded complete hands of random legal play with the default rules: no error, cards
conserved, and the points accounted for at every hand end."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tractor import Game
from tractor.rules import team_of
from tractor.scoring import points_of, talon_multiplier

HANDS = 1000
CHUNK = 100


def check_hand_end(h) -> None:
    rules = h.rules
    deck = Counter(f for f in range(54) for _ in range(rules.decks))
    assert Counter(h.deck) == deck
    # Conservation: every card was played in a trick or buried, none left in hand.
    seen = Counter(h.buried)
    for t in h.tricks:
        for p in t.plays:
            seen.update(p)
    assert seen == deck and all(x == [] for x in h.hands)
    assert len(h.buried) == rules.talon_size
    # Points: defenders' card points + the declarers' side (their tricks and the buried
    # cards) = all card points, once penalties and the talon bonus are taken out.
    r = h.result
    defenders = sum(t.points for t in h.tricks if team_of(t.winner) != h.declarers)
    declarers = sum(t.points for t in h.tricks if team_of(t.winner) == h.declarers)
    declarers += points_of(h.buried)
    assert r.defender_points - h.penalties - r.talon_bonus == defenders
    assert defenders + declarers == rules.total_points == 200
    last = h.tricks[-1]
    if team_of(last.winner) != h.declarers:
        assert r.talon_bonus == points_of(h.buried) * talon_multiplier(len(last.plays[0]))
    else:
        assert r.talon_bonus == 0
    penalties = sum(t.penalty * (1 if team_of(t.leader) == h.declarers else -1)
                    for t in h.tricks)
    assert h.penalties == penalties


@pytest.mark.parametrize("start", range(0, HANDS, CHUNK))
def test_random_hands(start):
    throws = 0
    for seed in range(start, start + CHUNK):
        g = Game(seed=seed)
        rng = random.Random(seed)
        while g.hand_no == 0:
            g.apply(g.random_action(rng))
        h = g.hands_played[0]
        assert h.phase == "done" and h.result is not None
        check_hand_end(h)
        throws += sum(t.attempted is not None for t in h.tricks)
    assert throws > 0  # failed throws do happen in random play
