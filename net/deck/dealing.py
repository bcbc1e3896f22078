"""`Dealing`: who holds which position, which lock keys each seat released for it, and
what this peer knows of the cards: the deal, plays and shows, the bury and turned-over
talon cards, each checked against the seats' published lock keys.

To give position p to its owner every other seat releases its lock key for p; the owner,
holding its own key too, opens it. A seat shows a card (a play, a declaration) by
releasing its own key: everyone opens it and checks the card it claimed. Positions are
drawn in order, position p goes to seat (first + p) % n; the talon stays locked until
it is given to the starter. With kitty theft (`kitty.KittyPasses`) the buried positions
pass to a later overcaller, who buries anew; a passed position is shown with its holder's
secret instead of a lock key.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .bodies import positions as read_positions
from .bodies import scalars
from .config import DeckConfig
from .errors import BadMessage, CheatDetected
from .kitty import KittyPasses
from .locking import LockStep

#: This peer's lock key for a position.
OwnKey = Callable[[int], bytes]


@dataclass
class Reveal:
    """A card shown by its owner: for a play, a declaration or the audit."""

    seat: int
    position: int
    card: int  #: physical card id (face = card % 54)
    purpose: str
    seq: int = -1  #: the owner's message number (orders it against its table messages)


@dataclass
class Dealing:
    """The positions of one hand's deck as seat ``me`` knows them."""

    me: int
    seats: int
    size: int
    dealt: int  #: positions dealt to the seats; the rest is the talon
    owner: list[int | None]  #: per position: the seat it goes to (None: not known yet)
    #: Whether the first drawer is known (`draw`): who owns a position decides whether a
    #: deal, a reveal or a turned-over card is right, so nothing of the play waits before.
    drawn: bool
    #: Per position: seat -> the lock key it released for it.
    keys: list[dict[int, bytes]]
    kitty: KittyPasses  #: the buried positions passed to a later overcaller
    cards: dict[int, int] = field(default_factory=dict)  #: position -> card, as known here
    played: set[int] = field(default_factory=set)
    buried: list[int] = field(default_factory=list)
    burials: list[list[int]] = field(default_factory=list)  #: every burial, in order
    starter: int | None = None  #: the seat that took the talon
    exchanger: int | None = None  #: the seat that holds the kitty: the starter, or a thief
    reveals: list[Reveal] = field(default_factory=list)
    public: set[int] = field(default_factory=set)  #: positions opened to everyone
    #: Position -> when the keys asked for it are due (`owed`).
    deadlines: dict[int, float] = field(default_factory=dict)

    @classmethod
    def fresh(cls, config: DeckConfig, me: int, kitty: KittyPasses) -> Dealing:
        """Before the deal: no key released, no card known."""
        owner = [config.owner_by_deal(p) for p in range(config.size)]
        return cls(me, config.seats, config.size, config.dealt, owner,
                   config.first is not None, [{} for _ in range(config.size)], kitty)

    def draw(self, owner: list[int | None]) -> None:
        """The first drawer is known: each position's ``owner``."""
        self.owner, self.drawn = owner, True

    def on_message(self, kind: str, seat: int, body: dict[str, Any], seq: int,
                   locks: LockStep, own: OwnKey) -> None:
        """Apply ``seat``'s ``kind`` message (its number ``seq``): a deal, a reveal, a bury,
        a turned-over talon card, or a kitty theft's request or answer."""
        if kind == "deal":
            self._on_deal(seat, body, locks, own)
        elif kind == "reveal":
            self._on_reveal(seat, body, seq, locks)
        elif kind == "bury":
            self._on_bury(seat, body)
        elif kind == "open":
            self._on_open(seat, body, locks)
        elif kind == "take":
            self.kitty.on_take(seat, body, self.size)
        elif kind == "give":
            self.kitty.on_give(seat, body, self.size, self.owner, self.keys, locks, self.cards)
            self.exchanger, self.buried = self.kitty.thefts[-1].thief, []
        else:
            raise RuntimeError(f"a {kind} message is not about the deal")  # never

    # --- the deal ------------------------------------------------------------------------------

    def give_talon(self, starter: int) -> list[int]:
        """The talon's positions, now owned by ``starter``."""
        if self.starter is not None and self.starter != starter:
            raise ValueError("the talon already has an owner")
        self.starter = self.exchanger = starter
        talon = list(range(self.dealt, self.size))
        for p in talon:
            self.owner[p] = starter
        return talon

    def to_release(self, positions: Sequence[int], deadline: float) -> list[int]:
        """Of ``positions`` being dealt (keys due by ``deadline``), those whose key this
        peer still has to give away."""
        for p in positions:
            if self.owner[p] is None:
                raise ValueError(f"position {p} has no owner yet")
            self.deadlines.setdefault(p, deadline)
        return [p for p in positions if self.owner[p] != self.me and self.me not in self.keys[p]]

    def _on_deal(self, seat: int, body: dict[str, Any], locks: LockStep, own: OwnKey) -> None:
        positions = read_positions(seat, body["positions"], self.size)
        keys = scalars(seat, body["keys"], len(positions))
        for p in positions:
            if self.owner[p] is None or self.owner[p] == seat:
                raise BadMessage(seat, f"position {p} is not to be dealt by this seat")
        for p, k in zip(positions, keys, strict=True):
            self._check_key(seat, p, k, locks)  # all checked before any is kept
        for p, k in zip(positions, keys, strict=True):
            self.keys[p][seat] = k
            self.learn(p, locks, own)

    def _check_key(self, seat: int, position: int, key: bytes, locks: LockStep) -> None:
        if seat in self.keys[position]:
            raise BadMessage(seat, f"key for position {position} released twice")
        if not locks.is_key(seat, position, key):
            raise CheatDetected(seat, f"wrong key for position {position}")

    def learn(self, position: int, locks: LockStep, own: OwnKey) -> None:
        """Open a position when this peer holds every key to it."""
        if position in self.cards:
            return
        have = dict(self.keys[position])
        if self.owner[position] == self.me:
            have[self.me] = own(position)
        if len(have) < self.seats:
            return
        self.cards[position] = locks.open(position, have)

    def ready_for(self, kind: str, seat: int, body: dict[str, Any]) -> bool:
        """Whether a message of the play has what it needs here (keys dealt, talon given);
        the network may deliver it before the messages it builds on."""
        if not self.drawn:
            return False
        raw = body.get("positions")
        positions = [p for p in raw if type(p) is int and 0 <= p < self.size] if (
            isinstance(raw, list)) else []
        if kind == "deal":
            return all(self.owner[p] is not None for p in positions)
        if kind == "reveal":
            for p in positions:
                if self.owner[p] is None:
                    return False
                if self.owner[p] == seat and p not in self.kitty.holdings and any(
                        s not in self.keys[p] for s in range(self.seats) if s != seat):
                    return False
            return True
        if kind == "bury":  # a thief's waits for the hand-over (the burier's answer)
            return self.starter is not None and not (self.buried and seat != self.exchanger)
        if kind == "take":  # the positions' keys are all out before they pass on
            theft = self.kitty.pending
            return self.kitty.ready_for(kind, seat) and theft is not None and all(
                len(self.keys[p]) >= self.seats - 1 for p in theft.positions)
        if kind == "give":
            return self.kitty.ready_for(kind, seat)
        return True

    # --- shows and plays -----------------------------------------------------------------------

    def is_shown(self, seat: int, p: int) -> bool:
        """Whether ``seat`` has shown position ``p`` (released its key, or for a position
        passed to it its secret)."""
        return p in self.kitty.shown if p in self.kitty.holdings else seat in self.keys[p]

    def check_reveal(self, positions: Sequence[int], purpose: str) -> None:
        """Refuse (`ValueError`) to show what is not a card in this peer's hand."""
        if purpose not in ("play", "show"):
            raise ValueError("purpose is play or show")
        for p in positions:
            if self.owner[p] != self.me or p in self.played or p in self.buried:
                raise ValueError(f"position {p} is not a card in this hand")
            if purpose == "show" and self.is_shown(self.me, p):
                raise ValueError(f"position {p} is already shown")

    def _on_reveal(self, seat: int, body: dict[str, Any], seq: int, locks: LockStep) -> None:
        positions = read_positions(seat, body["positions"], self.size)
        purpose = body["purpose"]
        if purpose not in ("play", "show"):
            raise BadMessage(seat, "a reveal is for a play or a show")
        cards = body["cards"]
        if not isinstance(cards, list) or len(cards) != len(positions) or not all(
                type(c) is int for c in cards):
            raise BadMessage(seat, "one claimed card per position")
        keys = scalars(seat, body["keys"], len(positions))
        for p in positions:
            self._check_shown(seat, p, purpose)
        opened = []
        for p, k in zip(positions, keys, strict=True):
            if p in self.kitty.holdings:  # a passed position: its holder's secret shows it
                opened.append(self.kitty.shown_card(seat, p, k, locks))
                continue
            if not locks.is_key(seat, p, k):
                raise CheatDetected(seat, f"wrong key for position {p}")
            opened.append(locks.open(p, {**self.keys[p], seat: k}))
        for p, claimed, card in zip(positions, cards, opened, strict=True):
            if claimed != card:
                raise CheatDetected(seat, f"claimed card {claimed} at position {p} but it is "
                                          f"card {card}")
        for p, k, card in zip(positions, keys, opened, strict=True):
            if p in self.kitty.holdings:
                self.kitty.shown[p] = k
            else:
                self.keys[p][seat] = k
            self.cards[p] = card
            if purpose == "play":
                self.played.add(p)
            self.reveals.append(Reveal(seat, p, card, purpose, seq))

    def _check_shown(self, seat: int, p: int, purpose: str) -> None:
        if self.owner[p] != seat or p in self.buried:
            raise CheatDetected(seat, f"position {p} was not dealt to this seat")
        if p in self.played:
            raise CheatDetected(seat, f"position {p} was already played")
        if purpose == "show" and self.is_shown(seat, p):
            raise BadMessage(seat, f"position {p} was already shown")
        if p in self.kitty.holdings:
            return  # passed on: every lock key but its first owner's was out
        missing = [s for s in range(self.seats) if s != seat and s not in self.keys[p]]
        if missing:
            raise BadMessage(seat, f"position {p} is not fully dealt yet")

    # --- the talon: buried, or turned over -----------------------------------------------------

    def check_bury(self, positions: Sequence[int]) -> None:
        """Refuse (`ValueError`) a bury that is not this exchanger's, once, of its own
        cards."""
        if self.exchanger != self.me or self.buried:
            raise ValueError("only the seat holding the kitty buries, once")
        if len(set(positions)) != self.size - self.dealt or any(
                self.owner[p] != self.me or p in self.played for p in positions):
            raise ValueError("bury the talon's number of own, unplayed positions")

    def _on_bury(self, seat: int, body: dict[str, Any]) -> None:
        if self.exchanger is None or seat != self.exchanger:
            raise BadMessage(seat, "only the starter buries, after taking the talon (with "
                                   "kitty theft: the seat that took the kitty)")
        if self.buried:
            raise BadMessage(seat, "the talon was already buried")
        positions = read_positions(seat, body["positions"], self.size)
        if len(positions) != self.size - self.dealt:
            raise BadMessage(seat, "bury exactly the talon's number of cards")
        for p in positions:
            if self.owner[p] != seat or p in self.played:
                raise CheatDetected(seat, f"buried position {p}, which it does not hold")
        self.buried = list(positions)
        self.burials.append(self.buried)

    def check_unowned(self, positions: Sequence[int]) -> None:
        """Refuse (`ValueError`) to turn over a position that belongs to a seat."""
        for p in positions:
            if self.owner[p] is not None:
                raise ValueError(f"position {p} belongs to seat {self.owner[p]}")

    def _on_open(self, seat: int, body: dict[str, Any], locks: LockStep) -> None:
        positions = read_positions(seat, body["positions"], self.size)
        keys = scalars(seat, body["keys"], len(positions))
        for p in positions:
            if self.owner[p] is not None and p not in self.public:
                raise BadMessage(seat, f"position {p} is dealt: it cannot be turned over")
        for p, k in zip(positions, keys, strict=True):
            self._check_key(seat, p, k, locks)
        for p, k in zip(positions, keys, strict=True):
            self.keys[p][seat] = k
            self.public.add(p)
            if len(self.keys[p]) == self.seats:
                self.cards[p] = locks.open(p, self.keys[p])

    # --- the audit -----------------------------------------------------------------------------

    def take_audit_keys(self, seat: int, keys: list[bytes], locks: LockStep) -> None:
        """Every lock key of ``seat``, each the one it released before or its lock's."""
        for p, k in enumerate(keys):
            known = self.keys[p].get(seat)
            if known is not None:
                if known != k:
                    raise CheatDetected(seat, f"audit key for position {p} differs")
            elif not locks.is_key(seat, p, k):
                raise CheatDetected(seat, f"wrong audit key for position {p}")
        for p, k in enumerate(keys):
            self.keys[p][seat] = k

    def open_all(self, locks: LockStep) -> None:
        """Open every position still closed (every key is out)."""
        for p in range(self.size):
            if p not in self.cards:
                self.cards[p] = locks.open(p, self.keys[p])

    # --- what this peer holds and is owed ------------------------------------------------------

    def hand(self) -> dict[int, int]:
        """Position -> physical card of this peer's cards still in its hand."""
        return {p: self.cards[p] for p in sorted(self.cards)
                if self.owner[p] == self.me and p not in self.played and p not in self.buried}

    def owed(self) -> dict[int, list[int]]:
        """Seat -> positions whose keys that seat was asked for and has not released."""
        out: dict[int, list[int]] = {}
        for p in sorted(self.deadlines):
            if p in self.kitty.holdings:
                continue  # passed on: its first owner's key stays in until the audit
            for s in range(self.seats):
                if s != self.owner[p] and s not in self.keys[p]:
                    out.setdefault(s, []).append(p)
        return out

    def overdue(self, now: float) -> dict[int, list[int]]:
        """Seat -> the positions whose keys it owes past their deadline at time ``now``."""
        late = {p for p, t in self.deadlines.items() if t <= now}
        out: dict[int, list[int]] = {}
        for seat, positions in sorted(self.owed().items()):
            overdue = [p for p in positions if p in late]
            if overdue:
                out[seat] = overdue
        return out
