"""Proof that a deck was re-keyed with one secret scalar and permuted, and nothing else.

Statement (public: the input deck X, the output deck Y, the key K, a context): the prover
knows a scalar k and a permutation pi of range(N) with

    Y[j] = k * X[pi[j]]  for every j,   and   K = k * G.

The argument follows the shape of Bayer and Groth's shuffle argument (EUROCRYPT 2012):
commit to the permutation, commit to a challenge raised to the permuted powers, a product
argument that the pair of them is a permutation of the public pairs, and a
multi-exponentiation argument tying it to the decks. Its sub-arguments here are linear
(masked openings of whole vectors, Pedersen commitments over generators made by
hash-to-group), which suits libsodium: no multi-exponentiation, every term one scalar
multiplication, and the verifier folds its equations into one. Fiat-Shamir over the
whole transcript, challenges of 252 bits. Cost for N cards, in scalar multiplications:
the shuffle N + 1, its proof 5N + 10, verifying it 3N + 11; the proof is 9 points and
2N + 4 scalars. The exact protocol, the transcript and the security argument are in
SHUFFLE.md next to this file.

Proving and verifying are deterministic: the prover's nonces come from its secret stream
under a label the caller binds to the statement, and the verifier's folding challenge is
hashed from the whole proof, so the same inputs give the same bytes and the same answer.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, fields

from tractor.net.errors import NetError

from .group import (
    POINT_BYTES,
    SCALAR_BYTES,
    GroupError,
    L,
    SecretStream,
    add,
    base,
    check_point,
    check_scalar,
    hash32,
    hash64,
    mul,
    point_from_hash,
    scalar_from,
)
from .verified import VerifiedProofs

#: The construction, as the benchmarks and the README name it.
NAME = "bayer-groth-linear"
#: Security level claimed for one shuffle proof (SHUFFLE.md): the knowledge error is below
#: 2^-235 per hash query for any deck of up to 324 cards, so below 2^-128 for up to 2^107
#: queries, and binding rests on discrete logarithms in Ed25519 (the curve's 128 bits).
SOUNDNESS_BITS = 128
DOMAIN = b"tractor-shuffle-proof/1"
MAX_CARDS = 4096  #: more generators than any deck needs (a frame holds at most 4096 items)
#: Shuffle proofs that verified here (`verified`).
VERIFIED = VerifiedProofs(b"shuffle", 1 << 14)


class ShuffleProofError(NetError, ValueError):
    """A shuffle proof that does not verify."""


class ProofShapeError(ShuffleProofError):
    """A proof that is not even of the right form (wrong lengths, types, sizes)."""


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    """The prover's messages, in transcript order, then its answers."""

    c_a: bytes  #: commitment to a = pi + 1 (the permutation)
    c_b: bytes  #: commitment to b[j] = x^a[j]
    c_p: bytes  #: commitment to the running products of d = y*a + b - z
    d_d: bytes  #: commitment to the mask of d
    d_p: bytes  #: commitment to the mask of p
    t_1: bytes  #: commitment to the linear coefficient of the product check
    t_0: bytes  #: commitment to its constant coefficient
    a_y: bytes  #: sum of d's masks over Y, minus kappa times the folded input deck
    b_k: bytes  #: kappa * G
    s_d: bytes  #: answer for the randomness of d's commitment
    s_p: bytes  #: answer for the randomness of p's commitment
    s_t: bytes  #: answer for the randomness of t_1, t_0
    z_k: bytes  #: kappa + c*k
    z_d: tuple[bytes, ...]  #: c*d + mask, per card
    z_p: tuple[bytes, ...]  #: c*p + mask, per card

    def pack(self) -> list[object]:
        """The proof as a msgpack-ready list (points and scalars as 32-byte strings)."""
        return [getattr(self, f.name) if f.name not in ("z_d", "z_p")
                else list(getattr(self, f.name)) for f in fields(self)]

    @classmethod
    def unpack(cls, raw: object, n: int) -> ShuffleProof:
        """Parse a packed proof for an N-card deck, checking its shape only (`verify` checks
        every point and scalar). Raises `ProofShapeError`."""
        names = [f.name for f in fields(cls)]
        if not isinstance(raw, list) or len(raw) != len(names):
            raise ProofShapeError(f"a shuffle proof has {len(names)} parts")
        values: list[object] = []
        for name, item in zip(names, raw, strict=True):
            if name in ("z_d", "z_p"):
                if not isinstance(item, list) or len(item) != n or not all(
                        type(v) is bytes and len(v) == SCALAR_BYTES for v in item):
                    raise ProofShapeError(f"{name} holds one 32-byte scalar per card")
                values.append(tuple(item))
            elif type(item) is not bytes or len(item) != POINT_BYTES:
                raise ProofShapeError(f"{name} is 32 bytes")
            else:
                values.append(item)
        return cls(*values)  # type: ignore[arg-type]


