"""The next hand's deck is shuffled and locked while this hand is played.

A deck engine may start before its first drawer is known (`Deck.set_first`); its heavy
work may run elsewhere (a `Runner`: here `StepRunner`, which runs a job when the test
says); `GameSession` starts the next hand's deck once the cards are in play. Checked here:
nothing of the play is judged before the first drawer is known; a runner changes no
deck and catches every cheat the inline checks catch, naming the cheater; the game is the
same game with or without shuffling ahead; and a peer that crashes at any step of the
next deck's set-up resumes from its journal.
"""

from __future__ import annotations

import os
import queue
import threading
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from helpers import sender, transcript
from memnet import TABLE as TABLE_OF_MEMNET
from memnet import MemNet, withhold
from test_deck_cheats import SEED, SHUFFLE_CHEATS, SMALL, Substitutes, forge
from twisted.internet.interfaces import IReactorThreads
from twisted.internet.testing import MemoryReactorClock
from zope.interface import implementer

from tractor import Rules
from tractor.net.deck import holdings
from tractor.net.deck.engine import Deck
from tractor.net.deck.envelope import Header, NoRoom, peek_hand, seal
from tractor.net.deck.errors import BadMessage, CheatDetected, DeckError, Replay
from tractor.net.deck.local import LocalDeal
from tractor.net.deck.progress import DeckStep
from tractor.net.deck.shuffle_proof import deck_hash
from tractor.net.deck.worker import DeckWorker
from tractor.net.mesh.intake import ProcessingFailure
from tractor.net.mesh.wire import PeerNode
from tractor.net.table import session as session_module
from tractor.net.table.errors import TableError
from tractor.net.table.player import RandomPlayer
from tractor.net.table.session import GameSession

TABLE = b"shuffle-ahead-01"


class StepRunner:
    """A deck `Runner` whose jobs wait until the test runs them (`step`), as a worker
    thread's would until it gets the processor."""

    def __init__(self) -> None:
        self.jobs: deque[tuple[Callable[[], Any], Callable[[Any], None]]] = deque()
        self.ran = 0

    def __call__(self, job: Callable[[], Any], done: Callable[[Any], None]) -> None:
        self.jobs.append((job, done))

    def step(self) -> None:
        job, done = self.jobs.popleft()
        self.ran += 1
        done(job())


# --- one deck -----------------------------------------------------------------------------------

def unknown_first(**config: Any) -> LocalDeal:
    return LocalDeal(**{**SMALL, **config, "first": None}, seed=SEED)


def with_runners(d: LocalDeal) -> list[StepRunner]:
    """A runner of its own for every peer of ``d``."""
    runners = [StepRunner() for _ in d.peers]
    for peer, runner in zip(d.peers, runners, strict=True):
        peer.runner = runner
    return runners


def drive(d: LocalDeal, runners: list[StepRunner] | None = None) -> list[tuple[int, Exception]]:
    """Deliver every frame and run every job (a job after the frames in flight, one peer
    at a time); refusals are recorded as (receiver, error)."""
    errors: list[tuple[int, Exception]] = []

    def at(seat: int, call: Callable[[], list[bytes]]) -> None:
        try:
            d.broadcast(seat, call())
        except DeckError as exc:
            d.broadcast(seat, exc.outgoing)
            errors.extend((seat, e) for e in [exc, *exc.also])

    while True:
        if d.queue:
            _src, dst, frame = d.queue.popleft()
            at(dst, partial(d.peers[dst].receive, frame))
            continue
        busy = [s for s, r in enumerate(runners or []) if r.jobs]
        if not busy:
            return errors
        for s in busy:
            runners[s].step()  # type: ignore[index]
            at(s, d.peers[s].poll)


