"""Shared test helpers: card shorthands, decks built to order, card conservation, an AI's
worker stepped by hand and a peer over an in-memory deal."""

from __future__ import annotations

import threading
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

import msgpack
from twisted.internet.defer import CancelledError, Deferred

from tractor import Hand, Rules
from tractor.cards import format_cards, parse_faces
from tractor.net.deck.errors import DeckError, Replay
from tractor.net.deck.local import LocalDeal
from tractor.net.mesh.intake import ProcessingFailure
from tractor.net.table.errors import TableError
from tractor.net.table.session import GameSession


def F(text: str) -> list[int]:
    return parse_faces(text)


def T(text: str) -> tuple[int, ...]:
    return tuple(parse_faces(text))


def build_deck(rules: Rules, hands: dict[int, str], talon: str = "", first: int = 0) -> list[int]:
    """A deck dealing ``hands[seat]`` (the first cards that seat draws) to each seat, with
    ``talon`` at the start of the talon; the remaining cards fill up in face order."""
    n = rules.players
    pool = Counter({f: rules.decks for f in range(54)})
    chosen = {s: F(hands.get(s, "")) for s in range(n)}
    tail = F(talon)
    for cards in [*chosen.values(), tail]:
        for f in cards:
            assert pool[f] > 0, f"more than {rules.decks} of {format_cards([f])}"
            pool[f] -= 1
    rest = sorted(pool.elements())
    for s in range(n):
        need = rules.hand_size - len(chosen[s])
        assert need >= 0, f"seat {s} is given too many cards"
        chosen[s] += rest[:need]
        del rest[:need]
    tail += rest
    assert len(tail) == rules.talon_size
    return [chosen[(first + i) % n][i // n] for i in range(n * rules.hand_size)] + tail


def all_cards(h: Hand) -> Counter:
    """Every card of a hand wherever it is now: hands, undealt deck or talon, tricks, buried."""
    cards: Counter = Counter()
    for hand in h.hands:
        cards.update(hand)
    if h.phase == "deal":
        cards.update(h.deck[h.drawn:])
    elif h.phase in ("declare", "bid", "show", "name", "redeal"):
        cards.update(h.talon)
    for t in h.tricks:
        for p in t.plays:
            cards.update(p)
    for p in h.current:
        cards.update(p)
    cards.update(h.buried)
    return cards


def conserved(h: Hand) -> bool:
    return all_cards(h) == Counter(h.deck)


def pump(d: LocalDeal, limit: int | None = None) -> None:
    """Deliver frames (at most ``limit``); a frame received twice, as after a reconnect, is
    ignored."""
    steps = 0
    while d.queue and (limit is None or steps < limit):
        src, dst, frame = d.queue.popleft()
        steps += 1
        try:
            out = d.peers[dst].receive(frame)
        except Replay:
            continue
        d.broadcast(dst, out)


def sender(frame: bytes) -> int:
    """The seat a frame claims to come from."""
    return msgpack.unpackb(frame, raw=False)[0][3]


def transcript(session: GameSession) -> list[list[bytes]]:
    """Per hand, the chain hash of every seat's messages."""
    return [[c.hashes[-1] for c in hand.deck._chains]
            for hand in [*session.played, session.current]]


class StepExecutor:
    """An AI's executor (`tractor.ai.hosting.executors.Executor`) whose work runs only when the test
    says: `step` runs the oldest piece and fires its Deferred, as the reactor would."""

    def __init__(self) -> None:
        self.interrupt = threading.Event()
        self.queue: deque[tuple[Callable[[], Any], Deferred[Any]]] = deque()
        self.ran = 0

    def run(self, work: Callable[[], Any]) -> Deferred[Any]:
        d: Deferred[Any] = Deferred()
        if self.interrupt.is_set():
            d.errback(CancelledError())
        else:
            self.queue.append((work, d))
        return d

    def step(self) -> None:
        work, d = self.queue.popleft()
        self.ran += 1
        try:
            result = work()
        except Exception as exc:
            d.errback(exc)
        else:
            d.callback(result)

    def stop(self) -> None:
        self.interrupt.set()
        while self.queue:
            self.queue.popleft()[1].cancel()


class MemNode:
    """The part of a `PeerNode` an AI's `StrategyPlayer.serve` uses, as a `LocalDeal` peer:
    frames in and out through the deal, ``on_change`` after each, a halt kept."""

    def __init__(self, deal: LocalDeal, session: GameSession) -> None:
        self.deal, self.session = deal, session
        self.halted: Exception | None = None
        self.on_change: Callable[[], None] | None = None
        self.sent: list[bytes] = []  #: frames sent outside `receive` (the AI's answers)

    def start(self) -> list[bytes]:
        return self._changed(self.session.start())

    def receive(self, frame: bytes) -> list[bytes]:
        return self._changed(self.session.receive(frame))

    def send(self, frames: list[bytes]) -> None:
        if self.halted is None:
            self.sent += frames
            self.deal.broadcast(self.session.seat, frames)
            self._changed([])

    def _halt(self, exc: Exception) -> None:
        self.halted = exc
        self._changed([])

    def move_failed(self, exc: Exception, what: str) -> None:
        """As `PeerNode.move_failed`: a protocol error sends what was made, then halts;
        anything else halts as a failure."""
        if isinstance(exc, DeckError | TableError):
            self.send(exc.outgoing)
            self._halt(exc)
        else:
            self._halt(ProcessingFailure(None, exc, what))

    def _changed(self, frames: list[bytes]) -> list[bytes]:
        if self.on_change is not None:
            self.on_change()
        return frames
