"""A peer crashes in the middle of a hand and comes back from its journal: the game goes on,
and every peer ends with the same results and the same transcript (in memory; the frames in
flight to the crashed peer are lost, the others send theirs again as after a reconnect)."""

from __future__ import annotations

import pytest
from helpers import pump, sender, transcript

from tractor import Bid, Bury, NameTrump, Pass, Play, Rules, Show
from tractor.follow import random_follow, random_lead
from tractor.net.deck.local import LocalDeal
from tractor.net.table.player import WAIT, RandomPlayer
from tractor.net.table.session import GameSession

TABLE = b"resume-table-001"


def make(d: LocalDeal, seat: int, seed: int, hands: int,
         rules: Rules | None = None) -> GameSession:
    keys = [k.public_key() for k in d.signing_keys]
    return GameSession(rules or Rules(), TABLE, seat, d.signing_keys[seat], keys,
                       bytes([seed, seat]) * 16, RandomPlayer(seed * 10 + seat),
                       max_hands=hands)


def crash_and_resume(d: LocalDeal, seat: int, fresh: GameSession) -> None:
    """``seat`` crashes (the frames in flight to it are lost with the process) and comes
    back as ``fresh`` from its journal; the others send all of theirs again, as after a
    reconnect."""
    journal = d.peers[seat].journal()
    d.queue = type(d.queue)((s, t, f) for s, t, f in d.queue if t != seat)
    d.peers[seat] = fresh
    d.broadcast(seat, fresh.resume(journal))
    for s in range(len(d.peers)):
        if s != seat:
            for frame in [f for f in d.peers[s].journal() if sender(f) == s]:
                d.queue.append((s, seat, frame))


@pytest.mark.slow
@pytest.mark.parametrize("crash_after", [150, 900, 2600])
def test_a_crashed_peer_resumes_from_its_journal(crash_after):
    seed, hands = 3, 2
    d = LocalDeal(seats=4, seed=seed)
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


@pytest.mark.slow
@pytest.mark.parametrize("phase", ["bid", "show", "play"])
def test_a_peer_crashed_in_the_auction_variant_resumes(phase):
    # Its bids, the card it showed and the trump it named are read back from its journal.
    seed, hands, rules = 4, 1, Rules(declaration="auction")
    d = LocalDeal(seats=4, seed=seed)
    d.peers = [make(d, s, seed, hands, rules) for s in range(4)]
    d.call_all("start")
    while d.queue and d.peers[2].current.phase != phase:
        pump(d, 1)
    assert d.peers[2].current.phase == phase
    pump(d, 3)
    crash_and_resume(d, 2, make(d, 2, seed, hands, rules))
    pump(d)
    assert all(len(p.results) == hands for p in d.peers)
    assert all(p.results == d.peers[0].results for p in d.peers)
    assert all(transcript(p) == transcript(d.peers[0]) for p in d.peers)


class Person(RandomPlayer):
    """A person at a prompt: every decision waits (WAIT) until the test answers it."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.asked = 0

    def declare(self, view, options):
        return Pass(view.seat)

    def bury(self, view, count):
        self.asked += 1
        return WAIT

    def play(self, view):
        self.asked += 1
        return WAIT

    def bid(self, view, options):
        self.asked += 1
        return WAIT

    def show(self, view):
        self.asked += 1
        return WAIT

    def name(self, view):
        self.asked += 1
        return WAIT


def answer(session: GameSession, rng) -> list[bytes]:
    table = session.current
    faces = table.my_faces()
    seat = session.seat
    if table.waiting == "bid":
        options = table.public.bid_options()
        points = rng.choice([0, *options[:2]]) if options else 0
        return session.decide(Bid(seat, points) if points else Pass(seat))
    if table.waiting == "show":
        return session.decide(Show(seat, (rng.choice(faces),)))
    if table.waiting == "name":
        return session.decide(NameTrump(seat, rng.choice(["S", "H", "D", "C", None])))
    if table.waiting == "bury":
        return session.decide(Bury(seat, tuple(rng.sample(faces, table.rules.talon_size))))
    lead = table.lead if table.trick.plays else None
    pick = (random_follow(faces, lead, table.ladder, rng) if lead is not None
            else random_lead(faces, table.ladder, rng))
    return session.decide(Play(seat, tuple(pick)))


@pytest.mark.slow
@pytest.mark.parametrize("style", ["reveal", "auction"])
def test_a_person_resumed_after_a_crash_is_not_asked_again_for_moves_already_made(style):
    # In the auction variant the person's bids and card shown come first.
    import random

    seed, rules = 5, Rules(declaration=style)
    d = LocalDeal(seats=4, seed=seed)
    peers = [make(d, s, seed, 1, rules) for s in range(4)]
    peers[0].player = peers[0].current.player = Person(1)
    d.peers = peers
    d.call_all("start")
    rng = random.Random(9)
    made = 0
    while made < 8:  # the person makes 8 moves, then the process dies
        pump(d)
        assert peers[0].current.waiting is not None
        d.broadcast(0, answer(peers[0], rng))
        made += 1
    pump(d)
    before = [r.cards for r in peers[0].current.records if r.seat == 0]
    fresh = make(d, 0, seed, 1, rules)
    person = Person(2)
    fresh.player = fresh.current.player = person
    crash_and_resume(d, 0, fresh)
    pump(d)
    # Back where it was: waiting for the 9th move, asked once (not for the 8 already made).
    assert fresh.current.waiting is not None and person.asked == 1
    assert [r.cards for r in fresh.current.records if r.seat == 0] == before and before
    while not fresh.results:
        d.broadcast(0, answer(fresh, rng))
        pump(d)
    assert all(p.results == fresh.results for p in d.peers)
    assert all(transcript(p) == transcript(fresh) for p in d.peers)


@pytest.mark.slow
def test_a_peer_that_chatted_before_its_crash_resumes():
    seed, hands = 6, 1
    d = LocalDeal(seats=4, seed=seed)
    d.peers = [make(d, s, seed, hands) for s in range(4)]
    d.call_all("start")
    pump(d, 400)
    d.broadcast(2, d.peers[2].say("brb"))
    pump(d, 200)
    fresh = make(d, 2, seed, hands)
    crash_and_resume(d, 2, fresh)
    pump(d)
    assert all(len(p.results) == hands for p in d.peers)
    assert all(transcript(p) == transcript(fresh) for p in d.peers)
    assert all((2, "brb") in p.played[-1].chat for p in d.peers)