def test_a_deck_is_shuffled_and_locked_before_its_first_drawer_is_known():
    d = unknown_first()
    d.setup()
    assert all(p.phase == DeckStep.READY and p.config.first is None for p in d.peers)
    assert all(o is None for p in d.peers for o in p.owner)
    # Three peers learn the first drawer and deal the first round; the fourth does not
    # know it yet: their keys wait there, unjudged.
    for s in (0, 1, 2):
        d.peers[s].set_first(2)
        d.call(s, "deal", [0, 1, 2, 3])
    assert drive(d) == []
    late = d.peers[3]
    assert all(not late.keys[p] for p in range(4))
    assert sum(len(q) for q in late._pending) == 3
    late.set_first(2)
    assert late.owner[:4] == [2, 3, 0, 1]
    d.broadcast(3, late.poll())
    d.call(3, "deal", [0, 1, 2, 3])
    assert drive(d) == []
    assert all(len(p.keys[q]) >= 3 for p in d.peers for q in range(4))
    # Each peer now holds the card it drew: seat 2 drew position 0.
    assert list(d.peers[2].hand()) == [0] and list(d.peers[3].hand()) == [1]


def test_the_first_drawer_is_named_once():
    d = unknown_first()
    d.peers[0].set_first(1)
    d.peers[0].set_first(1)  # the same again: nothing changes
    with pytest.raises(ValueError, match="seat 1 already"):
        d.peers[0].set_first(2)
    with pytest.raises(ValueError, match="no seat 4"):
        d.peers[1].set_first(4)


def test_nothing_of_the_play_is_judged_before_the_first_drawer_is_known():
    # A seat turns over a position that will be dealt, before the others know who draws
    # it: a peer that judged it then would accept what another refuses. It waits, and is
    # refused once the first drawer is known, naming its sender.
    d = unknown_first()
    d.setup()
    opener = d.peers[0]
    frame = forge(d, 0, "open", {"positions": [0], "keys": [opener._lock_key(0)]})
    d.queue.append((0, 3, frame))
    assert drive(d) == []
    late = d.peers[3]
    assert not late.public and late._pending[0]
    late.set_first(0)
    with pytest.raises(BadMessage, match="is dealt") as caught:
        late.poll()
    assert caught.value.seat == 0 and not late.public


def test_a_seat_that_moved_on_may_chat_before_the_first_drawer_is_known():
    # Seat 0 knows the first drawer (it finished the hand before) and chats; seat 3 does
    # not yet, and its copy of the first line is late (lost with a link). The lines wait,
    # before and after the first drawer is known: a peer that has them all applies them,
    # so none of them may be refused, let alone blamed on seat 0.
    d = unknown_first()
    d.setup()
    talker, late = d.peers[0], d.peers[3]
    talker.set_first(1)
    lines = [f for i in range(100) for f in talker.post({"chat": f"hi {i}"})]
    for frame in lines[1:50]:
        assert late.receive(frame) == []
    late.set_first(1)
    for frame in lines[50:]:
        assert late.receive(frame) == []
    assert len(late._pending[0]) == 99 and not late.inbox
    late.receive(lines[0])
    assert [data.text for _seat, data, _seq in late.inbox] == [f"hi {i}" for i in range(100)]


@pytest.mark.parametrize("bound", ["number", "bytes"])
def test_a_flood_too_far_ahead_is_refused_unread_blaming_nobody(monkeypatch, bound):
    # Beyond the bound a frame is refused unread (`NoRoom`: it comes again later), whoever
    # sent it: a peer that is further on applies it.
    d = unknown_first()
    d.setup()
    monkeypatch.setattr(holdings, "MAX_AHEAD" if bound == "number" else "MAX_AHEAD_BYTES",
                        10 if bound == "number" else 2000)
    talker, late = d.peers[0], d.peers[3]
    talker.set_first(1)
    lines = [f for i in range(30) for f in talker.post({"chat": f"line {i} " + "x" * 100})]
    taken = 0
    with pytest.raises(NoRoom):
        for frame in lines:
            late.receive(frame)
            taken += 1
    assert 0 < taken < 30 and len(late._pending[0]) == taken
    late.set_first(1)
    late.poll()  # the lines it kept are applied; the rest come again
    assert len(late.inbox) == taken
    for frame in lines[taken:]:
        late.receive(frame)
    assert len(late.inbox) == 30


