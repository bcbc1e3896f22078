"""Several hands in a row between peers: results carry over, every peer agrees."""

from __future__ import annotations

import pytest

from tractor import Rules
from tractor.net.deck.local import LocalDeal
from tractor.net.table.player import RandomPlayer
from tractor.net.table.session import GameSession
from tractor.scoring import LEVELS


def sessions(max_hands: int, seed: int = 1) -> list[GameSession]:
    d = LocalDeal(seats=4, seed=seed)  # keys and in-memory delivery
    keys = [k.public_key() for k in d.signing_keys]
    peers = [GameSession(Rules(), b"session-table-01", s, d.signing_keys[s], keys,
                         bytes([seed, s]) * 16, RandomPlayer(seed * 10 + s),
                         max_hands=max_hands) for s in range(4)]
    d.peers = peers
    d.call_all("start")
    d.run()
    return peers


@pytest.mark.slow
def test_three_hands_carry_levels_and_starters_and_agree():
    peers = sessions(3)
    first = peers[0]
    assert len(first.results) == 3
    assert all(p.results == first.results for p in peers)
    assert all(p.levels == first.levels for p in peers)
    # Levels moved as the results say, starting from 2 and 2.
    levels = [0, 0]
    for r in first.results:
        levels[r.gaining_team] += r.levels_gained
    assert [LEVELS.index(x) for x in first.levels] == levels
    # Each later hand started with the previous result's starter and declarers.
    assert first.starter == first.results[-1].next_starter
    assert first.declarers == first.results[-1].next_declarers
    assert first.hand_no >= 2


def test_every_play_is_told_once_as_the_table_applies_it():
    # What a soak run times (`peer_process`): each play, the moment it is applied.
    d = LocalDeal(seats=4, seed=2)
    keys = [k.public_key() for k in d.signing_keys]
    peers = [GameSession(Rules(), b"session-table-02", s, d.signing_keys[s], keys,
                         bytes([2, s]) * 16, RandomPlayer(20 + s), max_hands=2)
             for s in range(4)]
    told: list[list[tuple[int, int, int]]] = [[] for _ in peers]
    for seat, peer in enumerate(peers):
        def timed(hand: int, trick: int, play: int, seat: int = seat) -> None:
            public = peers[seat].current.public
            assert hand == peers[seat].hand_no
            assert 4 * len(public.tricks) + len(public.current) == 4 * trick + play + 1
            told[seat].append((hand, trick, play))
        peer.on_play = timed
    d.peers = peers
    d.call_all("start")
    d.run()
    for seat, peer in enumerate(peers):
        hands = [h for h in peer.played if h.phase == "done"]
        assert len(hands) == 2
        assert told[seat] == [(h.deck.config.hand, t, p) for h in hands
                              for t in range(len(h.tricks)) for p in range(4)]
