"""Proof that a peer swapped its shuffle key for per-position lock keys, card by card.

Statement for position i: ``K = k*G``, ``L_i = l_i*G`` and ``k*E'_i = l_i*E_i`` (so
``E'_i = (l_i/k) * E_i``): the card under position i is unchanged, only the key
on it changed. A Schnorr-style proof of knowledge of (k, l_i), Fiat-Shamir with
the whole statement and its context in the challenge.
"""

from __future__ import annotations

from dataclasses import dataclass

from tractor.net.errors import NetError

from .group import (
    GroupError,
    SecretStream,
    add,
    base,
    check_point,
    check_scalar,
    hash_to_scalar,
    mul,
    sadd,
    smul,
    sub,
)
from .verified import VerifiedProofs

#: Lock proofs that verified here (`verified`): a lock message holds one per card.
VERIFIED = VerifiedProofs(b"lock", 1 << 16)


class LockProofError(NetError, ValueError):
    """A lock proof that does not verify."""


@dataclass(frozen=True, slots=True)
class LockProof:
    a1: bytes  #: a*G
    a2: bytes  #: b*G
    a3: bytes  #: a*E' - b*E
    z1: bytes  #: a + c*k
    z2: bytes  #: b + c*l


def _challenge(context: bytes, i: int, e: bytes, e2: bytes, key: bytes, lock: bytes,
               a1: bytes, a2: bytes, a3: bytes) -> bytes:
    return hash_to_scalar(b"lock-challenge", context, i.to_bytes(4, "little"), e, e2, key, lock,
                          a1, a2, a3)


def prove(context: bytes, i: int, e: bytes, e2: bytes, k: bytes, key: bytes, lock_key: bytes,
          lock: bytes, secrets: SecretStream, label: str) -> LockProof:
    # Nonces bound to the statement (as RFC 6979 does): never reused on another one.
    a = secrets.scalar(label, "lock-nonce-a", i, e.hex(), e2.hex())
    b = secrets.scalar(label, "lock-nonce-b", i, e.hex(), e2.hex())
    a1, a2 = base(a), base(b)
    a3 = sub(mul(a, e2), mul(b, e))
    c = _challenge(context, i, e, e2, key, lock, a1, a2, a3)
    return LockProof(a1, a2, a3, sadd(a, smul(c, k)), sadd(b, smul(c, lock_key)))


def verify(context: bytes, i: int, e: bytes, e2: bytes, key: bytes, lock: bytes,
           proof: LockProof) -> None:
    try:
        for p in (proof.a1, proof.a2, proof.a3):
            check_point(p)
        z1, z2 = check_scalar(proof.z1), check_scalar(proof.z2)
        seen = VERIFIED.digest(context, i.to_bytes(4, "little"), e, e2, key, lock, proof.a1,
                               proof.a2, proof.a3, z1, z2)
        if seen in VERIFIED:
            return
        c = _challenge(context, i, e, e2, key, lock, proof.a1, proof.a2, proof.a3)
        ok = (base(z1) == add(proof.a1, mul(c, key))
              and base(z2) == add(proof.a2, mul(c, lock))
              and sub(mul(z1, e2), mul(z2, e)) == proof.a3)
    except GroupError as exc:
        raise LockProofError(f"position {i}: {exc}") from exc
    if not ok:
        raise LockProofError(f"position {i}: the lock does not keep the card under it")
    VERIFIED.add(seen)