def test_a_runner_gives_the_same_deck_and_does_the_heavy_work():
    inline = LocalDeal(**SMALL, seed=SEED)
    inline.setup()
    d = LocalDeal(**SMALL, seed=SEED)
    runners = with_runners(d)
    d.call_all("start")
    assert [p.phase for p in d.peers] == [DeckStep.SHUFFLE] * 4  # seat 0's shuffle is being made
    assert drive(d, runners) == []
    for peer, honest in zip(d.peers, inline.peers, strict=True):
        assert peer.phase == DeckStep.READY and peer.final == honest.final
        assert peer.shuffle_keys == honest.shuffle_keys and peer.locks == honest.locks
        assert not peer.working and not peer._results
    # Per peer: its own shuffle and lock made, the 3 others' shuffles and locks checked.
    assert [r.ran for r in runners] == [2 + 2 * 3] * 4


def test_a_seat_whose_message_is_being_checked_is_not_owed():
    d = LocalDeal(**SMALL, seed=SEED)
    runner = StepRunner()
    d.peers[3].runner = runner
    d.call_all("start")
    while d.queue:  # seat 0's shuffle reaches seat 3, whose worker has not checked it yet
        _src, dst, frame = d.queue.popleft()
        d.broadcast(dst, d.peers[dst].receive(frame))
        if dst == 3:
            break
    peer = d.peers[3]
    assert peer.working and peer.step == 0
    assert peer.waiting_for() == []  # this peer waits on its own worker, not on seat 0
    runner.step()
    d.broadcast(3, peer.poll())
    assert peer.step == 1 and peer.waiting_for() == [1]


def cheating_run_with_runners(seat: int, cls: type[Deck]) -> tuple[
        LocalDeal, list[tuple[int, Exception]]]:
    """`test_deck_cheats.cheating_run`, every peer with a runner: ``seat`` plays ``cls``."""
    d = LocalDeal(**SMALL, seed=SEED)
    d.peers[seat] = cls(d.config, seat, d.signing_keys[seat], d.seeds[seat])
    runners = with_runners(d)
    d.call_all("start")
    return d, drive(d, runners)


@pytest.mark.parametrize("cls", SHUFFLE_CHEATS, ids=lambda c: c.__name__)
def test_shuffle_cheats_are_caught_by_the_runner(cls: type[Deck]):
    d, errors = cheating_run_with_runners(1, cls)
    assert sorted(dst for dst, _ in errors) == [0, 2, 3]
    for _dst, exc in errors:
        assert type(exc) is CheatDetected and exc.seat == 1, exc
        assert "shuffle proof fails" in str(exc) and exc.frames  # its signed frame shows it
    for s in (0, 2, 3):
        assert (d.peers[s].phase, d.peers[s].step, len(d.peers[s].decks)) == (
            DeckStep.SHUFFLE, 1, 2)


class WrongLock(Deck):
    """Locks one position with another key than the one it publishes."""

    def _send(self, kind: str, body: dict[str, Any]) -> list[bytes]:
        if kind == "lock":
            body = {**body, "deck": [body["deck"][1], body["deck"][0], *body["deck"][2:]]}
        return super()._send(kind, body)


def test_a_lock_cheat_is_caught_by_the_runner():
    d, errors = cheating_run_with_runners(2, WrongLock)
    assert sorted(dst for dst, _ in errors) == [0, 1, 3]
    for _dst, exc in errors:
        assert type(exc) is CheatDetected and exc.seat == 2 and "lock proof fails" in str(exc)
    assert all((p.phase, p.step) == (DeckStep.LOCK, 2) for s, p in enumerate(d.peers) if s != 2)