# --- generators nobody knows relations between ----------------------------------------------

_GENERATORS: list[bytes] = []
_GROWING = threading.Lock()
#: The second generator of the scalar commitments t_1, t_0.
H_SCALAR = point_from_hash(DOMAIN, b"scalar-commitment generator")


def generators(n: int) -> list[bytes]:
    """H_0 .. H_{n-1}: hash-to-group points (Elligator, cofactor cleared), fixed for
    every table, so nobody knows a relation between them, G and `H_SCALAR`."""
    if not 0 < n <= MAX_CARDS:
        raise ValueError(f"a deck has 1 to {MAX_CARDS} cards")
    # A deck worker's thread and the reactor's may both ask first: one grows the list.
    with _GROWING:
        while len(_GENERATORS) < n:
            h = point_from_hash(DOMAIN, b"vector generator",
                                len(_GENERATORS).to_bytes(4, "little"))
            check_point(h)  # never fails but with probability 2^-250 (identity after the map)
            _GENERATORS.append(h)
        return _GENERATORS[:n]


# --- scalar and point helpers -------------------------------------------------------------------

def _b(v: int) -> bytes:
    return (v % L).to_bytes(SCALAR_BYTES, "little")


def _i(s: bytes) -> int:
    return int.from_bytes(s, "little")


IDENTITY = (1).to_bytes(POINT_BYTES, "little")


def _combine(terms: Sequence[tuple[int, bytes]], g: int = 0) -> bytes:
    """g*G + sum of s*P over the terms, one scalar multiplication per term whose
    coefficient is not 0 or 1 (a zero is left out: libsodium refuses a zero scalar). The
    identity when nothing is left."""
    acc = base(_b(g)) if g % L else None
    for s, p in terms:
        s %= L
        if s == 0:
            continue
        q = p if s == 1 else mul(_b(s), p)
        acc = q if acc is None else add(acc, q)
    return acc if acc is not None else IDENTITY


def _commit_permutation(a: Sequence[int], r: int, gens: Sequence[bytes]) -> bytes:
    """r*G + sum a[j]*H_j for a permutation a of 1..N, by additions only: the sum of the
    suffix sums S_v = sum of H_j with a[j] >= v, v = 1..N (2N additions instead of N
    multiplications)."""
    where = [0] * len(a)
    for j, v in enumerate(a):
        where[v - 1] = j
    suffix = total = None
    for v in range(len(a), 0, -1):
        h = gens[where[v - 1]]
        suffix = h if suffix is None else add(suffix, h)
        total = suffix if total is None else add(total, suffix)
    assert total is not None
    return add(total, base(_b(r))) if r % L else total


def _commit(values: Sequence[int], r: int, gens: Sequence[bytes]) -> bytes:
    return _combine(list(zip(values, gens, strict=True)), r)


def _powers(v: int, n: int) -> list[int]:
    """v^1 .. v^n."""
    out, acc = [], 1
    for _ in range(n):
        acc = acc * v % L
        out.append(acc)
    return out


def deck_hash(points: Sequence[bytes]) -> bytes:
    return hash32(b"deck", *points)


# --- the Fiat-Shamir transcript ---------------------------------------------------------------

class _Transcript:
    """A running hash of the statement and every prover message; each challenge is a
    252-bit scalar drawn from all that came before it."""

    def __init__(self, context: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes],
                 key: bytes) -> None:
        self.state = hash32(DOMAIN, b"statement", context, len(inputs).to_bytes(4, "little"),
                            *inputs, *outputs, key)

    @classmethod
    def after(cls, state: bytes) -> _Transcript:
        t = object.__new__(cls)
        t.state = state
        return t

    def absorb(self, label: bytes, *messages: bytes) -> None:
        self.state = hash32(DOMAIN, label, self.state, *messages)

    def challenge(self, label: bytes) -> int:
        return _i(scalar_from(hash64(DOMAIN, b"challenge", label, self.state)))


@dataclass(frozen=True, slots=True)
class _Challenges:
    x: int
    y: int
    z: int
    w: int
    c: int
    state: bytes  #: the transcript hash after the last prover message


def _challenges(t: _Transcript, proof: ShuffleProof) -> _Challenges:
    t.absorb(b"permutation", proof.c_a)
    x = t.challenge(b"x")
    t.absorb(b"powers", proof.c_b)
    y = t.challenge(b"y")
    t.absorb(b"after y")  # z is a round of its own (the prover says nothing in between)
    z = t.challenge(b"z")
    t.absorb(b"products", proof.c_p)
    w = t.challenge(b"w")
    t.absorb(b"masks", proof.d_d, proof.d_p, proof.t_1, proof.t_0, proof.a_y, proof.b_k)
    return _Challenges(x, y, z, w, t.challenge(b"c"), t.state)


