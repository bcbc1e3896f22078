"""Proof that a deck was re-keyed and permuted, and nothing else (cut-and-choose).

Statement: output ``Y[i] = k * X[perm[i]]`` for all i, and ``K = k * G``, for a
secret scalar k and permutation perm. The generator G rides along as an extra,
unpermuted card, which binds K to the same k.

The prover makes ``t`` shadow decks ``S_r[i] = s_r * X[rho_r[i]]`` (plus ``s_r*G``) and
commits to each by hash only. For each challenge bit it opens the shadow either
against the input (``s_r``, ``rho_r``) or against the output (``x_r = k / s_r`` and
``phi_r = rho_r^-1 . perm``); the verifier recomputes the shadow from the public deck
and compares hashes. A deck that is not a re-keyed permutation of the input can
answer at most one of the two openings per shadow, so a cheat passes with
probability 2^-t. The challenge bits come from the other peers' coins, committed
before the shadows were, so the prover cannot grind them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .group import GroupError, SecretStream, base, check_scalar, hash32, inv, mul, smul

#: Number of shadow decks: soundness 2^-SOUNDNESS_BITS per cheating attempt.
SOUNDNESS_BITS = 40


class ShuffleProofError(ValueError):
    """A shuffle proof that does not verify."""


@dataclass(frozen=True, slots=True)
class Opening:
    """One shadow opened: ``scalar`` and ``perm`` (s_r, rho_r) or (x_r, phi_r)."""

    scalar: bytes
    perm: tuple[int, ...]


def deck_hash(points: Sequence[bytes]) -> bytes:
    return hash32(b"deck", *points)


def _shadow_hash(points: Sequence[bytes], g_part: bytes) -> bytes:
    return hash32(b"shadow", g_part, *points)


def shuffle(inputs: Sequence[bytes], k: bytes, perm: Sequence[int]) -> tuple[list[bytes], bytes]:
    """(Y, K): the re-keyed, permuted deck and the public key of k."""
    return [mul(k, inputs[p]) for p in perm], base(k)


def commit_shadows(inputs: Sequence[bytes], secrets: SecretStream, label: str,
                   rounds: int = SOUNDNESS_BITS) -> list[bytes]:
    """Hash commitments to the ``rounds`` shadow decks (their secrets come from ``secrets``)."""
    out = []
    n = len(inputs)
    for r in range(rounds):
        s = secrets.scalar(label, "shadow-key", r)
        rho = secrets.permutation(n, label, "shadow-perm", r)
        out.append(_shadow_hash([mul(s, inputs[i]) for i in rho], base(s)))
    return out


def challenge_bits(context: bytes, inputs: Sequence[bytes], output: Sequence[bytes], key: bytes,
                   commitments: Sequence[bytes], coins: Sequence[bytes], rounds: int) -> list[int]:
    """The challenge: every bit depends on the whole statement and every coin."""
    digest = hash32(b"shuffle-challenge", context, deck_hash(inputs), deck_hash(output), key,
                    *commitments, *coins)
    return [(digest[r // 8] >> (r % 8)) & 1 for r in range(rounds)]


def respond(bits: Sequence[int], n: int, k: bytes, perm: Sequence[int], secrets: SecretStream,
            label: str) -> list[Opening]:
    """Open each shadow against the input (bit 0) or the output (bit 1)."""
    openings = []
    for r, bit in enumerate(bits):
        s = secrets.scalar(label, "shadow-key", r)
        rho = secrets.permutation(n, label, "shadow-perm", r)
        if bit == 0:
            openings.append(Opening(s, tuple(rho)))
        else:
            where = {p: j for j, p in enumerate(rho)}  # rho^-1
            openings.append(Opening(smul(k, inv(s)), tuple(where[p] for p in perm)))
    return openings


def _check_perm(perm: object, n: int) -> tuple[int, ...]:
    if (not isinstance(perm, tuple) or len(perm) != n
            or sorted(perm) != list(range(n))):  # type: ignore[type-var]
        raise ShuffleProofError("an opening's permutation is not a permutation of the deck")
    return perm


def verify(inputs: Sequence[bytes], output: Sequence[bytes], key: bytes,
           commitments: Sequence[bytes], bits: Sequence[int],
           openings: Sequence[Opening]) -> None:
    """Raise `ShuffleProofError` unless every opened shadow matches its commitment."""
    n = len(inputs)
    if len(output) != n or len(commitments) != len(bits) or len(openings) != len(bits):
        raise ShuffleProofError("the proof does not have the expected size")
    for r, (bit, op) in enumerate(zip(bits, openings, strict=True)):
        perm = _check_perm(op.perm, n)
        try:
            scalar = check_scalar(op.scalar)
            if bit == 0:
                shadow = [mul(scalar, inputs[i]) for i in perm]
                g_part = base(scalar)
            else:
                back = inv(scalar)
                shadow = [b""] * n
                for i, j in enumerate(perm):
                    shadow[j] = mul(back, output[i])
                g_part = mul(back, key)
        except GroupError as exc:
            raise ShuffleProofError(f"shadow {r}: {exc}") from exc
        if _shadow_hash(shadow, g_part) != commitments[r]:
            raise ShuffleProofError(f"shadow {r} does not match its commitment "
                                    f"(opened against the {'input' if bit == 0 else 'output'})")
