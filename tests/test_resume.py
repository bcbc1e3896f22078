"""A peer crashes in the middle of a hand and comes back from its journal: the game goes on,
and every peer ends with the same results and the same transcript (in memory; the frames in
flight to the crashed peer are lost, the others send theirs again as after a reconnect)."""

from __future__ import annotations

import pytest
from helpers import pump, sender, transcript

from tractor import Rules
from tractor.net.deck.local import LocalDeal
from tractor.net.session import GameSession
from tractor.net.table import RandomPlayer

TABLE = b"resume-table-001"


def make(d: LocalDeal, seat: int, seed: int, hands: int) -> GameSession:
    keys = [k.public_key() for k in d.signing_keys]
    return GameSession(Rules(), TABLE, seat, d.signing_keys[seat], keys,
                       bytes([seed, seat]) * 16, RandomPlayer(seed * 10 + seat), rounds=4,
                       max_hands=hands)


@pytest.mark.parametrize("crash_after", [150, 900, 2600])
def test_a_crashed_peer_resumes_from_its_journal(crash_after):
    seed, hands = 3, 2
    d = LocalDeal(seats=4, rounds=4, seed=seed)
    d.peers = [make(d, s, seed, hands) for s in range(4)]
    d.call_all("start")
    pump(d, crash_after)
    crashed = d.peers[2]
    journal = crashed.journal()
    where = (crashed.hand_no, crashed.current.phase)
    # The crash: everything in flight to seat 2 is lost with the process.
    d.queue = type(d.queue)((s, t, f) for s, t, f in d.queue if t != 2)
    fresh = make(d, 2, seed, hands)
    d.peers[2] = fresh
    d.broadcast(2, fresh.resume(journal))
    assert (fresh.hand_no, fresh.current.phase) == where or fresh.hand_no >= where[0]
    # The others reconnect and send everything of theirs again.
    for s in (0, 1, 3):
        own = [f for f in d.peers[s].journal() if sender(f) == s]
        for frame in own:
            d.queue.append((s, 2, frame))
    pump(d)
    assert all(len(p.results) == hands for p in d.peers)
    assert all(p.results == d.peers[0].results for p in d.peers)
    assert all(transcript(p) == transcript(d.peers[0]) for p in d.peers)

