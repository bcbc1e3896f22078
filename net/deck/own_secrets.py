"""`OwnSecrets`: this peer's secrets for one hand: its shuffle key and permutation, and its
lock key per position, each bound to the transcript it is used on.

All of them come from the hand seed (`SecretStream`), so a peer rebuilds them after a
crash. Bound to the transcript: run a hand again on other inputs (a crashed peer that
starts over, a seed used twice) and every secret is new, so no nonce is ever used twice on
different statements (two proofs with one nonce and two challenges would give away the
shuffle key and permutation, or a lock key). On the same statement the proofs are the same
bytes: nothing new is learned.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import shuffle_proof
from .group import SecretStream, hash32
from .locking import LockStep, lock_key
from .shuffling import ShuffleChain


@dataclass
class OwnSecrets:
    """The secrets of seat ``me``, and the bindings they were drawn under (each made once,
    when its stage is due: the shuffle's from its input deck, the lock's from its input
    deck and every seat's shuffle key)."""

    stream: SecretStream = field(compare=False)  # never changes: what is drawn is bound
    me: int
    seats: int
    size: int
    bindings: dict[str, str] = field(default_factory=dict)

    def shuffle_binding(self, shuffles: ShuffleChain) -> str:
        if "shuffle" not in self.bindings:
            if len(shuffles.decks) <= self.me:
                raise RuntimeError("the shuffle secrets are not due yet")
            data = hash32(b"bind-shuffle", shuffle_proof.deck_hash(shuffles.decks[self.me]))
            self.bindings["shuffle"] = data.hex()
        return self.bindings["shuffle"]

    def lock_binding(self, shuffles: ShuffleChain, locks: LockStep) -> str:
        if "lock" not in self.bindings:
            if not (len(shuffles.keys) == self.seats and len(locks.decks) >= self.me):
                raise RuntimeError("the lock secrets are not due yet")
            before = locks.input(self.me, shuffles.last)
            data = hash32(b"bind-lock", shuffle_proof.deck_hash(before), *shuffles.keys)
            self.bindings["lock"] = data.hex()
        return self.bindings["lock"]

    def shuffle_key(self, shuffles: ShuffleChain) -> bytes:
        """k, this peer's shuffle key."""
        return self.stream.scalar("shuffle-key", self.shuffle_binding(shuffles))

    def permutation(self, shuffles: ShuffleChain) -> list[int]:
        """The permutation of this peer's shuffle."""
        return self.stream.permutation(self.size, "shuffle-perm", self.shuffle_binding(shuffles))

    def proof_label(self, shuffles: ShuffleChain) -> str:
        """The label of this peer's shuffle-proof nonces: bound to its input deck, like its
        key and permutation, so a nonce never serves two statements."""
        return "shuffle-proof/" + self.shuffle_binding(shuffles)

    def lock_key(self, position: int, shuffles: ShuffleChain, locks: LockStep) -> bytes:
        """l, this peer's lock key for ``position``."""
        return lock_key(self.stream, self.lock_binding(shuffles, locks), position)
