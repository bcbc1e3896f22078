"""A table of real `PeerNode`s on in-memory links and a `Clock`: every byte goes through
the real handshake, framing, relay and session code; the test decides when each frame
arrives (a random delay per frame, in order on each link as TCP keeps it) and may tamper
with any frame a seat sends to another (withhold, replace, add), as a hostile peer would.

    net = MemNet(seed=3)
    net.tamper[(2, 0)] = withhold("deal")      # seat 2 keeps its deal keys from seat 0
    net.run()
    assert net.completed()
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable
from typing import Any

import msgpack
from twisted.internet.address import IPv4Address
from twisted.internet.testing import MemoryReactorClock

from tractor import Rules
from tractor.net.deck.envelope import Header, seal
from tractor.net.lobby.seating import TableBinding, seating_id
from tractor.net.mesh.link import PeerLink
from tractor.net.mesh.loopback import raw_public
from tractor.net.mesh.wire import PeerNode
from tractor.net.table.player import RandomPlayer
from tractor.net.table.session import GameSession

TABLE = b"memnet-table-001"
#: (frame) -> the frames to deliver instead (none: withheld; several: added).
Tamper = Callable[[bytes], list[bytes]]


def header(frame: bytes) -> list[Any] | None:
    """The header of a signed frame (None for hellos, proofs and have reports)."""
    try:
        data = msgpack.unpackb(frame, raw=False)
    except Exception:
        return None
    if isinstance(data, list) and len(data) == 3 and isinstance(data[0], list) \
            and len(data[0]) == 7:
        return data[0]
    return None


def kind_of(frame: bytes) -> str | None:
    h = header(frame)
    return h[5] if h else None


def body_of(frame: bytes) -> dict[str, Any]:
    return msgpack.unpackb(frame, raw=False)[1]


def resign(frame: bytes, key: Any, body: dict[str, Any]) -> bytes:
    """``frame`` with another body, signed again by ``key`` (its author's: a second version
    of the same message, an equivocation)."""
    h = msgpack.unpackb(frame, raw=False)[0]
    hdr = Header(h[1], h[2], h[3], h[4], h[5], tuple((c, v) for c, v in h[6]))
    return seal(hdr, body, key)


def withhold(kind: str, count: int | None = None,
             hand: int | None = None) -> Tamper:
    """Keep back frames of ``kind`` (the first ``count`` of them, default all)."""
    left = [count]

    def tamper(frame: bytes) -> list[bytes]:
        h = header(frame)
        if h and h[5] == kind and (hand is None or h[2] == hand) and (
                left[0] is None or left[0] > 0):
            if left[0] is not None:
                left[0] -= 1
            return []
        return [frame]
    return tamper


class _Transport:
    """One end of an in-memory connection: what a link writes goes through the net."""

    def __init__(self, net: MemNet, src: int, dst: int, pair: _Pair) -> None:
        self.net, self.src, self.dst, self.pair = net, src, dst, pair
        self.disconnecting = False

    def write(self, data: bytes) -> None:
        if not self.disconnecting:
            (n,) = struct.unpack("!I", data[:4])
            assert n == len(data) - 4  # Int32StringReceiver writes one frame per call
            self.net._send(self.pair, self.src, self.dst, data[4:])

    def writeSequence(self, data: list[bytes]) -> None:
        self.write(b"".join(data))

    def loseConnection(self) -> None:
        self.pair.close()

    abortConnection = loseConnection

    def getPeer(self) -> IPv4Address:
        return IPv4Address("TCP", f"198.18.0.{self.dst + 1}", 40000 + self.dst)

    getHost = getPeer


class _Pair:
    """A connection between two seats: the lower seat dialed the higher."""

    def __init__(self, net: MemNet, low: int, high: int) -> None:
        self.net, self.low, self.high = net, low, high
        self.links = {low: PeerLink(net.nodes[low], high), high: PeerLink(net.nodes[high])}
        self.transports = {low: _Transport(net, low, high, self),
                           high: _Transport(net, high, low, self)}
        self.closed = False
        self.last = {low: 0.0, high: 0.0}  #: latest delivery time scheduled per direction
        for seat in (low, high):
            self.links[seat].makeConnection(self.transports[seat])

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for t in self.transports.values():
            t.disconnecting = True
        for link in self.links.values():
            link.connectionLost(None)
        self.net._closed(self)


class MemNet:
    """``seats`` peers playing ``hands`` hands with random legal players."""

    def __init__(self, seed: int = 1, seats: int = 4, hands: int = 1,
                 delay: Callable[[random.Random], float] | None = None,
                 rules: Rules | None = None, redial: float = 1.0,
                 worker: float | None = None, seated: bool = False,
                 watchers: bool = True) -> None:
        """``seated``: the table id is a lobby's (`seating_id` of a made-up seating, which
        every node's watchers show: `Watchers.binding`), not `TABLE`; ``watchers`` False:
        of a table whose seats serve none (a passphrase's: its nodes refuse them)."""
        self.rng = random.Random(seed)
        #: Seconds each deck job takes in a node's worker (None: the decks work at once).
        self.worker = worker
        self.seed = seed
        self.clock = MemoryReactorClock()
        self.delay = delay or (lambda rng: rng.uniform(0.001, 0.02))
        self.tamper: dict[tuple[int, int], Tamper] = {}
        self.sent: dict[tuple[int, int], int] = {}  #: frames delivered per (src, dst)
        self.redial = redial
        self.rules = rules or Rules(players=seats)
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        self.keys = [Ed25519PrivateKey.from_private_bytes(bytes([seed % 256, s, 5]) + bytes(29))
                     for s in range(seats)]
        public = [k.public_key() for k in self.keys]
        self.binding = TableBinding(
            "memnet", tuple(f"tcp:127.0.0.1:{6000 + s}" for s in range(seats)),
            ("ai",) * seats, bytes([seed % 256]) * 16, watchers) if seated else None
        self.names = tuple(f"p{s}" for s in range(seats))
        # The id as a lobby makes it (`host_state`), not as a watcher checks it.
        self.table = TABLE if self.binding is None else seating_id(
            self.binding.name, self.rules, [raw_public(k) for k in self.keys],
            dict(enumerate(self.binding.addresses)), self.names, self.binding.kinds,
            self.binding.nonce, None, watchers)
        self.sessions = [GameSession(self.rules, self.table, s, self.keys[s], public,
                                     bytes([seed % 256, s, 7]) * 11,
                                     RandomPlayer(seed * 10 + s), max_hands=hands)
                         for s in range(seats)]
        self.nodes = [self._node(self.sessions[s]) for s in range(seats)]
        self.failures: list[Exception | None] = [None] * seats
        for s, node in enumerate(self.nodes):
            node.done.addErrback(lambda f, s=s: self.failures.__setitem__(s, f.value))
        self.pairs: dict[tuple[int, int], _Pair] = {}
        for low in range(seats):
            for high in range(low + 1, seats):
                self.pairs[(low, high)] = _Pair(self, low, high)

    def _node(self, session: GameSession) -> PeerNode:
        node = PeerNode(self.clock, session, [raw_public(k) for k in self.keys],
                        deck_runner=None if self.worker is None else self._worker())
        if self.binding is not None:
            node.watchers.binding, node.watchers.names = self.binding, self.names
            node.watchers.open = self.binding.watchers
        return node

    def _worker(self) -> Callable[[Callable[[], Any], Callable[[Any], None]], None]:
        """A node's deck worker: one job after another, each `worker` seconds of the clock."""
        free = [0.0]

        def run(job: Callable[[], Any], done: Callable[[Any], None]) -> None:
            assert self.worker is not None
            now = self.clock.seconds()
            free[0] = max(free[0], now) + self.worker
            self.clock.callLater(free[0] - now, lambda: done(job()))
        return run

    def _send(self, pair: _Pair, src: int, dst: int, frame: bytes) -> None:
        tamper = self.tamper.get((src, dst))
        frames = tamper(frame) if tamper is not None and header(frame) else [frame]
        for f in frames:
            now = self.clock.seconds()
            at = max(pair.last[src], now + self.delay(self.rng))
            pair.last[src] = at
            self.clock.callLater(at - now, self._deliver, pair, dst, f)

    def _deliver(self, pair: _Pair, dst: int, frame: bytes) -> None:
        if pair.closed:
            return
        src = pair.low if dst == pair.high else pair.high
        self.sent[(src, dst)] = self.sent.get((src, dst), 0) + 1
        pair.links[dst].dataReceived(struct.pack("!I", len(frame)) + frame)

    def _closed(self, pair: _Pair) -> None:
        # The lower seat dials again, as `ClientService` would.
        def redial() -> None:
            if self.pairs.get((pair.low, pair.high)) is pair and not self.over():
                self.pairs[(pair.low, pair.high)] = _Pair(self, pair.low, pair.high)
        self.clock.callLater(self.redial, redial)

    def over(self) -> bool:
        return all(n.done.called for n in self.nodes)

    def run(self, limit: float = 900.0, honest: list[int] | None = None,
            until: Callable[[], bool] | None = None, begin: bool = True) -> None:
        """Start every node (unless ``begin`` is False: they run already) and run the clock
        until the ``honest`` nodes (default all) are done (finished or halted), ``until``
        says so (the nodes then keep running), or ``limit`` seconds of table time passed."""
        watch = range(len(self.nodes)) if honest is None else honest
        if begin:
            for node in self.nodes:
                node.begin()
        while not all(self.nodes[s].done.called for s in watch):
            if until is not None and until():
                return
            calls = self.clock.getDelayedCalls()
            if not calls or self.clock.seconds() > limit:
                break
            step = min(c.getTime() for c in calls) - self.clock.seconds()
            self.clock.advance(max(step, 0.0))
        for node in self.nodes:
            node.stop()

    def restart(self, seat: int) -> None:
        """``seat`` crashes (its links and what is in flight to it are lost) and comes back
        from its journal as a fresh session and node, which the others reconnect to."""
        old = self.sessions[seat]
        journal = old.journal()
        for key, pair in list(self.pairs.items()):
            if seat in key:
                del self.pairs[key]  # no redial of the old pair: the new one replaces it
                pair.close()
        self.nodes[seat].stop()
        session = GameSession(self.rules, self.table, seat, self.keys[seat], old.public_keys,
                              bytes([self.seed % 256, seat, 7]) * 11,
                              RandomPlayer(self.seed * 10 + seat), max_hands=old.max_hands)
        frames = session.resume(journal)
        node = self._node(session)
        node.done.addErrback(lambda f: self.failures.__setitem__(seat, f.value))
        self.sessions[seat], self.nodes[seat] = session, node
        for other in range(len(self.nodes)):
            if other != seat:
                low, high = sorted((seat, other))
                self.pairs[(low, high)] = _Pair(self, low, high)
        node.begin(frames)

    def results(self, seats: list[int] | None = None) -> list[list[Any]]:
        seats = list(range(len(self.nodes))) if seats is None else seats
        return [[r.to_data() for r in self.sessions[s].results] for s in seats]

    def completed(self, seats: list[int] | None = None) -> bool:
        """Every one of ``seats`` finished its hands without a halt, with the same results."""
        seats = list(range(len(self.nodes))) if seats is None else seats
        results = self.results(seats)
        return (all(self.nodes[s].halted is None and self.nodes[s].done.called for s in seats)
                and all(r == results[0] for r in results) and bool(results[0]))