def test_a_malformed_shuffle_checked_by_the_runner_is_the_senders_fault():
    d = LocalDeal(**SMALL, seed=SEED)
    runners = with_runners(d)
    bad = forge(d, 0, "shuffle", {"deck": "not a deck", "key": b"", "proof": [],
                                  "input": deck_hash(d.peers[0].decks[-1])})
    for s in (1, 2, 3):
        d.peers[s].start()
        d.queue.append((0, s, bad))
    errors = drive(d, runners)
    assert sorted(dst for dst, _ in errors) == [1, 2, 3]
    for _dst, exc in errors:
        assert type(exc) is BadMessage and exc.seat == 0 and "expected 54 points" in str(exc)


# --- a game of sessions -------------------------------------------------------------------------

def make(d: LocalDeal, seat: int, seed: int, hands: int) -> GameSession:
    keys = [k.public_key() for k in d.signing_keys]
    return GameSession(Rules(), TABLE, seat, d.signing_keys[seat], keys,
                       bytes([seed, seat]) * 16, RandomPlayer(seed * 10 + seat),
                       max_hands=hands)


def table(seed: int, hands: int, runners: bool = False) -> tuple[LocalDeal, list[StepRunner]]:
    d = LocalDeal(seats=4, seed=seed)
    d.peers = [make(d, s, seed, hands) for s in range(4)]
    steps = [StepRunner() for _ in range(4)] if runners else []
    for session, runner in zip(d.peers, steps, strict=False):
        session.runner = runner
    return d, steps


def play(d: LocalDeal, runners: list[StepRunner],
         until: Callable[[], bool] | None = None, every: int = 20) -> None:
    """Deliver frames one by one, running a job of each busy runner after every ``every``
    frames or when nothing is in flight (the workers run beside the table), until nothing
    is left or ``until()``."""
    delivered = 0
    while not (until and until()):
        if d.queue and (delivered := delivered + 1) % every:
            _src, dst, frame = d.queue.popleft()
            try:
                d.broadcast(dst, d.peers[dst].receive(frame))
            except Replay:
                pass  # sent again after a reconnect
            continue
        busy = [s for s, r in enumerate(runners) if r.jobs]
        if not busy and not d.queue:
            return
        for s in busy:
            runners[s].step()
            d.broadcast(s, d.peers[s].poll())


def finished(seed: int, hands: int, runners: bool = False) -> list[GameSession]:
    d, steps = table(seed, hands, runners)
    d.call_all("start")
    play(d, steps)
    return d.peers


@pytest.fixture(scope="module")
def reference() -> list[GameSession]:
    """Three hands shuffled ahead, every deck's work done at once."""
    return finished(7, 3)


@pytest.mark.slow
def test_the_next_deck_is_ready_before_the_hand_ends(reference):
    d, steps = table(7, 3)
    d.call_all("start")
    play(d, steps, until=lambda: d.peers[0].current.phase == "audit")
    for s in d.peers:
        assert s.hand_no == 0 and s.upcoming is not None
        assert s.upcoming.phase == DeckStep.READY and s.upcoming.config.first is None
    upcoming = [s.upcoming for s in d.peers]
    play(d, steps, until=lambda: all(s.hand_no == 1 for s in d.peers))
    for s, deck in zip(d.peers, upcoming, strict=True):
        assert s.current.deck is deck and deck.config.first == s.first
    play(d, steps)
    assert [s.results for s in d.peers] == [s.results for s in reference]
    # Not past the last hand: its deck is not shuffled for nothing.
    assert all(s.upcoming is None and len(s.results) == 3 for s in d.peers)


@pytest.mark.slow
def test_the_game_is_the_same_without_shuffling_ahead(reference, monkeypatch):
    monkeypatch.setattr(session_module, "SHUFFLE_AHEAD_FROM", frozenset())
    plain = finished(7, 3)
    assert [s.results for s in plain] == [s.results for s in reference]
    for a, b in zip(plain, reference, strict=True):
        assert [h.deck.final for h in a.played] == [h.deck.final for h in b.played]


