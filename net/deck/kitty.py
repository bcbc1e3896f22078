"""`KittyPasses`: the buried positions handed to a seat that takes the kitty by an
overcall (`Rules.kitty_theft`), on the deck: who holds each passed position and how
(`kitty_pass.Holding`), this peer's secrets for those it took, and the thefts in order.

A theft is two signed deck messages, after the table judged the thief's overcall (every
peer calls `begin` then, so a message of a theft nobody judged waits, as a burial before
the talon is given does):

- ``take`` from the thief: ``{"positions": the buried positions, in burial order,
  "points": one blinded request each}``;
- ``give`` from the seat that buried them: ``{"positions": the same, "points": each card
  under the thief's blinding, "proofs": [[a1, a2, z], ...], "input": the hash of the
  requests it answered}`` (a thief that sent different requests to different peers shows
  as a `TranscriptSplit`, not as the burier's failed proofs), each proof checked by every
  peer against that seat's statement for the position (its committed lock key, or the
  secret it took the position with). A proof that fails is the burier's `CheatDetected`;
  a request the thief cannot open later (not of the form c*V) is its own loss: its play of
  that card fails its check, and it cannot answer a later thief for it.

Then the positions are the thief's, and it buries anew. Playing (or showing) a passed
position, its holder releases its secret for it in place of a lock key; everyone checks
the secret against the statement and opens the card. At the audit every lock key comes
out, so the deck opens as if nothing had passed: the holdings' chain of proofs ties the
card the thief opened to the dealt one.

What a third seat learns: the requests and answers, each blinded by a secret it never
sees, so nothing of the card; the burier learns which positions the thief buries again,
which it knew the cards of (as at a real table).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .bodies import points as read_points
from .bodies import positions as read_positions
from .bodies import same_transcript
from .errors import BadMessage, CheatDetected
from .group import GroupError, SecretStream, check_scalar, hash32
from .kitty_pass import (
    Answer,
    Holding,
    KittyPassError,
    answer,
    dealt_holding,
    opened,
    request,
    taken,
)
from .locking import LockStep

#: This peer's lock key for a position.
OwnKey = Callable[[int], bytes]


@dataclass
class Theft:
    """One overcall's hand-over: ``thief`` takes ``positions`` that ``burier`` buried."""

    thief: int
    burier: int
    positions: list[int]
    asked: list[bytes] | None = None  #: the thief's requests, once its ``take`` applied
    answered: bool = False  #: the burier's ``give`` applied


