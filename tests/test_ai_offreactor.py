"""The AI decides off the reactor: its table is answered WAIT, the decision is worked out
in an executor, and the answer comes back through `GameSession.decide` as a person's
does. Answers the table no longer waits for are dropped; a failing strategy falls back to
a random legal decision; stopping the worker interrupts a search at once; and on a real
reactor the timers keep running while AIs search (a subprocess: `bench/ai_stall.py`)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import MemNode, StepExecutor, pump
from twisted.internet.defer import CancelledError

from tractor import Rules
from tractor.actions import Play
from tractor.ai.hosting.executors import ThreadExecutor
from tractor.ai.hosting.peer import StrategyPlayer
from tractor.ai.players.search import SearchStrategy
from tractor.ai.players.strategies import make_strategy
from tractor.game import Game
from tractor.net.deck.local import LocalDeal
from tractor.net.mesh.intake import ProcessingFailure
from tractor.net.table.errors import TableError
from tractor.net.table.player import RandomPlayer
from tractor.net.table.session import GameSession

ROOT = Path(__file__).resolve().parent.parent
AI = 1  #: the seat whose decisions are stepped by hand


class Table:
    """Four peers on an in-memory deal: heuristic AIs deciding at once, except seat `AI`,
    which decides in a `StepExecutor` through a `MemNode`."""

    def __init__(self, seed: int, hands: int = 1, stepped: bool = True, strategy=None,
                 player: StrategyPlayer | None = None) -> None:
        self.rules = Rules()
        self.deal = LocalDeal(seats=4, seed=seed)
        self.executor = player.executor if player is not None else StepExecutor()
        self.players = [
            StrategyPlayer(strategy if strategy is not None and s == AI
                           else make_strategy("heuristic", seed=seed + s), self.rules, seed + s,
                           self.executor if stepped and s == AI else None)
            for s in range(4)]
        if player is not None:
            self.players[AI] = player
        self.sessions = [self.session(s, seed, hands) for s in range(4)]
        self.node = MemNode(self.deal, self.sessions[AI])
        self.deal.peers = list(self.sessions)
        if stepped:
            self.deal.peers[AI] = self.node
            self.players[AI].serve(self.node)

    def session(self, s: int, seed: int, hands: int) -> GameSession:
        return GameSession(self.rules, self.deal.config.table, s, self.deal.signing_keys[s],
                           self.deal.config.public_keys, bytes([seed, s]) * 16,
                           self.players[s], max_hands=hands)

    @property
    def table(self):
        return self.sessions[AI].current

    def until_thinking(self) -> None:
        """Deliver frames until the stepped AI works on a decision."""
        self.deal.run()
        assert self.executor.queue, self.table.phase

    def play_out(self, limit: int = 100_000) -> None:
        for _ in range(limit):
            self.deal.run()
            if not self.executor.queue:
                return
            self.executor.step()
        raise AssertionError("the table did not settle")


def records(session: GameSession) -> list[list[tuple]]:
    return [[(r.seat, r.cards) for r in hand.records] for hand in session.played]


@pytest.mark.slow
def test_an_ai_that_decides_in_a_worker_plays_the_same_game_as_one_deciding_at_once():
    inline = Table(seed=4, hands=2, stepped=False)
    inline.deal.call_all("start")
    inline.deal.run()
    t = Table(seed=4, hands=2)
    t.deal.call_all("start")
    t.until_thinking()
    # The table holds for the AI's answer, as for a person's, and nothing was decided yet.
    assert t.table.waiting in ("declare", "bury", "play")
    assert t.node.sent == []
    t.play_out()
    assert all(len(s.results) == 2 for s in t.sessions)
    assert [s.results for s in t.sessions] == [inline.sessions[0].results] * 4
    assert records(t.sessions[0]) == records(inline.sessions[0])
    assert all(h.violations == [] for s in t.sessions for h in s.played if h.phase == "done")
    # Every decision of the seat went through the worker and came back by `decide`.
    plays = sum(1 for hand in t.sessions[AI].played for r in hand.records if r.seat == AI)
    assert plays > 20 and t.executor.ran >= plays and t.node.sent


@pytest.mark.slow
def test_frames_keep_coming_in_while_the_ai_thinks():
    t = Table(seed=5)
    t.deal.call_all("start")
    t.until_thinking()
    kind = t.table.waiting
    # Another seat chats while the AI works: the AI's table takes it at once.
    t.deal.broadcast(2, t.sessions[2].say("take your time"))
    t.deal.run()
    assert (2, "take your time") in t.table.chat
    assert t.table.waiting == kind and len(t.executor.queue) == 1  # still one decision
    t.play_out()
    assert all(len(s.results) == 1 for s in t.sessions)


@pytest.mark.slow
def test_an_answer_for_a_decision_already_made_is_never_applied_to_the_next():
    t = Table(seed=6)
    t.deal.call_all("start")
    t.until_thinking()
    while t.table.waiting != "play":
        t.executor.step()
        t.until_thinking()
    trick = len(t.table.tricks)
    # The decision is taken out of the worker's hands (as a resumed or rebound session
    # would): the table moves on, and the next trick asks this seat to play again.
    t.deal.broadcast(AI, t.sessions[AI].decide(RandomPlayer(1).play(t.table.view())))
    t.deal.run()
    assert t.table.waiting == "play" and len(t.table.tricks) > trick
    before = list(t.node.sent)
    held = t.table.my_faces()
    assert len(t.executor.queue) == 1
    t.executor.step()  # the stale answer: dropped
    assert t.node.sent == before and t.table.waiting == "play"
    assert t.table.my_faces() == held
    assert len(t.executor.queue) == 1  # the decision the table waits for now
    t.executor.step()
    assert t.node.sent != before
    t.play_out()
    assert all(len(s.results) == 1 for s in t.sessions)
    assert all(h.violations == [] for s in t.sessions for h in s.played)


def test_no_answer_reaches_a_table_that_halted_meanwhile():
    t = Table(seed=7)
    t.deal.call_all("start")
    t.until_thinking()
    t.node._halt(TableError(2, "a move on signed evidence"))
    t.executor.step()
    assert t.node.sent == [] and t.table.waiting is not None
    assert not t.executor.queue


@pytest.mark.slow
def test_an_answer_goes_to_the_table_the_session_goes_on_at_not_the_old_one():
    t = Table(seed=8)
    t.deal.call_all("start")
    t.until_thinking()
    # The game goes on at a new table: the same player now serves another peer.
    other = Table(seed=9, player=t.players[AI])
    other.deal.call_all("start")
    other.deal.run()
    assert other.table.waiting is not None
    t.executor.step()  # the old table's decision: dropped, and the new one's is started
    assert t.node.sent == [] and other.node.sent == []
    assert len(t.executor.queue) == 1
    other.play_out()
    assert all(len(s.results) == 1 for s in other.sessions)
    assert t.node.sent == [] and t.table.waiting is not None


@pytest.mark.slow
def test_a_resumed_session_gets_its_own_answer_not_the_one_for_the_session_before():
    t = Table(seed=12)
    t.deal.call_all("start")
    t.until_thinking()
    while t.table.waiting != "play":
        t.executor.step()
        t.until_thinking()
    crashed = t.sessions[AI]
    # The seat comes back from its journal (same keys, master seed and player).
    resumed = t.session(AI, 12, 1)
    owed = resumed.resume(crashed.journal())
    t.node.session = resumed
    t.deal.broadcast(AI, owed)
    pump(t.deal)  # what it sends again is a replay for the others
    assert resumed.current.waiting == "play"
    assert len(t.executor.queue) == 1  # still the crashed session's decision
    before = list(t.node.sent)
    t.executor.step()  # dropped
    assert t.node.sent == before and resumed.current.waiting == "play"
    assert len(t.executor.queue) == 1  # the resumed session's own decision
    t.executor.step()
    assert t.node.sent != before
    t.sessions[AI] = resumed
    t.play_out()
    assert all(len(s.results) == 1 for s in t.sessions)
    assert all(h.violations == [] for s in t.sessions for h in s.played)
    assert crashed.current.waiting == "play"  # nothing ever went to the old session


class Broken:
    """A strategy that fails at every play (a bug): the table must go on regardless."""

    name = "broken"

    def __init__(self) -> None:
        self.inner = make_strategy("heuristic", seed=3)
        self.failures = 0

    def declare(self, hand, seat):
        return self.inner.declare(hand, seat)

    def act(self, hand, seat):
        if hand.phase == "play":
            self.failures += 1
            raise RuntimeError("a bug in the strategy")
        return self.inner.act(hand, seat)


@pytest.mark.slow
def test_a_strategy_that_fails_in_the_worker_falls_back_to_a_random_legal_play_logged():
    broken = Broken()
    t = Table(seed=10, strategy=broken)
    events = []
    from twisted.logger import Logger
    t.players[AI].log = Logger(observer=events.append)
    t.deal.call_all("start")
    t.deal.run()
    t.play_out()
    assert all(len(s.results) == 1 for s in t.sessions)
    assert all(h.violations == [] for s in t.sessions for h in s.played)
    assert broken.failures >= 10
    failed = [e for e in events if "log_failure" in e]
    assert len(failed) == broken.failures
    assert "a bug in the strategy" in str(failed[0]["log_failure"].value)


def test_a_table_failure_after_the_ai_answers_halts_the_peer_with_the_reason():
    t = Table(seed=11)
    t.deal.call_all("start")
    t.until_thinking()

    def boom(answer):
        raise KeyError("a bug in the table")

    t.sessions[AI].decide = boom
    t.executor.step()
    assert isinstance(t.node.halted, ProcessingFailure)


class FakeReactor:
    """Just enough reactor for a `ThreadExecutor` in a test: calls from the worker thread
    are queued and run by `pump` on the test's thread."""

    def __init__(self) -> None:
        self.calls: list = []
        self.lock = threading.Lock()
        self.triggers: list = []

    def callFromThread(self, f, *a, **kw):
        with self.lock:
            self.calls.append((f, a, kw))

    def addSystemEventTrigger(self, phase, event, f):
        self.triggers.append((phase, event, f))
        return len(self.triggers)

    def removeSystemEventTrigger(self, trigger):
        self.triggers[trigger - 1] = None

    def pump(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self.lock:
                calls, self.calls = self.calls, []
            for f, a, kw in calls:
                f(*a, **kw)
            if calls:
                return
            time.sleep(0.005)


def a_play_to_search(seed: int = 3):
    game = Game(Rules(), seed)
    hand = game.hand
    import random
    rng = random.Random(seed)
    while hand.phase != "play" or hand.current:
        hand.apply(hand.random_action(rng))
    return hand, hand.to_act()


def test_a_thread_executor_answers_on_the_reactor_thread():
    reactor = FakeReactor()
    executor = ThreadExecutor(reactor)
    got = []
    where = []
    d = executor.run(lambda: where.append(threading.current_thread().name) or 41 + 1)
    d.addCallback(lambda v: got.append((v, threading.current_thread() is
                                        threading.main_thread())))
    reactor.pump(5.0)
    assert got == [(42, True)] and where and where[0] != threading.main_thread().name
    failed = []
    executor.run(lambda: 1 / 0).addErrback(failed.append)
    reactor.pump(5.0)
    assert failed and failed[0].check(ZeroDivisionError)
    executor.stop()
    assert reactor.triggers == [None]


class CountedRollouts:
    """The search's rollout policy, counted: ``rollouts`` begun, ``after_interrupt`` of them
    begun once its interrupt was set; ``under_way`` is set at the third (well into the
    search). Counting work, not seconds, keeps the checks alike on a loaded machine."""

    def __init__(self, search: SearchStrategy) -> None:
        self.search, self.inner = search, search.rollout
        self.rollouts = self.after_interrupt = 0
        self.world = None  #: the world being played out (one per rollout)
        self.under_way = threading.Event()
        search.rollout = self

    def act(self, hand, seat):
        if hand is not self.world:  # a rollout begins
            self.world = hand
            self.rollouts += 1
            self.after_interrupt += self.search.interrupt is not None and \
                self.search.interrupt.is_set()
            if self.rollouts == 3:
                self.under_way.set()
        return self.inner.act(hand, seat)

    def declare(self, hand, seat):
        return self.inner.declare(hand, seat)


def test_stopping_the_executor_interrupts_a_long_search_and_drops_its_answer():
    hand, seat = a_play_to_search()
    search = SearchStrategy("hard", seed=1, iterations=10**6, max_seconds=60.0)
    counted = CountedRollouts(search)
    reactor = FakeReactor()
    executor = ThreadExecutor(reactor)
    player = StrategyPlayer(search, Rules(), 1, executor)
    assert search.interrupt is executor.interrupt
    outcome = []
    executor.run(lambda: search.act(hand, seat)).addBoth(outcome.append)
    assert counted.under_way.wait(10)  # well into the search
    reactor.triggers[0][2]()  # the reactor shuts down: returns once the worker has stopped
    # The search stops at its next rollout's end: at most the one it was starting as the
    # interrupt came begins after it (a search that did not stop would run its 60 s).
    assert counted.after_interrupt <= 1, counted.after_interrupt
    assert outcome and outcome[0].check(CancelledError)
    assert search.last["worlds"] < 10**6
    reactor.pump(0.2)  # the interrupted search's play arrives, and is dropped
    assert len(outcome) == 1
    failed = []
    executor.run(lambda: 1).addErrback(failed.append)
    assert failed  # nothing runs after the stop
    assert player.executor is executor


def test_a_search_interrupted_returns_a_legal_play_at_once():
    hand, seat = a_play_to_search(4)
    search = SearchStrategy("hard", seed=1, iterations=10**6, max_seconds=60.0)
    counted = CountedRollouts(search)
    search.interrupt = threading.Event()
    search.interrupt.set()
    play = search.act(hand, seat)
    assert counted.rollouts <= 1 and search.last["worlds"] == 0  # at once: one rollout
    assert isinstance(play, Play)
    hand.clone().apply(play)


@pytest.mark.e2e
@pytest.mark.parametrize("mode", ["thread"])
def test_timers_keep_running_while_ai_peers_search_on_a_real_reactor(mode):
    # Four search AIs in one process (as `tractor ai --seats 4`) on loopback TCP. Before
    # this change every play stopped the reactor for the whole search (0.8 s at normal).
    proc = subprocess.run(
        [sys.executable, "-P", str(ROOT / "bench" / "ai_stall.py"), "--mode", mode,
         "--level", "normal", "--plays", "6", "--tick", "0.02"],
        capture_output=True, text=True, timeout=300, cwd="/")
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["errors"] == [] and out["plays"] >= 6
    assert out["decision_max_s"] > 0.5  # the searches did take their time
    # The timer ran all along the plays' searches, a tick at most a few switch intervals
    # late (the interpreter lock changes hands every 5 ms); inline it was 800 ms late.
    assert out["play_ticks"] > 100
    assert out["play_stall_max_ms"] < 250, out