@pytest.mark.slow
def test_sessions_with_runners_play_the_same_game(reference):
    peers = finished(7, 3, runners=True)
    assert [s.results for s in peers] == [s.results for s in reference]
    for a, b in zip(peers, reference, strict=True):
        assert [h.deck.deck_order() for h in a.played] == [
            h.deck.deck_order() for h in b.played]


def where_upcoming(phase: str, step: int | None = None) -> Callable[[GameSession], bool]:
    def at(s: GameSession) -> bool:
        deck = s.upcoming
        return deck is not None and deck.phase == phase and step in (None, deck.step)
    return at


#: Where the crashed peer stands: the next deck at each step of its set-up, and the
#: first moment of the hand it was shuffled for.
CRASH_POINTS = {
    "next deck not started": lambda s: s.current.phase == "play" and s.upcoming is None,
    "next deck: shuffle 0": where_upcoming(DeckStep.SHUFFLE, 0),
    "next deck: shuffle 1": where_upcoming(DeckStep.SHUFFLE, 1),
    "next deck: shuffle 3": where_upcoming(DeckStep.SHUFFLE, 3),
    "next deck: lock 0": where_upcoming(DeckStep.LOCK, 0),
    "next deck: lock 1": where_upcoming(DeckStep.LOCK, 1),
    "next deck: lock 3": where_upcoming(DeckStep.LOCK, 3),
    "next deck ready": where_upcoming(DeckStep.READY),
    "the hand it was shuffled for": lambda s: s.hand_no == 1,
}


#: Only with a runner does a peer stand at its own step: its move is being made.
OWN_STEPS = {
    "its own shuffle being made": where_upcoming(DeckStep.SHUFFLE, 2),
    "its own lock being made": where_upcoming(DeckStep.LOCK, 2),
}
CRASHES = [(point, False) for point in CRASH_POINTS] + [
    (point, True) for point in [*CRASH_POINTS, *OWN_STEPS]]


@pytest.mark.slow
@pytest.mark.parametrize(("point", "runners"), CRASHES,
                         ids=[f"{p}-{'runner' if r else 'inline'}" for p, r in CRASHES])
def test_a_peer_crashed_during_the_next_decks_set_up_resumes(reference, point, runners):
    # Two hands: every crash point lies between the first hand and the second (the third
    # hand of the reference game adds 2 s a case and nothing to check).
    crashed, seed, hands = 2, 7, 2
    d, steps = table(seed, hands, runners)
    d.call_all("start")
    at = {**CRASH_POINTS, **OWN_STEPS}[point]
    play(d, steps, until=lambda: at(d.peers[crashed]))
    assert at(d.peers[crashed]), f"never reached: {point}"
    journal = d.peers[crashed].journal()
    if d.peers[crashed].upcoming is not None:  # the journal holds the next deck's frames
        assert set(d.peers[crashed].upcoming.frames()) <= set(journal)
    # The crash: the frames in flight to it and its worker's jobs are lost.
    d.queue = type(d.queue)((s, t, f) for s, t, f in d.queue if t != crashed)
    fresh = make(d, crashed, seed, hands)
    if runners:
        steps[crashed] = StepRunner()
        fresh.runner = steps[crashed]
    d.peers[crashed] = fresh
    d.broadcast(crashed, fresh.resume(journal))
    for s in range(4):  # the others reconnect and send all of theirs again
        if s != crashed:
            d.queue.extend((s, crashed, f) for f in d.peers[s].journal() if sender(f) == s)
    play(d, steps)
    # Its player is asked again from where the journal ends (a fresh random player: the
    # later hands differ from the reference); every peer agrees on all of them.
    assert all(len(s.results) == hands for s in d.peers)
    assert all(s.results == d.peers[0].results for s in d.peers)
    assert all(transcript(s) == transcript(d.peers[0]) for s in d.peers)
    if point == "the hand it was shuffled for":  # the crash came after the first hand
        assert d.peers[0].results[0] == reference[0].results[0]


