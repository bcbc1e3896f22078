"""`ShuffleChain`: the shuffle stage, each seat in turn re-keying and permuting the deck.

Seat s takes the deck the seat before made (seat 0: the card points), multiplies every
card by its secret key k_s and permutes them; it publishes the new deck, K_s = k_s*G and a
non-interactive proof that the new deck is exactly that (`shuffle_proof`, SHUFFLE.md).
Every other seat checks the proof before it takes the deck.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import shuffle_proof
from .bodies import points, same_transcript
from .envelope import PROTOCOL
from .errors import BadMessage, CheatDetected
from .group import SecretStream, hash32, point_from_hash


def card_points(context: bytes, size: int) -> list[bytes]:
    """The point of every physical card, where the first shuffle starts: a hash mapped onto
    the curve, bound to the hand's deck ``context``, so nobody knows relations between
    them."""
    return [point_from_hash(b"card", context, p.to_bytes(2, "little")) for p in range(size)]


def shuffle_context(table: bytes, hand: int, seat: int, step: int) -> bytes:
    """What a shuffle proof's challenges are bound to besides its decks and key: the
    protocol version, table, hand, the prover's seat and the shuffle step (the same number
    in this protocol, seat s makes step s, but both are named so neither can be swapped)."""
    return hash32(b"shuffle-statement", PROTOCOL.encode(), table, hand.to_bytes(8, "little"),
                  seat.to_bytes(2, "little"), step.to_bytes(2, "little"))


@dataclass
class ShuffleChain:
    """The decks of the shuffle stage at one peer, and the seats' public shuffle keys."""

    table: bytes
    hand: int
    me: int
    size: int
    #: ``decks[0]``: the card points; ``decks[s + 1]``: the deck after seat s's shuffle.
    decks: list[list[bytes]]
    keys: list[bytes] = field(default_factory=list)  #: K_s of each seat that shuffled

    @property
    def last(self) -> list[bytes]:
        """The deck the next shuffle works on (after all: the deck the locks start on)."""
        return self.decks[-1]

    def context(self, seat: int, step: int) -> bytes:
        return shuffle_context(self.table, self.hand, seat, step)

    def add(self, deck: list[bytes], key: bytes) -> None:
        """Take a checked shuffle."""
        self.decks.append(deck)
        self.keys.append(key)

    def check(self, seat: int, body: dict[str, Any], src: list[bytes], step: int,
              vouched: bool = False) -> tuple[list[bytes], bytes]:
        """The shuffled deck and key of ``seat``'s shuffle of ``src``, checked with its
        proof (not run again when ``vouched``: it passed here before a crash). Reads
        nothing that changes (the runner may call it in another thread)."""
        same_transcript(seat, body["input"], shuffle_proof.deck_hash(src), "input deck")
        size, trusted = self.size, seat == self.me or vouched
        deck = points(seat, body["deck"], size, "shuffled deck", trusted)
        key = points(seat, [body["key"]], 1, "shuffle key", trusted)[0]
        try:
            proof = shuffle_proof.ShuffleProof.unpack(body["proof"], size)
        except shuffle_proof.ProofShapeError as exc:
            raise BadMessage(seat, f"malformed shuffle proof: {exc}") from exc
        if len(set(deck)) != size:
            raise CheatDetected(seat, "the shuffled deck holds a card twice")
        try:
            if seat != self.me and not vouched:  # its own proof is right by construction
                shuffle_proof.verify(self.context(seat, step), src, deck, key, proof)
        except shuffle_proof.ShuffleProofError as exc:
            raise CheatDetected(seat, f"shuffle proof fails: {exc}") from exc
        return deck, key

    def maker(self, k: bytes, perm: list[int], secrets: SecretStream,
              label: str) -> Callable[[], dict[str, Any]]:
        """The job that makes this peer's shuffle of the last deck with key ``k`` and
        permutation ``perm``, and proves it (nonces from ``secrets`` under ``label``): its
        message body. It reads nothing that changes (the runner may run it in a thread)."""
        src = self.last
        context = self.context(self.me, len(self.keys))

        def make() -> dict[str, Any]:
            deck, key = shuffle_proof.shuffle(src, k, perm)
            proof = shuffle_proof.prove(context, src, deck, key, k, perm, secrets, label)
            return {"deck": deck, "key": key, "proof": proof.pack(),
                    "input": shuffle_proof.deck_hash(src)}

        return make
