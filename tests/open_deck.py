"""A deck without cryptography, for running thousands of tables' hands in a test.

`OpenDeck` keeps the interface and the message schedule of `tractor.net.deck.engine.Deck`
that `tractor.net.table.hand.TableHand` uses (deal rounds released key by key, reveals ordered
against table messages by message number, the talon turned over by every seat, the
burial, the audit and verdicts), but a "key" is just a seat's consent and every peer
reads the cards from a shared order once the consents are in. So the table's rules can be
checked against the rules core on many deals; `tests/test_equivalence.py` also runs a
share of its hands on the real deck, to keep this double honest.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import msgpack

from tractor.net.deck.dealing import Reveal
from tractor.net.deck.progress import DeckStep
from tractor.net.table.messages import TableMessage, table_message


@dataclass(frozen=True)
class OpenConfig:
    seats: int
    decks: int
    hand_size: int
    first: int
    hand: int = 0  #: the hand number, as `DeckConfig` has it

    @property
    def size(self) -> int:
        return 54 * self.decks

    @property
    def dealt(self) -> int:
        return self.seats * self.hand_size


class OpenDeck:
    """One peer's view of an open deck (see the module docstring)."""

    def __init__(self, config: OpenConfig, me: int, order: list[int]) -> None:
        self.config = config
        self.me = me
        self.watching = False  #: always a seat's deck (a watcher replays the real deck)
        self._order = order  #: the physical card at every position (shared by the peers)
        self.phase = "setup"
        n = config.seats
        self.owner: list[int | None] = [
            (config.first + p) % n if p < config.dealt else None for p in range(config.size)]
        self.keys: list[dict[int, bool]] = [{} for _ in range(config.size)]
        self.cards: dict[int, int] = {}
        self.played: set[int] = set()
        self.buried: list[int] = []
        self.public: set[int] = set()
        self.reveals: list[Reveal] = []
        self.inbox: list[tuple[int, TableMessage, int]] = []
        self.audited: set[int] = set()
        self.verdicts: dict[int, dict[str, Any]] = {}
        self.starter: int | None = None
        self.exchanger: int | None = None  #: holds the kitty (no kitty theft here)
        self.kitty = SimpleNamespace(pending=None, thefts=[])  #: no theft, ever
        self.burials: list[list[int]] = []
        self._sent = 0
        self._applying = -1
        self._accepted = [0] * n  #: messages applied per seat (`accepted`)

    # --- frames --------------------------------------------------------------------------------

    def _send(self, kind: str, body: dict[str, Any]) -> list[bytes]:
        seq = self._sent
        self._sent += 1
        self._apply(self.me, seq, kind, body)
        return [msgpack.packb([self.me, seq, kind, body])]

    def receive(self, frame: bytes) -> list[bytes]:
        seat, seq, kind, body = msgpack.unpackb(frame, strict_map_key=False)
        self._apply(seat, seq, kind, body)
        return []

    def _apply(self, seat: int, seq: int, kind: str, body: dict[str, Any]) -> None:
        self._applying = seq
        getattr(self, f"_on_{kind}")(seat, body)
        self._accepted[seat] += 1

    def accepted(self, seat: int) -> int:
        """How many of ``seat``'s messages this deck took (what a stall is judged on)."""
        return self._accepted[seat]

    def start(self) -> list[bytes]:
        self.phase = DeckStep.READY
        return []

    def journaled_ahead(self) -> list[tuple[str, dict[str, Any]]]:
        return []

    # --- moves ---------------------------------------------------------------------------------

    def deal(self, positions: list[int], now: float = 0.0) -> list[bytes]:
        mine = [p for p in positions if self.owner[p] != self.me and self.me not in self.keys[p]]
        return self._send("keys", {"positions": mine}) if mine else []

    def _on_keys(self, seat: int, body: dict[str, Any]) -> None:
        for p in body["positions"]:
            assert self.owner[p] is not None and self.owner[p] != seat
            self.keys[p][seat] = True
            self._learn(p)

    def _learn(self, p: int) -> None:
        have = set(self.keys[p]) | ({self.me} if self.owner[p] == self.me else set())
        if len(have) == self.config.seats:
            self.cards[p] = self._order[p]

    def give_talon(self, starter: int, now: float = 0.0) -> list[bytes]:
        self.starter = self.exchanger = starter
        talon = list(range(self.config.dealt, self.config.size))
        for p in talon:
            self.owner[p] = starter
        out = self.deal(talon)
        for p in talon:
            self._learn(p)
        return out

    def reveal(self, positions: list[int], purpose: str = "play") -> list[bytes]:
        return self._send("reveal", {"positions": list(positions), "purpose": purpose})

    def _on_reveal(self, seat: int, body: dict[str, Any]) -> None:
        for p in body["positions"]:
            assert self.owner[p] == seat and p not in self.played, (seat, p)
            self.keys[p][seat] = True
            self.cards[p] = self._order[p]
            if body["purpose"] == "play":
                self.played.add(p)
            self.reveals.append(Reveal(seat, p, self._order[p], body["purpose"], self._applying))

    def open_public(self, positions: list[int]) -> list[bytes]:
        return self._send("open", {"positions": list(positions)})

    def _on_open(self, seat: int, body: dict[str, Any]) -> None:
        for p in body["positions"]:
            self.keys[p][seat] = True
            self.public.add(p)
            if len(self.keys[p]) == self.config.seats:
                self.cards[p] = self._order[p]

    def bury(self, positions: list[int]) -> list[bytes]:
        return self._send("bury", {"positions": list(positions)})

    def _on_bury(self, seat: int, body: dict[str, Any]) -> None:
        assert seat == self.starter and not self.buried
        self.buried = list(body["positions"])
        self.burials.append(self.buried)

    def post(self, data: dict[str, Any]) -> list[bytes]:
        return self._send("app", {"data": data})

    def _on_app(self, seat: int, body: dict[str, Any]) -> None:
        message = table_message(self.config.size).read(body["data"], f"seat {seat}")
        self.inbox.append((seat, message, self._applying))

    def audit(self, now: float = 0.0) -> list[bytes]:
        return [] if self.me in self.audited else self._send("audit", {})

    def _on_audit(self, seat: int, body: dict[str, Any]) -> None:
        self.audited.add(seat)
        if len(self.audited) == self.config.seats:
            self.cards = dict(enumerate(self._order))
            self.phase = DeckStep.DONE

    def verdict(self, violations: list[Any]) -> list[bytes]:
        return self._send("verdict", {"violations": [list(v) for v in violations]})

    def _on_verdict(self, seat: int, body: dict[str, Any]) -> None:
        self.verdicts[seat] = {"violations": body["violations"]}

    # --- reading -------------------------------------------------------------------------------

    def is_shown(self, seat: int, p: int) -> bool:
        return seat in self.keys[p]

    def hand(self) -> dict[int, int]:
        return {p: self.cards[p] for p in sorted(self.cards)
                if self.owner[p] == self.me and p not in self.played and p not in self.buried}

    def deck_order(self) -> list[int]:
        assert self.phase == DeckStep.DONE
        return list(self._order)


def open_decks(seats: int, decks: int, hand_size: int, first: int,
               seed: int) -> list[OpenDeck]:
    """One open deck per seat over the same seeded order of the physical cards."""
    order = list(range(54 * decks))
    random.Random(seed).shuffle(order)
    config = OpenConfig(seats, decks, hand_size, first)
    return [OpenDeck(config, s, order) for s in range(seats)]


def run_tables(tables: list[Any]) -> None:
    """Start every table and deliver each frame to every other peer, in order, until
    nothing moves (errors propagate to the caller)."""
    queue: deque[tuple[int, bytes]] = deque()
    for seat, table in enumerate(tables):
        queue.extend((seat, f) for f in table.start())
    while queue:
        src, frame = queue.popleft()
        for dst, table in enumerate(tables):
            if dst != src:
                queue.extend((dst, f) for f in table.receive(frame))