def test_frames_the_next_deck_made_go_out_with_an_error_of_this_hands_deck(monkeypatch):
    # One poll: the next deck makes a frame (signed, chained), then this hand's deck
    # refuses a message. The frame is carried in the error, for the node to send.
    d = LocalDeal(seats=4, seed=5)
    session = make(d, 0, 5, 2)

    class Upcoming:
        def poll(self) -> list[bytes]:
            return [b"the next deck's shuffle"]

    def refuses() -> list[bytes]:
        raise BadMessage(2, "a message this deck refuses")

    session.upcoming = Upcoming()  # type: ignore[assignment]
    session.current.deck.runner = StepRunner()
    monkeypatch.setattr(session.current.deck, "poll", refuses)
    with pytest.raises(BadMessage) as caught:
        session.poll()
    assert caught.value.outgoing == [b"the next deck's shuffle"]


# --- peers on in-memory links, each with a deck worker that takes its time -----------------------

@pytest.mark.slow
def test_a_table_whose_deck_workers_are_slow_plays_on_and_blames_nobody():
    net = MemNet(seed=3, hands=3, worker=0.5)  # each proof or check: half a second
    ahead: list[list[int]] = []
    for session in net.sessions:
        ahead.append(started := [])
        make = session._new_deck

        def recorded(hand_no: int, first: int | None, make=make, started=started) -> Deck:
            if first is None:  # made before its first drawer is known: ahead of its hand
                started.append(hand_no)
            return make(hand_no, first)

        session._new_deck = recorded  # type: ignore[method-assign]
    net.run()
    assert net.completed(), [str(n.halted) for n in net.nodes]
    for node, session, started in zip(net.nodes, net.sessions, ahead, strict=True):
        assert node.errors == [] and not node.complaints and not node.ballots
        assert started == [1, 2]  # hands 1 and 2 were shuffled ahead
        assert all(h.deck.runner is not None for h in session.played)  # all by the worker


@pytest.mark.slow
def test_a_cheat_in_the_next_hands_shuffle_halts_the_table_naming_the_cheater():
    net = MemNet(seed=3, hands=2, worker=0.2)
    cheater = net.sessions[1]
    made = cheater._new_deck

    def cheating_deck(hand_no: int, first: int | None) -> Deck:
        deck = made(hand_no, first)
        if hand_no == 1:
            deck.__class__ = Substitutes  # its next shuffle puts a card of its own in
        return deck

    cheater._new_deck = cheating_deck  # type: ignore[method-assign]
    net.run(honest=[0, 2, 3])
    for s in (0, 2, 3):
        halted = net.nodes[s].halted
        assert isinstance(halted, CheatDetected) and halted.seat == 1, halted
        assert "shuffle proof fails" in str(halted)
        # Caught by the worker while the hand before was still being played.
        assert net.sessions[s].hand_no == 0 and net.sessions[s].upcoming is not None


def test_a_failure_after_a_deck_job_halts_the_node_as_after_a_frame():
    # Not a refused frame but a bug (here: made up) while the session goes on after its
    # worker's answer: the node's state can no longer be trusted, so it halts, naming it.
    net = MemNet(seed=3, hands=2, worker=0.2)
    session = net.sessions[2]

    def broken() -> list[bytes]:
        raise RuntimeError("a bug in the session")

    session.poll = broken  # type: ignore[method-assign]
    net.run(honest=[2])
    halted = net.nodes[2].halted
    assert isinstance(halted, ProcessingFailure) and halted.from_seat is None
    assert "after the deck worker's job: RuntimeError: a bug in the session" in str(halted)


