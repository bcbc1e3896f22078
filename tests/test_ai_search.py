"""The search player (`tractor.ai.players.search`): always legal, skips forced moves, deterministic
for a seed and an iteration budget, and blind to the cards its seat cannot see."""

from __future__ import annotations

import random
import time

import pytest

from tractor import Hand, Rules
from tractor.actions import Draw, Play
from tractor.ai.players.search import (
    SearchStrategy,
    _RandomPolicy,
    follow_candidates,
    lead_candidates,
)
from tractor.ai.players.worlds import Knowledge
from tractor.follow import legal_follows
from tractor.phases import DEAL, DONE, PLAY
from tractor.rules import team_of


def new_hand(rules: Rules, seed: int) -> Hand:
    deck = [f for f in range(54) for _ in range(rules.decks)]
    rng = random.Random(seed)
    rng.shuffle(deck)
    starter = rng.randrange(rules.players)
    if rules.declaration == "auction":
        return Hand(rules, deck, ["2", "2"], first=starter)
    return Hand(rules, deck, ["2", "2"], first=starter, starter=starter,
                declarers=team_of(starter))


def play_out(hand: Hand, seats, declare_rounds: bool = True) -> Hand:
    """Play to the end; every action goes through `Hand.apply`, which refuses illegal ones."""
    n = hand.players
    while hand.phase != DONE:
        seat = hand.to_act()
        action = seats[seat].act(hand, seat)
        hand.apply(action)
        if declare_rounds and isinstance(action, Draw) and hand.phase == DEAL \
                and hand.drawn % n == 0:
            for i in range(n):
                s = (hand.first + i) % n
                decl = seats[s].declare(hand, s)
                if decl is not None:
                    hand.apply(decl)
    return hand


class Random:
    name = "random"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, hand: Hand, seat: int):
        return hand.random_action(self.rng, declare_chance=0.1)

    def declare(self, hand: Hand, seat: int):
        return None


CASES = [(Rules(), s) for s in range(14)] + [
    (Rules(declaration="auction"), 100), (Rules(declaration="auction"), 101),
    (Rules(players=6, decks=3), 102), (Rules(must_play_tractor=True), 103),
    (Rules(must_play_tractor=True, tractor_across_rank=False), 104),
    (Rules(rank_and_jokers_in_tractors=False), 105),
]


@pytest.mark.parametrize("rules,seed", CASES)
def test_search_never_plays_illegal(rules: Rules, seed: int) -> None:
    """Whole hands with one search seat (small budgets, random rollouts for speed) against
    random and heuristic seats: `Hand.apply` checks every action."""
    n = rules.players
    me = seed % n
    seats = [Random(seed * 10 + s) for s in range(n)]
    search = SearchStrategy(seed=seed, iterations=2, rollout=_RandomPolicy(seed))
    seats[me] = search
    if seed % 2:
        from tractor.ai.players.heuristic import HeuristicStrategy
        seats[(me + 1) % n] = HeuristicStrategy(seed)
    hand = play_out(new_hand(rules, seed), seats)
    assert hand.phase == DONE and hand.result is not None


def position(seed: int, tricks: int, in_trick: int) -> Hand:
    """A hand in play after ``tricks`` tricks and ``in_trick`` plays of the next one."""
    from tractor.ai.players.heuristic import HeuristicStrategy
    while True:
        hand = new_hand(Rules(), seed)
        h = HeuristicStrategy(seed)
        while hand.phase != DONE and (hand.phase != PLAY or len(hand.tricks) < tricks
                                      or len(hand.current) < in_trick):
            hand.apply(h.act(hand, hand.to_act()))
        if hand.phase != DONE:
            return hand
        seed += 1000  # that hand ended sooner (multi-card tricks): another deal


class Forbidden:
    name = "forbidden"

    def act(self, hand: Hand, seat: int):
        raise AssertionError("no rollout expected")

    def declare(self, hand: Hand, seat: int):
        return None


def test_single_legal_move_skips_search() -> None:
    found = 0
    for seed in range(40):
        hand = new_hand(Rules(), seed)
        rng = random.Random(seed)
        while hand.phase != DONE:
            seat = hand.to_act()
            if hand.phase == PLAY and hand.current:
                mine = hand.hands[seat]
                options = list(legal_follows(mine, hand.lead_format, hand.ladder))
                if len(options) == 1:
                    s = SearchStrategy(seed=1, rollout=Forbidden(), iterations=50)
                    t0 = time.thread_time()  # CPU time: a loaded machine does not change it
                    got = s.act(hand, seat)
                    assert time.thread_time() - t0 < 0.5
                    assert sorted(got.faces) == sorted(options[0])
                    assert s.last["worlds"] == 0
                    found += 1
            hand.apply(hand.random_action(rng, declare_chance=0.0))
        if found >= 5:
            break
    assert found >= 5


@pytest.mark.parametrize("tricks,in_trick", [(0, 0), (3, 1), (9, 2), (15, 0), (20, 3)])
def test_deterministic_with_seed_and_budget(tricks: int, in_trick: int) -> None:
    hand = position(tricks * 7 + in_trick, tricks, in_trick)
    seat = hand.to_act()
    a = SearchStrategy(seed=9, iterations=6).act(hand, seat)
    b = SearchStrategy(seed=9, iterations=6).act(hand.clone(), seat)
    s = SearchStrategy(seed=9, iterations=6)
    c = s.act(hand, seat)
    d = s.act(hand, seat)  # no hidden state carried from call to call
    assert a == b == c == d
    hand.apply(a)


