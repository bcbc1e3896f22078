"""Handing buried positions to a seat that takes the kitty (`Rules.kitty_theft`), so that
the new holder can open exactly those cards and nobody else learns any card.

A dealt position p opens with every seat's lock key; once it is dealt every key but its
owner's is public, so anyone can strip those and holds ``V = l*P`` (P: the card's point,
l: the owner's lock key, committed as ``L = l*G``). The owner cannot publish l (everyone
would see the card), so the card changes hands by a blinded exchange:

1. the taker picks a fresh secret c and posts the request ``R = c*V``;
2. the holder answers ``W = l^-1 * R = c*P`` with a proof (Chaum-Pedersen) that the same l
   relates ``(G, L)`` and ``(W, R)``: the answer is the card asked for, nothing else;
3. the taker opens ``P = c^-1 * W``; the others see R and W, blinded by c.

The taker now holds p as `Holding` ``(value W, statement (V, R))``, the statement binding
its secret c as L bound l; it passes p on in the same way (a later overcall), and shows it
(a play) by publishing c, which anyone checks against the statement before opening the
card. Secrets come from the hand's `SecretStream`, so a peer rebuilt after a crash makes
the same requests. Plain functions over 32-byte points and scalars (`group`).
"""

from __future__ import annotations

from dataclasses import dataclass

from tractor.net.errors import NetError

from .group import (
    GroupError,
    add,
    base,
    check_point,
    check_scalar,
    hash_to_scalar,
    inv,
    mul,
    sadd,
    smul,
)

#: The group's generator G (1*G).
GENERATOR = base((1).to_bytes(32, "little"))


class KittyPassError(NetError, ValueError):
    """A request, answer or shown secret that does not check out."""


@dataclass(frozen=True, slots=True)
class Holding:
    """How a seat holds a position: ``value`` = h*P for its secret h, and the public
    statement ``key_of = h * base`` that binds h (a dealt card: base G, key_of its lock
    key's L)."""

    value: bytes
    base: bytes
    key_of: bytes


@dataclass(frozen=True, slots=True)
class Answer:
    """The holder's answer to a request: the card under the taker's blinding, and the
    proof (commitments a1, a2, response z) that it used its own secret."""

    point: bytes
    a1: bytes
    a2: bytes
    z: bytes


def dealt_holding(final: bytes, other_keys: list[bytes], lock: bytes) -> Holding:
    """The owner's holding of a dealt position: ``final`` the locked point, ``other_keys``
    the lock keys every other seat released, ``lock`` the owner's public L."""
    strip = (1).to_bytes(32, "little")
    for k in other_keys:
        strip = smul(strip, k)
    return Holding(mul(inv(strip), final), GENERATOR, lock)


def request(holding: Holding, secret: bytes) -> bytes:
    """The taker's request for a position held as ``holding``, blinded by ``secret``."""
    return mul(secret, holding.value)


def answer(holding: Holding, secret: bytes, asked: bytes, context: bytes,
           seed: bytes) -> Answer:
    """The holder's answer to ``asked`` with its ``secret``. The proof's nonce is derived
    from ``seed`` (a secret of the hand's) together with the request itself: a nonce used
    for two different challenges would give the secret away (two responses z = r + c*l
    solve for l), and a lying taker could otherwise make this peer answer one position
    twice (say, two versions of a request, or the same request after a crash)."""
    nonce = hash_to_scalar(b"kitty-nonce", seed, context, holding.value, asked)
    point = mul(inv(secret), asked)
    a1, a2 = mul(nonce, holding.base), mul(nonce, point)
    c = _challenge(context, holding, asked, point, a1, a2)
    return Answer(point, a1, a2, sadd(nonce, smul(c, secret)))


def taken(holding: Holding, asked: bytes, reply: Answer, context: bytes) -> Holding:
    """Check ``reply`` to the request ``asked`` for the position held as ``holding``; the
    taker's new holding. Raises `KittyPassError` when the answer is not the card asked."""
    try:
        for p in (reply.point, reply.a1, reply.a2, asked):
            check_point(p)
        z = check_scalar(reply.z)
        c = _challenge(context, holding, asked, reply.point, reply.a1, reply.a2)
        ok = (mul(z, holding.base) == add(reply.a1, mul(c, holding.key_of))
              and mul(z, reply.point) == add(reply.a2, mul(c, asked)))
    except GroupError as exc:
        raise KittyPassError(f"a kitty answer is malformed: {exc}") from exc
    if not ok:
        raise KittyPassError("a kitty answer is not the card asked for")
    return Holding(reply.point, holding.value, asked)


def opened(holding: Holding, secret: bytes) -> bytes:
    """The card point under ``holding`` shown with its holder's ``secret`` (its own, or one
    it published), checked against the statement."""
    try:
        check_scalar(secret)
        if mul(secret, holding.base) != holding.key_of:
            raise KittyPassError("the secret shown is not the holder's for this position")
        return mul(inv(secret), holding.value)
    except GroupError as exc:
        raise KittyPassError(f"a shown secret is malformed: {exc}") from exc


def _challenge(context: bytes, holding: Holding, asked: bytes, point: bytes, a1: bytes,
               a2: bytes) -> bytes:
    return hash_to_scalar(b"kitty-pass", context, holding.value, holding.base,
                          holding.key_of, asked, point, a1, a2)
