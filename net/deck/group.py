"""The prime-order subgroup of Ed25519 through libsodium (PyNaCl), with checked inputs.

Points and scalars are 32-byte strings. Every point that arrives from a peer goes
through `check_point` (canonical, on the curve, in the prime-order subgroup, not
the identity); every scalar through `check_scalar` (canonical, reduced, non-zero).
`OPS` counts scalar multiplications so benchmarks can report them.
"""

from __future__ import annotations

import hashlib
import hmac

from nacl import bindings as sodium

from tractor.net.errors import NetError

POINT_BYTES = 32
SCALAR_BYTES = 32
#: The order of the prime-order subgroup.
L = 2**252 + 27742317777372353535851937790883648493


class GroupError(NetError, ValueError):
    """A point or scalar that is not acceptable (malformed, small order, zero ...)."""


class OpCounter:
    """Scalar multiplications done by this process (variable-base and fixed-base)."""

    def __init__(self) -> None:
        self.mults = 0
        self.base_mults = 0

    def total(self) -> int:
        return self.mults + self.base_mults


OPS = OpCounter()


#: Points this process has found valid. The check costs about a scalar multiplication, and
#: a process that runs several seats (`tractor ai --seats N`, the tests' in-memory tables)
#: gets every message once per seat: a point is checked once. (One seat alone checks each
#: point once anyway.) Bounded: emptied when full.
_VALID: set[bytes] = set()
_VALID_MAX = 1 << 17


def check_point(p: object) -> bytes:
    """``p`` if it is a valid subgroup point, else `GroupError`."""
    if type(p) is not bytes or len(p) != POINT_BYTES:
        raise GroupError("a point is 32 bytes")
    if p in _VALID:
        return p
    if not sodium.crypto_core_ed25519_is_valid_point(p):
        raise GroupError("not a point of the prime-order subgroup")
    if len(_VALID) >= _VALID_MAX:
        _VALID.clear()
    _VALID.add(p)
    return p


def check_scalar(s: object) -> bytes:
    """``s`` if it is a canonical non-zero scalar (below the group order), else `GroupError`."""
    if type(s) is not bytes or len(s) != SCALAR_BYTES:
        raise GroupError("a scalar is 32 bytes")
    v = int.from_bytes(s, "little")
    if v == 0 or v >= L:
        raise GroupError("a scalar must be reduced and non-zero")
    return s


def mul(k: bytes, p: bytes) -> bytes:
    """k * P. libsodium rejects small-order and non-subgroup points and an identity result."""
    OPS.mults += 1
    try:
        return sodium.crypto_scalarmult_ed25519_noclamp(k, p)
    except RuntimeError as exc:  # libsodium's refusal: a bad point or a zero result
        raise GroupError("scalar multiplication refused (bad point or zero result)") from exc


def base(k: bytes) -> bytes:
    """k * G."""
    OPS.base_mults += 1
    try:
        return sodium.crypto_scalarmult_ed25519_base_noclamp(k)
    except RuntimeError as exc:
        raise GroupError("base multiplication refused (zero scalar)") from exc


def add(p: bytes, q: bytes) -> bytes:
    return sodium.crypto_core_ed25519_add(p, q)


def sub(p: bytes, q: bytes) -> bytes:
    return sodium.crypto_core_ed25519_sub(p, q)


def smul(a: bytes, b: bytes) -> bytes:
    return sodium.crypto_core_ed25519_scalar_mul(a, b)


def sadd(a: bytes, b: bytes) -> bytes:
    return sodium.crypto_core_ed25519_scalar_add(a, b)


def inv(a: bytes) -> bytes:
    return sodium.crypto_core_ed25519_scalar_invert(a)


def scalar_from(data: bytes) -> bytes:
    """A uniform scalar from 64 bytes; zero (probability 2^-252) is replaced by one."""
    s = sodium.crypto_core_ed25519_scalar_reduce(data)
    return s if any(s) else (1).to_bytes(32, "little")


def hash_to_scalar(*parts: bytes) -> bytes:
    """A Fiat-Shamir challenge: SHA-512 of length-prefixed parts, reduced."""
    return scalar_from(hash64(*parts))


def _digest(h: hashlib._Hash, parts: tuple[bytes, ...]) -> bytes:
    """Hash length-prefixed parts, so no two lists of parts share an encoding."""
    for p in parts:
        h.update(len(p).to_bytes(4, "little"))
        h.update(p)
    return h.digest()


def hash64(*parts: bytes) -> bytes:
    return _digest(hashlib.sha512(), parts)


def hash32(*parts: bytes) -> bytes:
    return _digest(hashlib.sha256(), parts)


def point_from_hash(*parts: bytes) -> bytes:
    """A point nobody knows a discrete log of: Elligator map of a hash (cofactor cleared)."""
    return sodium.crypto_core_ed25519_from_uniform(hash32(*parts))


class SecretStream:
    """Deterministic secrets from one per-hand seed: HMAC-SHA512(seed, label), so a peer
    that persists the seed can rebuild every key, permutation and nonce after a crash."""

    def __init__(self, seed: bytes) -> None:
        if len(seed) < 32:
            raise ValueError("a hand seed has at least 32 bytes")
        self._seed = seed

    def bytes64(self, *label: str | int) -> bytes:
        text = "/".join(str(x) for x in label).encode()
        return hmac.new(self._seed, text, hashlib.sha512).digest()

    def scalar(self, *label: str | int) -> bytes:
        return scalar_from(self.bytes64(*label))

    def permutation(self, n: int, *label: str | int) -> list[int]:
        """A uniform permutation of range(n) (Fisher-Yates on a SHAKE-256 stream)."""
        stream = hashlib.shake_256(self.bytes64("perm", *label)).digest(8 * n + 64)
        pos = 0
        perm = list(range(n))
        for i in range(n - 1, 0, -1):
            bound = i + 1
            limit = (1 << 32) - ((1 << 32) % bound)
            while True:
                if pos + 4 > len(stream):  # practically never: extend the stream
                    stream += hashlib.shake_256(stream).digest(8 * n)
                v = int.from_bytes(stream[pos:pos + 4], "little")
                pos += 4
                if v < limit:
                    break
            j = v % bound
            perm[i], perm[j] = perm[j], perm[i]
        return perm