@pytest.mark.parametrize("tricks,in_trick", [(0, 0), (2, 2), (6, 1), (11, 3), (18, 0)])
def test_no_information_leak(tricks: int, in_trick: int) -> None:
    """Two different worlds with the same knowledge (and a seat's hand in another order):
    the same decision."""
    hand = position(100 + tricks, tricks, in_trick)
    seat = hand.to_act()
    know = Knowledge.from_hand(hand, seat)
    w1 = know.sample(random.Random(1))
    w2 = know.sample(random.Random(2))
    assert w1.hands != w2.hands
    w2.hands[seat].reverse()
    a = SearchStrategy(seed=4, iterations=6).act(w1, seat)
    b = SearchStrategy(seed=4, iterations=6).act(w2, seat)
    c = SearchStrategy(seed=4, iterations=6).act(hand, seat)
    assert a == b == c


class RolloutClock:
    """The search's clock, moved by its rollouts: each move a rollout makes takes ``tick``
    seconds (the search reads `time.perf_counter` in its module: `install` puts `now` there
    instead). So the wall-clock cap is checked in moves, alike on a loaded machine and an
    idle one, and every rollout is counted: ``late`` are those begun past the cap."""

    def __init__(self, search: SearchStrategy, tick: float) -> None:
        self.inner, self.tick = search.rollout, tick
        self.cap = search.max_seconds
        self.now = 0.0
        self.rollouts = self.late = 0
        self.world: Hand | None = None  #: the world being played out (one per rollout)
        search.rollout = self

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr("tractor.ai.players.search.time",
                            type("Time", (), {"perf_counter": staticmethod(lambda: self.now)}))

    def act(self, hand: Hand, seat: int):
        if hand is not self.world:  # a rollout begins
            self.world = hand
            self.rollouts += 1
            self.late += self.now > self.cap
        self.now += self.tick
        return self.inner.act(hand, seat)

    def declare(self, hand: Hand, seat: int):
        return self.inner.declare(hand, seat)


def test_wall_clock_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    hand = position(5, 0, 0)
    seat = hand.to_act()
    s = SearchStrategy(seed=1, iterations=10_000, max_seconds=0.3)
    clock = RolloutClock(s, tick=0.0002)  # the cap: 1,500 moves, some twenty rollouts
    clock.install(monkeypatch)
    s.act(hand, seat)
    # At most one rollout past the cap (a world may be cut short: the first one too): the
    # one under way when the cap passed ends, and no other begins.
    assert clock.now > s.max_seconds and clock.rollouts > 1 and clock.late == 0
    assert s.last["worlds"] < 10_000


def test_levels() -> None:
    with pytest.raises(ValueError):
        SearchStrategy(level="expert")
    easy, normal, hard = (SearchStrategy(level=x) for x in ("easy", "normal", "hard"))
    assert easy.max_seconds < normal.max_seconds < hard.max_seconds
    assert easy.iterations < normal.iterations < hard.iterations
    assert SearchStrategy(iterations=3).max_seconds is None  # deterministic budget
    assert normal.name == "search"


def test_candidates_are_legal_and_pruned() -> None:
    """Leads and follows offered to the search are legal, distinct, and few."""
    for seed in range(6):
        hand = new_hand(Rules(), seed)
        rng = random.Random(seed)
        while hand.phase != DONE:
            seat = hand.to_act()
            if hand.phase == PLAY:
                know = Knowledge.from_hand(hand, seat)
                mine = list(know.obs.hand)
                if hand.current:
                    cands = follow_candidates(mine, hand.lead_format, hand.ladder, False, None)
                else:
                    cands = lead_candidates(mine, hand.ladder, know, None)
                assert 1 <= len(cands) <= 40
                assert len({tuple(sorted(c)) for c in cands}) == len(cands)
                for c in cands:
                    probe = hand.clone()
                    probe.apply(Play(seat, tuple(c)))
            hand.apply(hand.random_action(rng, declare_chance=0.0))


def test_other_phases_use_the_heuristic() -> None:
    """Burying and declaring are delegated; the result is legal."""
    hand = new_hand(Rules(), 3)
    s = SearchStrategy(seed=0, iterations=2)
    while hand.phase != PLAY:
        seat = hand.to_act()
        hand.apply(s.act(hand, seat))
    assert len(hand.buried) == 8


def test_the_first_world_keeps_the_wall_clock_cap_too(monkeypatch: pytest.MonkeyPatch) -> None:
    # Twelve seats: one world's rollouts of every candidate took over a second, and the
    # cap was only checked from the second world on.
    rules = Rules(players=12, decks=6)
    hand = new_hand(rules, 7)
    rng = random.Random(7)
    while hand.phase != PLAY:
        hand.apply(hand.random_action(rng, declare_chance=0.0))
    seat = hand.to_act()
    s = SearchStrategy(seed=1, iterations=10_000, max_seconds=0.001)
    clock = RolloutClock(s, tick=0.001)  # past the cap at the first rollout's second move
    clock.install(monkeypatch)
    got = s.act(hand, seat)
    assert clock.rollouts == 1 and clock.late == 0  # not a rollout of every candidate
    assert s.last["worlds"] == 0 and s.last["candidates"] > 1
    assert got == s.helper.act(hand, seat)  # no world finished: the heuristic's choice