@dataclass
class KittyPasses:
    """The thefts of one hand's deck as seat ``me`` knows them (see the module docstring)."""

    me: int
    context: bytes
    #: This peer's hand secrets (its requests' blindings, its nonces); not state: a copy of
    #: the deck compares equal whatever stream object it holds.
    secrets: SecretStream = field(compare=False, repr=False)
    thefts: list[Theft] = field(default_factory=list)
    #: Position -> how its holder holds it, for every position passed on at least once.
    holdings: dict[int, Holding] = field(default_factory=dict)
    mine: dict[int, bytes] = field(default_factory=dict)  #: position -> this peer's secret
    shown: dict[int, bytes] = field(default_factory=dict)  #: position -> secret released

    @property
    def pending(self) -> Theft | None:
        """The theft under way (its answer not applied yet)."""
        return self.thefts[-1] if self.thefts and not self.thefts[-1].answered else None

    def begin(self, thief: int, burier: int, buried: Sequence[int]) -> None:
        """The table judged ``thief``'s overcall: it takes ``buried`` from ``burier``."""
        if self.pending is not None:
            raise ValueError("a kitty theft is still under way")
        if thief == burier or not buried:
            raise ValueError("a seat takes the kitty another seat buried")
        self.thefts.append(Theft(thief, burier, list(buried)))
        if thief == self.me:
            for p in buried:
                self.mine[p] = self.secrets.scalar("kitty-take", len(self.thefts), p)

    def holding(self, p: int, owner: int, keys: dict[int, bytes], locks: LockStep) -> Holding:
        """How ``owner`` holds position ``p`` (every other seat's lock key is out)."""
        if p in self.holdings:
            return self.holdings[p]
        return dealt_holding(locks.final[p], [keys[s] for s in sorted(keys) if s != owner],
                             locks.locks[owner][p])

    def secret(self, p: int, own: OwnKey) -> bytes:
        """What this peer releases to show position ``p``: its secret for a position it
        took, else its lock key."""
        return self.mine[p] if p in self.holdings else own(p)

    # --- this peer's moves ---------------------------------------------------------------------

    def my_move(self, keys: list[dict[int, bytes]], locks: LockStep,
                own: OwnKey) -> tuple[str, dict[str, Any]] | None:
        """The message this peer owes the theft under way now: its requests (the thief),
        or its answers (the burier, once the requests are in); None otherwise."""
        theft = self.pending
        asking = theft is not None and theft.thief == self.me and theft.asked is None
        if theft is None or not (asking or (theft.burier == self.me and theft.asked)):
            return None
        if asking and not all(len(keys[p]) >= len(locks.locks) - 1 for p in theft.positions):
            return None  # the talon's keys are still on their way here
        held = [self.holding(p, theft.burier, keys[p], locks) for p in theft.positions]
        if asking:
            return "take", {"positions": list(theft.positions),
                            "points": [request(h, self.mine[p])
                                       for h, p in zip(held, theft.positions, strict=True)]}
        assert theft.asked is not None
        replies = [answer(h, self.secret(p, own), asked, self._context(p),
                          self.secrets.bytes64("kitty-nonce", len(self.thefts), p))
                   for h, p, asked in zip(held, theft.positions, theft.asked, strict=True)]
        return "give", {"positions": list(theft.positions),
                        "points": [r.point for r in replies],
                        "proofs": [[r.a1, r.a2, r.z] for r in replies],
                        "input": _requests_hash(theft.asked)}

    # --- the seats' messages -------------------------------------------------------------------

    def ready_for(self, kind: str, seat: int) -> bool:
        """Whether ``seat``'s ``take`` or ``give`` has the theft it belongs to here (the
        table judges the overcall after the deck applied it; the network may bring the
        answer before the request)."""
        theft = self.pending
        if theft is None:
            return False
        if kind == "take":
            return seat == theft.thief and theft.asked is None
        return seat == theft.burier and theft.asked is not None

    def on_take(self, seat: int, body: dict[str, Any], size: int) -> None:
        theft = self._expected(seat, "take")
        self._same_positions(seat, body, size, theft)
        theft.asked = read_points(seat, body["points"], len(theft.positions),
                                  "kitty requests", trusted=seat == self.me)

    def on_give(self, seat: int, body: dict[str, Any], size: int, owner: list[int | None],
                keys: list[dict[int, bytes]], locks: LockStep,
                cards: dict[int, int]) -> None:
        """Check the burier's answers, then hand the positions to the thief (``owner``;
        the thief opens its cards into ``cards``)."""
        theft = self._expected(seat, "give")
        assert theft.asked is not None
        self._same_positions(seat, body, size, theft)
        same_transcript(seat, body["input"], _requests_hash(theft.asked), "kitty requests")
        count = len(theft.positions)
        pts = read_points(seat, body["points"], count, "kitty answers", trusted=False)
        proofs = body["proofs"]
        if not isinstance(proofs, list) or len(proofs) != count or not all(
                isinstance(q, list) and len(q) == 3 for q in proofs):
            raise BadMessage(seat, "one proof [a1, a2, z] per kitty answer")
        new: list[Holding] = []
        for p, asked, pt, (a1, a2, z) in zip(theft.positions, theft.asked, pts, proofs,
                                             strict=True):
            held = self.holding(p, seat, keys[p], locks)
            try:
                reply = Answer(pt, a1, a2, z)
                new.append(taken(held, asked, reply, self._context(p)))
            except (KittyPassError, TypeError) as exc:
                raise CheatDetected(seat, f"its kitty answer for position {p} fails: "
                                          f"{exc}") from exc
        opened_cards = {p: self._open(p, h, locks)
                        for p, h in zip(theft.positions, new, strict=True)
                        if theft.thief == self.me}
        for p, h in zip(theft.positions, new, strict=True):
            self.holdings[p] = h
            owner[p] = theft.thief
            self.shown.pop(p, None)  # its new holder has not shown it
            if theft.thief != self.me:
                self.mine.pop(p, None)  # passed on: no longer this peer's to show
        cards.update(opened_cards)
        theft.answered = True

    def shown_card(self, seat: int, p: int, secret: bytes, locks: LockStep) -> int:
        """The card ``seat`` shows at passed position ``p`` with ``secret``."""
        try:
            check_scalar(secret)
            point = opened(self.holdings[p], secret)
        except (KittyPassError, GroupError) as exc:
            raise CheatDetected(seat, f"wrong secret for position {p}: {exc}") from exc
        card = locks.card_of_point.get(point)
        if card is None:
            raise CheatDetected(seat, f"position {p} does not open to a card")
        return card

    def _open(self, p: int, held: Holding, locks: LockStep) -> int:
        card = locks.card_of_point.get(opened(held, self.mine[p]))
        if card is None:  # the answers were proven: this peer's own request was wrong
            raise RuntimeError(f"the kitty position {p} does not open to a card")
        return card

    def _expected(self, seat: int, kind: str) -> Theft:
        if not self.ready_for(kind, seat):  # `ready_for` held when it was due: never
            raise BadMessage(seat, f"a kitty {kind} message out of turn")
        theft = self.pending
        assert theft is not None
        return theft

    @staticmethod
    def _same_positions(seat: int, body: dict[str, Any], size: int, theft: Theft) -> None:
        if read_positions(seat, body["positions"], size) != theft.positions:
            raise BadMessage(seat, "a kitty message names other positions than the buried")

    def _context(self, p: int) -> bytes:
        return self.context + b"kitty" + len(self.thefts).to_bytes(2, "little") + \
            p.to_bytes(2, "little")


def _requests_hash(asked: Sequence[bytes]) -> bytes:
    """What a burier's answers were made on: the thief's requests as it received them."""
    return hash32(b"kitty-requests", *asked)
