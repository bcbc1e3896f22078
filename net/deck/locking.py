"""`LockStep`: the lock stage, each seat in turn trading its shuffle key for a key per
position, and the opening of a position once every seat's key for it is known.

Seat s removes its shuffle key k_s from every card of the deck the seat before locked
(seat 0: the last shuffled deck) and puts a fresh lock key l_{s,p} on each position p; it
publishes L_{s,p} = l_{s,p}*G and a proof per position (`lock_proof`). From then on a
position opens with the n lock keys l_{0,p} ... l_{n-1,p}: releasing one's key for a
position is giving it away (the deal), or showing it (a play, the audit).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import lock_proof, shuffle_proof
from .bodies import points, same_transcript
from .errors import BadMessage, CheatDetected
from .group import SecretStream, base, inv, mul, smul


def lock_key(secrets: SecretStream, binding: str, position: int) -> bytes:
    """This peer's lock key for ``position``, bound (``binding``) to the statement of its
    lock, so a lock made again on other inputs gets other keys."""
    return secrets.scalar("lock-key", binding, position)


@dataclass
class LockStep:
    """The locked decks at one peer, every seat's public lock keys and the final deck."""

    context: bytes  #: the hand's deck context (`Deck.context`)
    me: int
    seats: int
    size: int
    #: The card under each card point: what an opened position shows.
    card_of_point: dict[bytes, int]
    locks: list[list[bytes]] = field(default_factory=list)  #: per seat: L_{s,p}
    decks: list[list[bytes]] = field(default_factory=list)  #: the deck after each lock
    final: list[bytes] = field(default_factory=list)  #: the deck after every seat's lock

    @classmethod
    def fresh(cls, context: bytes, me: int, seats: int, card_points: list[bytes]) -> LockStep:
        """Before any lock, for the hand whose card points are ``card_points``."""
        card_of_point = {pt: p for p, pt in enumerate(card_points)}
        if len(card_of_point) != len(card_points):
            raise RuntimeError("card points collide")  # never: 2^-200
        return cls(context, me, seats, len(card_points), card_of_point)

    def input(self, seat: int, shuffled: list[bytes]) -> list[bytes]:
        """The deck seat ``seat`` locks: the last shuffle's (``shuffled``), or the previous
        seat's lock."""
        return self.decks[seat - 1] if seat > 0 else shuffled

    def proof_context(self, seat: int) -> bytes:
        return self.context + b"lock" + seat.to_bytes(2, "little")

    def add(self, deck: list[bytes], locks: list[bytes]) -> None:
        """Take a checked lock; the last seat's deck is the final deck."""
        self.locks.append(locks)
        self.decks.append(deck)
        if len(self.decks) == self.seats:
            self.final = deck

    def check(self, seat: int, body: dict[str, Any], before: list[bytes], key: bytes,
              vouched: bool = False) -> tuple[list[bytes], list[bytes]]:
        """The locked deck and lock keys of ``seat``'s lock of ``before``, each position's
        proof checked against its shuffle ``key`` (unless ``vouched``). Reads nothing that
        changes (the runner may call it in another thread)."""
        size, trusted = self.size, seat == self.me or vouched
        same_transcript(seat, body["input"], shuffle_proof.deck_hash(before), "input deck")
        deck = points(seat, body["deck"], size, "locked deck", trusted)
        locks = points(seat, body["locks"], size, "lock keys", trusted)
        raw = body["proofs"]
        if not isinstance(raw, list) or len(raw) != size:
            raise BadMessage(seat, "a lock carries one proof per position")
        context = self.proof_context(seat)
        for p in range(size):
            item = raw[p]
            if not isinstance(item, list) or len(item) != 5:
                raise BadMessage(seat, "a lock proof has five parts")
            if trusted:
                continue  # its own lock is right by construction; a vouched one passed
            proof = lock_proof.LockProof(*item)
            try:
                lock_proof.verify(context, p, before[p], deck[p], key, locks[p], proof)
            except lock_proof.LockProofError as exc:
                raise CheatDetected(seat, f"lock proof fails: {exc}") from exc
        return deck, locks

    def maker(self, before: list[bytes], k: bytes, key: bytes, secrets: SecretStream,
              binding: str) -> Callable[[], dict[str, Any]]:
        """The job that makes this peer's lock of ``before`` (its shuffle key ``k``, public
        ``key``; lock keys and nonces from ``secrets`` bound by ``binding``) with a proof
        per position: its message body. It reads nothing that changes."""
        context = self.proof_context(self.me)

        def make() -> dict[str, Any]:
            k_inv = inv(k)
            deck, locks, proofs = [], [], []
            for p, e in enumerate(before):
                lk = lock_key(secrets, binding, p)
                e2 = mul(smul(lk, k_inv), e)
                lock = base(lk)
                pr = lock_proof.prove(context, p, e, e2, k, key, lk, lock, secrets,
                                      "lock/" + binding)
                deck.append(e2)
                locks.append(lock)
                proofs.append([pr.a1, pr.a2, pr.a3, pr.z1, pr.z2])
            return {"deck": deck, "locks": locks, "proofs": proofs,
                    "input": shuffle_proof.deck_hash(before)}

        return make

    def is_key(self, seat: int, position: int, key: bytes) -> bool:
        """Whether ``key`` is ``seat``'s lock key for ``position`` (checked against L)."""
        return base(key) == self.locks[seat][position]

    def open(self, position: int, keys: dict[int, bytes]) -> int:
        """The card at ``position``, with every seat's lock key for it."""
        total = keys[0]
        for s in range(1, self.seats):
            total = smul(total, keys[s])
        point = mul(inv(total), self.final[position])
        card = self.card_of_point.get(point)
        if card is None:
            raise RuntimeError(f"position {position} does not open to a card")
        return card
