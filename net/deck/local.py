"""Several deck engines in one process, joined by in-memory message passing.

For tests and benchmarks: `LocalDeal` broadcasts every frame a peer produces to
every other peer, in FIFO order, and measures the CPU time each peer spends. A
``tamper(src, dst, frame)`` hook may rewrite, drop (return None) or duplicate
(return a list) a frame on its way from one peer to another, to play a cheat.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tractor.net.deck.config import DeckConfig
from tractor.net.deck.engine import Deck

from .errors import DeckError

Tamper = Callable[[int, int, bytes], bytes | list[bytes] | None]


class LocalDeal:
    def __init__(self, seats: int = 4, decks: int = 2, hand_size: int = 25, first: int = 0,
                 hand: int = 1, table: bytes = b"local-table-0001", seed: int = 0,
                 tamper: Tamper | None = None,
                 signing_keys: Sequence[Ed25519PrivateKey] | None = None) -> None:
        self.signing_keys = list(signing_keys or [
            Ed25519PrivateKey.from_private_bytes(bytes([seed % 256, s]) * 16)
            for s in range(seats)])
        self.config = DeckConfig(table=table, hand=hand, decks=decks, hand_size=hand_size,
                                 first=first,
                                 public_keys=tuple(k.public_key() for k in self.signing_keys))
        self.seeds = [bytes([seed % 256, s]) * 16 for s in range(seats)]
        self.peers = [Deck(self.config, s, self.signing_keys[s], self.seeds[s])
                      for s in range(seats)]
        self.tamper = tamper
        self.queue: deque[tuple[int, int, bytes]] = deque()
        self.cpu = [0.0] * seats
        self.sent_bytes = [0] * seats
        self.log: list[tuple[int, int, bytes]] = []  #: every delivery (src, dst, frame)

    def call(self, seat: int, method: str, *args: object) -> None:
        """Run one engine method on one peer and broadcast what it sends."""
        t0 = time.process_time()
        try:
            frames = getattr(self.peers[seat], method)(*args)
        except DeckError as exc:
            self.broadcast(seat, exc.outgoing)
            raise
        finally:
            self.cpu[seat] += time.process_time() - t0
        self.broadcast(seat, frames)

    def call_all(self, method: str, *args: object) -> None:
        for seat in range(len(self.peers)):
            self.call(seat, method, *args)

    def broadcast(self, src: int, frames: list[bytes]) -> None:
        for frame in frames:
            self.sent_bytes[src] += len(frame)
            for dst in range(len(self.peers)):
                if dst == src:
                    continue
                out = self.tamper(src, dst, frame) if self.tamper else frame
                if out is None:
                    continue
                for f in (out if isinstance(out, list) else [out]):
                    self.queue.append((src, dst, f))

    def run(self) -> None:
        """Deliver until no frame is in flight (errors propagate to the caller)."""
        while self.queue:
            src, dst, frame = self.queue.popleft()
            self.log.append((src, dst, frame))
            t0 = time.process_time()
            try:
                frames = self.peers[dst].receive(frame)
            except DeckError as exc:
                self.broadcast(dst, exc.outgoing)  # what the peer made before the refusal
                raise
            finally:
                self.cpu[dst] += time.process_time() - t0
            self.broadcast(dst, frames)

    # --- the usual course of a hand ------------------------------------------------------------

    def setup(self) -> None:
        """Shuffle with proofs, lock with proofs."""
        self.call_all("start")
        self.run()

    def deal_all(self, starter: int = 0) -> None:
        """Deal every round in draw order, then the talon to ``starter``."""
        n = len(self.peers)
        for r in range(self.config.hand_size):
            self.call_all("deal", list(range(r * n, (r + 1) * n)))
            self.run()
        self.call_all("give_talon", starter)
        self.run()