# --- proving --------------------------------------------------------------------------------

def shuffle(inputs: Sequence[bytes], k: bytes, perm: Sequence[int]) -> tuple[list[bytes], bytes]:
    """(Y, K): the re-keyed, permuted deck Y[j] = k * X[perm[j]] and the public key of k."""
    return [mul(k, inputs[p]) for p in perm], base(k)


def prove(context: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes], key: bytes,
          k: bytes, perm: Sequence[int], secrets: SecretStream, label: str) -> ShuffleProof:
    """Prove ``outputs`` is `shuffle` (inputs, k, perm) and ``key`` is k*G. The nonces come
    from ``secrets`` under ``label``: the caller binds the label to the statement (the
    same label on another statement would give away k and perm)."""
    n = len(inputs)
    gens = generators(n)
    kk = _i(k)

    def nonce(*what: str | int) -> int:
        return _i(secrets.scalar(label, "shuffle-proof", *what))

    t = _Transcript(context, inputs, outputs, key)
    a = [p + 1 for p in perm]
    r_a = nonce("r_a")
    c_a = _commit_permutation(a, r_a, gens)
    t.absorb(b"permutation", c_a)
    x = t.challenge(b"x")
    xp = _powers(x, n)
    b = [xp[p] for p in perm]
    r_b = nonce("r_b")
    c_b = _commit(b, r_b, gens)
    t.absorb(b"powers", c_b)
    y = t.challenge(b"y")
    t.absorb(b"after y")
    z = t.challenge(b"z")
    d = [(y * a_j + b_j - z) % L for a_j, b_j in zip(a, b, strict=True)]
    p_run, acc = [], 1
    for d_j in d:
        acc = acc * d_j % L
        p_run.append(acc)
    r_p = nonce("r_p")
    c_p = _commit(p_run, r_p, gens)
    t.absorb(b"products", c_p)
    w = t.challenge(b"w")
    wp = _powers(w, n + 1)
    ell = [(y * (i + 1) + xp[i] - z) % L for i in range(n)]
    # Masks of d and p, and the product check's two cross terms.
    m_d = [nonce("m_d", j) for j in range(n)]
    m_p = [nonce("m_p", j) for j in range(n)]
    rho_d, rho_p = nonce("rho_d"), nonce("rho_p")
    sig_1, sig_0, kappa = nonce("sig_1"), nonce("sig_0"), nonce("kappa")
    d_d, d_p = _commit(m_d, rho_d, gens), _commit(m_p, rho_p, gens)
    u = [1, *p_run[:-1]]
    m_u = [0, *m_p[:-1]]
    t1 = (sum(wp[j] * (m_p[j] - u[j] * m_d[j] - m_u[j] * d[j]) for j in range(n))
          + wp[n] * m_p[n - 1]) % L
    t0 = -sum(wp[j] * m_u[j] * m_d[j] for j in range(n)) % L
    t_1 = _combine([(t1, H_SCALAR)], sig_1)
    t_0 = _combine([(t0, H_SCALAR)], sig_0)
    # sum m_d[j]*Y[j] - kappa*sum ell[i]*X[i], with Y[j] = k*X[perm[j]]: one pass over X.
    back = [0] * n
    for j, p in enumerate(perm):
        back[p] = j
    a_y = _combine([(kk * m_d[back[i]] - kappa * ell[i], inputs[i]) for i in range(n)])
    b_k = base(_b(kappa))
    t.absorb(b"masks", d_d, d_p, t_1, t_0, a_y, b_k)
    c = t.challenge(b"c")
    return ShuffleProof(
        c_a, c_b, c_p, d_d, d_p, t_1, t_0, a_y, b_k,
        s_d=_b(c * (y * r_a + r_b) + rho_d), s_p=_b(c * r_p + rho_p),
        s_t=_b(c * sig_1 + sig_0), z_k=_b(c * kk + kappa),
        z_d=tuple(_b(c * d[j] + m_d[j]) for j in range(n)),
        z_p=tuple(_b(c * p_run[j] + m_p[j]) for j in range(n)))


# --- verifying ------------------------------------------------------------------------------