@pytest.mark.slow
@pytest.mark.parametrize("path", ["relayed", "straight"])
def test_a_frame_too_far_ahead_drops_only_its_authors_link(path):
    # Seat 1 signs a message numbered far past anything it sent. Relayed by seat 0 (as
    # any seat relays what it holds), seat 2 refuses it without dropping seat 0's link:
    # seat 0 is not at fault. Sent straight by seat 1, the link it came on drops.
    net = MemNet(seed=3, hands=1)
    views = tuple((0, bytes(32)) for _ in range(4))
    far = seal(Header(TABLE_OF_MEMNET, 0, 1, 5000, "app", views), {"data": {"chat": "x"}},
               net.keys[1])
    src = 0 if path == "relayed" else 1
    added = [False]

    def add_far(frame: bytes) -> list[bytes]:
        if added[0]:
            return [frame]
        added[0] = True
        return [frame, far]

    net.tamper[(src, 2)] = add_far
    net.run()
    assert net.completed() and added[0]
    refused = [e for e in net.nodes[2].errors if isinstance(e, NoRoom)]
    assert len(refused) == (path == "straight"), net.nodes[2].errors
    assert all(n.errors == [] for s, n in enumerate(net.nodes) if s != 2)


class OpensADealtCard(Deck):
    """Once its deck is locked, turns over position 0 (a card that will be dealt): refused
    by every peer, but only once the first drawer is known, as the hand starts."""

    def _act(self) -> list[bytes]:
        out = super()._act()
        if self.phase == DeckStep.READY and not getattr(self, "opened", False) and not out:
            self.opened = True
            out += self._send("open", {"positions": [0], "keys": [self._lock_key(0)]})
        return out


@pytest.mark.slow
def test_a_bad_message_of_the_next_hand_found_as_it_starts_shows_that_hands_evidence():
    net = MemNet(seed=3, hands=2)
    cheater = net.sessions[1]
    made = cheater._new_deck

    def cheating_deck(hand_no: int, first: int | None) -> Deck:
        deck = made(hand_no, first)
        if hand_no == 1:
            deck.__class__ = OpensADealtCard
        return deck

    cheater._new_deck = cheating_deck  # type: ignore[method-assign]
    sent: dict[int, list[bytes]] = {s: [] for s in range(4)}
    for s in (0, 2, 3):
        node, send = net.nodes[s], net.nodes[s]._broadcast
        node._broadcast = lambda frames, s=s, send=send: (  # type: ignore[method-assign]
            sent[s].extend(frames), send(frames))[1]
    net.run(honest=[0, 2, 3])
    for s in (0, 2, 3):
        node, session = net.nodes[s], net.sessions[s]
        halted = node.halted
        assert isinstance(halted, BadMessage) and halted.seat == 1, halted
        assert "is dealt" in str(halted)
        # Found as hand 1 started: its evidence is of hand 1, not of the frame of hand 0
        # that ended the hand.
        assert session.hand_no == 1 and node.evidence
        assert {peek_hand(f) for f in node.evidence} == {1}
        # Every frame this peer made went out, the ones made with the refusal too.
        mine = [e.frame for h in [*session.played, session.current]
                for e in h.deck._chains[s].frames]
        assert set(mine) <= set(sent[s])


class ThreadReactor:
    """What `DeckWorker` needs of a reactor: answers come back through `callFromThread`."""

    def __init__(self) -> None:
        self.answers: queue.Queue[tuple[Callable[..., Any], tuple[Any, ...]]] = queue.Queue()
        self.triggers: dict[int, Callable[[], None]] = {}

    def addSystemEventTrigger(self, phase: str, event: str, f: Callable[[], None]) -> int:
        self.triggers[len(self.triggers)] = f
        return len(self.triggers) - 1

    def removeSystemEventTrigger(self, trigger: int) -> None:
        del self.triggers[trigger]

    def callFromThread(self, f: Callable[..., Any], *args: Any) -> None:
        self.answers.put((f, args))


