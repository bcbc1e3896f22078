"""Proofs this process has verified, so that it does not verify the same proof again.

A process that runs several seats (`tractor ai --seats N`, an AI server's players, the
tests' in-memory tables) receives every shuffle and lock once per seat, and each seat
verified each proof on its own: for four seats in one process, three times the same
scalar multiplications. Verifying is a deterministic function of the statement and the
proof, so a proof that passed once passes again: its digest (SHA-256 over every byte the
verifier reads, statement and proof) is remembered, and the same bytes are accepted
without the arithmetic. A proof that failed is not remembered (it is refused again, in
full, with its reason), and any other byte anywhere gives another digest. Bounded like
`group.check_point`'s set: emptied when full.
"""

from __future__ import annotations

from .group import hash32


class VerifiedProofs:
    """Digests of (statement, proof) pairs that verified in this process."""

    def __init__(self, kind: bytes, limit: int) -> None:
        self._kind = kind
        self._limit = limit
        self._digests: set[bytes] = set()

    def digest(self, *parts: bytes) -> bytes:
        """The digest of a statement and its proof, given as every byte string the verifier
        reads (length-prefixed by `hash32`, so no two lists of parts share a digest)."""
        return hash32(b"verified-proof", self._kind, *parts)

    def __contains__(self, digest: bytes) -> bool:
        return digest in self._digests

    def add(self, digest: bytes) -> None:
        # Threads (a deck worker and the reactor) may both add: a set's add and clear are
        # atomic, and a digest lost to a clear only costs one more verification.
        if len(self._digests) >= self._limit:
            self._digests.clear()
        self._digests.add(digest)
