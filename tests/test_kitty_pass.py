"""Buried positions handed to the seat that takes the kitty (`net.deck.kitty_pass`): the
taker opens exactly the cards asked for, an answer that is not the card asked is refused,
and a card passed on twice still opens with its last holder's secret only."""

from __future__ import annotations

import pytest

from tractor.net.deck.group import (
    SecretStream,
    base,
    hash_to_scalar,
    inv,
    mul,
    point_from_hash,
    sadd,
    smul,
)
from tractor.net.deck.kitty_pass import (
    KittyPassError,
    answer,
    dealt_holding,
    opened,
    request,
    taken,
)

CONTEXT = b"hand 1 kitty"


def locked(points: list[bytes], keys: list[list[bytes]]) -> list[bytes]:
    """Each card point under every seat's lock key for its position."""
    out = []
    for p, point in enumerate(points):
        total = keys[0][p]
        for seat_keys in keys[1:]:
            total = smul(total, seat_keys[p])
        out.append(mul(total, point))
    return out


@pytest.fixture(scope="module")
def table() -> tuple[list[bytes], list[list[bytes]], list[bytes], list[SecretStream]]:
    """Four seats' lock keys on three positions owned by seat 0 (North buried them)."""
    secrets = [SecretStream(bytes([s]) * 32) for s in range(4)]
    points = [point_from_hash(b"card", bytes([i])) for i in range(3)]
    keys = [[s.scalar("lock", p) for p in range(3)] for s in secrets]
    return points, keys, locked(points, keys), secrets


def north_holds(table, p: int):
    points, keys, final, _ = table
    return dealt_holding(final[p], [keys[s][p] for s in (1, 2, 3)], base(keys[0][p]))


def test_the_taker_opens_the_card_asked_and_passes_it_on(table) -> None:
    points, keys, _, secrets = table
    held = north_holds(table, 0)
    c = secrets[1].scalar("take", 0)
    asked = request(held, c)
    reply = answer(held, keys[0][0], asked, CONTEXT, secrets[0].scalar("nonce", 0))
    east = taken(held, asked, reply, CONTEXT)  # every peer checks the answer
    assert opened(east, c) == points[0]
    # What the others see is blinded: neither the request nor the answer is the card.
    assert points[0] not in (asked, reply.point, east.value)
    # South overcalls East in turn: the card passes on, East's secret answers.
    d = secrets[2].scalar("take", 0)
    asked2 = request(east, d)
    south = taken(east, asked2, answer(east, c, asked2, CONTEXT, secrets[1].scalar("n", 0)),
                  CONTEXT)
    assert opened(south, d) == points[0]
    with pytest.raises(KittyPassError, match="not the holder's"):
        opened(south, c)  # East's old secret no longer shows it


def test_an_answer_that_is_not_the_card_asked_is_refused(table) -> None:
    points, keys, _, secrets = table
    held, other = north_holds(table, 0), north_holds(table, 1)
    c = secrets[1].scalar("take", 0)
    asked = request(held, c)
    nonce = secrets[0].scalar("nonce", 0)
    # North answers with another buried card, or with a key that is not its lock key.
    swapped = answer(other, keys[0][1], request(other, c), CONTEXT, nonce)
    with pytest.raises(KittyPassError, match="not the card asked"):
        taken(held, asked, swapped, CONTEXT)
    wrong_key = answer(held, keys[1][0], asked, CONTEXT, nonce)
    with pytest.raises(KittyPassError, match="not the card asked"):
        taken(held, asked, wrong_key, CONTEXT)
    # Replayed in another hand's context, the proof fails too.
    good = answer(held, keys[0][0], asked, CONTEXT, nonce)
    with pytest.raises(KittyPassError):
        taken(held, asked, good, b"another hand")



#: The order of the group's scalars (Ed25519's L), for a negation.
ORDER = 2**252 + 27742317777372353535851937790883648493


def test_two_answers_for_one_position_do_not_give_the_key_away(table) -> None:
    """A taker that makes the holder answer two different requests for one position (two
    versions of its request, or one after a crash) learns nothing of the lock key: the
    proofs' nonces differ with the request (one nonce would solve for the key)."""
    _, keys, _, secrets = table
    held = north_holds(table, 2)
    seed = secrets[0].scalar("nonce", 2)
    replies = []
    for label in ("first", "second"):
        asked = request(held, secrets[1].scalar(label, 2))
        reply = answer(held, keys[0][2], asked, CONTEXT, seed)
        c = hash_to_scalar(b"kitty-pass", CONTEXT, held.value, held.base, held.key_of,
                           asked, reply.point, reply.a1, reply.a2)
        replies.append((reply, c))
    (r1, c1), (r2, c2) = replies
    minus_one = (ORDER - 1).to_bytes(32, "little")
    # With one nonce for both, z1 - z2 = (c1 - c2) * l: that quotient must not be the key.
    dz, dc = sadd(r1.z, smul(minus_one, r2.z)), sadd(c1, smul(minus_one, c2))
    assert smul(dz, inv(dc)) != keys[0][2]