def test_the_deck_worker_runs_jobs_in_order_in_its_thread():
    reactor = ThreadReactor()
    worker = DeckWorker(reactor)
    seen: list[Any] = []

    def job(i: int) -> tuple[int, str, int]:
        return i, threading.current_thread().name, os.getpriority(
            os.PRIO_PROCESS, threading.get_native_id())

    for i in range(3):
        worker.run(partial(job, i), seen.append)
    worker.run(lambda: 1 // 0, seen.append)  # a job that fails anyway: the thread goes on
    worker.run(partial(job, 3), seen.append)
    for _ in range(5):  # the answers come back on the reactor's thread, in order
        f, args = reactor.answers.get(timeout=10)
        f(*args)
    assert [s[0] for s in seen[:3]] == [0, 1, 2] and seen[4][0] == 3
    assert isinstance(seen[3], ZeroDivisionError)
    assert all(s[1] == "tractor-deck" for s in seen if isinstance(s, tuple))
    # At the process's priority: a thread preempted while holding the interpreter lock
    # would hold up the reactor behind it.
    assert all(s[2] == os.getpriority(os.PRIO_PROCESS, 0) for s in seen if isinstance(s, tuple))
    for stop in list(reactor.triggers.values()):  # the reactor stops: later jobs dropped
        stop()
    worker.run(partial(job, 9), seen.append)
    worker._thread.join(timeout=10)
    assert not worker._thread.is_alive() and len(seen) == 5


def test_a_deck_worker_stopped_before_the_reactor_ends_its_thread_and_trigger():
    # A process may play game after game: each node's worker goes with the node.
    reactor = ThreadReactor()
    worker = DeckWorker(reactor)
    assert len(reactor.triggers) == 1
    worker.stop()
    worker.stop()  # twice: harmless
    worker._thread.join(timeout=10)
    assert not worker._thread.is_alive() and reactor.triggers == {}
    seen: list[Any] = []
    worker.run(lambda: 1, seen.append)
    assert reactor.answers.empty() and seen == []


@implementer(IReactorThreads)
class ThreadedMemoryReactor(MemoryReactorClock):
    """A memory reactor that says it has threads (so a node starts its `DeckWorker`) and
    keeps count of its shutdown triggers."""

    def addSystemEventTrigger(self, phase: str, event: str, f: Any, *args: Any,
                              **kw: Any) -> Any:
        super().addSystemEventTrigger(phase, event, f, *args, **kw)
        return (phase, event, (f, args, kw))

    def removeSystemEventTrigger(self, trigger: Any) -> None:
        phase, event, entry = trigger
        self.triggers[phase][event].remove(entry)

    def callFromThread(self, f: Callable[..., Any], *args: Any, **kw: Any) -> None:
        self.callLater(0, f, *args, **kw)


def test_a_stopped_node_leaves_no_deck_worker_behind():
    reactor = ThreadedMemoryReactor()
    d = LocalDeal(seats=4, seed=5)
    session = make(d, 0, 5, 1)
    node = PeerNode(reactor, session, [b"k" * 32] * 4)
    worker = node._worker
    assert worker is not None and worker._thread.is_alive()
    assert session.runner is not None and len(reactor.triggers["during"]["shutdown"]) == 1
    node.stop()
    worker._thread.join(timeout=10)
    assert not worker._thread.is_alive() and reactor.triggers["during"]["shutdown"] == []


@pytest.mark.slow
def test_a_lie_in_a_verdict_halts_every_honest_peer_naming_the_liar_and_no_one_else():
    # Seat 1 revokes (found only by the audit); seat 3 signs a clean verdict. A peer may
    # find seat 3's verdict in the same call in which it signs its own: that one must
    # still leave, or the others would wait for it and name this honest peer.
    from test_table import LiesInVerdict, Revoker

    net = MemNet(seed=4, hands=1)
    net.tamper[(0, 2)] = withhold("audit")  # seat 2 gets it late, relayed: verdicts first
    net.sessions[1].current.player = Revoker(41)
    net.sessions[3].current.__class__ = LiesInVerdict
    net.run(honest=[0, 1, 2], limit=600)
    assert net.sessions[1].current.player.revoked is not None
    for s in (0, 1, 2):
        halted = net.nodes[s].halted
        assert isinstance(halted, TableError) and halted.seat == 3, (s, halted)
        session = net.sessions[s]
        assert all(net.nodes[s].relay.held(0, s, seq) is not None
                   for seq in range(len(session.current.deck.mine())))