def verify(context: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes], key: bytes,
           proof: ShuffleProof) -> None:
    """Raise `ShuffleProofError` unless ``proof`` shows ``outputs`` is the ``inputs``
    re-keyed by the k of ``key`` and permuted. The caller has checked the decks' and the
    key's points; this checks every point and scalar of the proof."""
    n = len(inputs)
    if len(outputs) != n or len(proof.z_d) != n or len(proof.z_p) != n:
        raise ProofShapeError("the proof does not have the size of the deck")
    points = [getattr(proof, f) for f in ("c_a", "c_b", "c_p", "d_d", "d_p", "t_1", "t_0",
                                          "a_y", "b_k")]
    try:
        for p in points:
            check_point(p)
        z_d = [_i(check_scalar(s)) for s in proof.z_d]
        z_p = [_i(check_scalar(s)) for s in proof.z_p]
        s_d, s_p, s_t, z_k = (_i(check_scalar(s))
                              for s in (proof.s_d, proof.s_p, proof.s_t, proof.z_k))
    except GroupError as exc:
        raise ShuffleProofError(f"a proof value is not acceptable: {exc}") from exc
    # The size first: with it, the parts after it split one way only.
    seen = VERIFIED.digest(n.to_bytes(4, "little"), context, *inputs, *outputs, key, *points,
                           proof.s_d, proof.s_p, proof.s_t, proof.z_k, *proof.z_d, *proof.z_p)
    if seen in VERIFIED:
        return
    ch = _challenges(_Transcript(context, inputs, outputs, key), proof)
    # The equations are folded with the powers of one more challenge, hashed from the whole
    # proof (the answers too): a last round of the argument, so five different values of
    # it would force every equation on its own.
    t = _Transcript.after(ch.state)
    t.absorb(b"answers", proof.s_d, proof.s_p, proof.s_t, proof.z_k, *proof.z_d, *proof.z_p)
    lam = _powers(t.challenge(b"fold"), 4)
    try:
        left, right = _sides(inputs, outputs, key, proof, ch, lam, z_d, z_p, s_d, s_p, s_t,
                             z_k)
    except GroupError as exc:
        raise ShuffleProofError(f"the proof's points do not combine: {exc}") from exc
    if left != right:
        raise ShuffleProofError("the proof does not show a re-keyed permutation of the deck")
    VERIFIED.add(seen)


def product_check(n: int, ch: _Challenges, z_d: Sequence[int], z_p: Sequence[int]) -> int:
    """F(c): the product check on the masked openings. With u = (1, p_0 .. p_{N-2}) its
    c^2 coefficient is sum w^(j+1) (p_j - u_j d_j) + w^(N+1) (p_{N-1} - P), zero exactly
    when p holds the running products of d and they end at P = prod of the public
    y*(i+1) + x^(i+1) - z."""
    x, y, z, w, c = ch.x, ch.y, ch.z, ch.w, ch.c
    xp, wp = _powers(x, n), _powers(w, n + 1)
    target = 1
    for i in range(n):
        target = target * (y * (i + 1) + xp[i] - z) % L
    z_u = [c, *z_p[:-1]]
    f = sum(wp[j] * (c * z_p[j] - z_u[j] * z_d[j]) for j in range(n))
    return (f + wp[n] * (c * z_p[n - 1] - c * c * target)) % L


def _sides(inputs: Sequence[bytes], outputs: Sequence[bytes], key: bytes, proof: ShuffleProof,
           ch: _Challenges, lam: Sequence[int], z_d: Sequence[int], z_p: Sequence[int],
           s_d: int, s_p: int, s_t: int, z_k: int) -> tuple[bytes, bytes]:
    """Both sides of the five verification equations folded into one with weights
    1, lam[0..3] (the powers l^1..l^4 of the folding challenge; see SHUFFLE.md):

    (d)  s_d*G + sum z_d[i]*H_i            = c*(y*C_a + C_b - z*sum H_i) + D_d
    (p)  s_p*G + sum z_p[i]*H_i            = c*C_p + D_p
    (Y)  sum z_d[j]*Y_j                     = A + z_k * sum ell_i*X_i
    (K)  z_k*G                              = B + c*K
    (F)  F(c)*H' + s_t*G                    = c*T_1 + T_0
    """
    n = len(inputs)
    gens = generators(n)
    x, y, z, c = ch.x, ch.y, ch.z, ch.c
    l1, l2, l3, l4 = lam
    xp = _powers(x, n)
    f = product_check(n, ch, z_d, z_p)
    left = _combine(
        [*((z_d[i] + c * z + l1 * z_p[i], gens[i]) for i in range(n)),
         *((l2 * z_d[j], outputs[j]) for j in range(n)),
         (l4 * f, H_SCALAR)],
        s_d + l1 * s_p + l3 * z_k + l4 * s_t)
    right = _combine(
        [(c * y, proof.c_a), (c, proof.c_b), (1, proof.d_d), (l1 * c, proof.c_p),
         (l1, proof.d_p), (l2, proof.a_y),
         *((l2 * z_k * (y * (i + 1) + xp[i] - z), inputs[i]) for i in range(n)),
         (l3, proof.b_k), (l3 * c, key), (l4 * c, proof.t_1), (l4, proof.t_0)])
    return left, right
