"""The handshake that opens every link: a versioned hello, then a signed proof of the seat's
key, before any game frame crosses it.

On each side of a connection: send a hello ``[version, table, seat, public key, nonce]``
with a fresh random nonce; read the other side's hello; send a proof, an Ed25519 signature
by this seat's session key over both nonces, the table and both seats (`proof_message`);
read and check the other side's proof. Public keys are known to the whole table (and
visible on the LAN), so a hello alone proves nothing: only the proof shows that the other
side holds the seat's private key, and since it signs this connection's nonce it cannot be
replayed on another connection.

No Twisted here: bytes in, bytes out (`link.PeerLink` runs it on a connection).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import NamedTuple, Protocol

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tractor.net.codec import CodecError, Limits, decode, encode
from tractor.net.errors import NetError

WIRE_VERSION = "tractor-wire/5"  #: 5: ballots (4: frames relayed, have reports; 3: heartbeats)
NONCE_SIZE = 32
#: Prefix of every signed link proof. The session key also signs deck frames, whose signed
#: bytes always begin with a msgpack array; this prefix begins with a letter, so a proof can
#: never pass for a deck message, nor a deck message for a proof.
PROOF_CONTEXT = b"tractor-wire/2 link proof\x00"
_PROOF_TAG = "proof"
#: A hello is five scalars, a proof two: nothing nested, nothing long.
HELLO_LIMITS = Limits(max_bytes=256, max_depth=1, max_elements=6, max_str=64, max_bin=64,
                      max_array=8, max_map=0, max_memory=4096)
PROOF_LIMITS = Limits(max_bytes=128, max_depth=1, max_elements=3, max_str=16, max_bin=64,
                      max_array=2, max_map=0, max_memory=1024)


class SeatIdentity(Protocol):
    """Who this peer is at its table: what every link's handshake proves, whichever kind of
    link (TCP, `link.LinkNode`, or a pair link, `pair_links.PairLinkHost`)."""

    @property
    def table(self) -> bytes: ...

    @property
    def seat(self) -> int: ...

    @property
    def raw_keys(self) -> Sequence[bytes]:
        """Every seat's public key, raw."""
        ...

    @property
    def signing_key(self) -> Ed25519PrivateKey: ...


class HelloError(NetError, ValueError):
    """A hello or link proof that does not fit this table."""


class Hello(NamedTuple):
    """What a checked hello says: the seat it claims (not yet proven) and its nonce."""

    seat: int
    nonce: bytes


def pack_hello(table: bytes, seat: int, public_key: bytes, nonce: bytes | None = None) -> bytes:
    """This seat's hello; ``nonce`` is fresh for every connection (random if not given)."""
    if nonce is None:
        nonce = os.urandom(NONCE_SIZE)
    return encode([WIRE_VERSION, table, seat, public_key, nonce])


def open_hello(data: bytes, table: bytes, keys: Sequence[bytes], me: int) -> Hello:
    """The seat a hello claims and its nonce; raises `HelloError` if anything does not fit.
    The claim is only checked against the table's public keys: `check_proof` proves it."""
    try:
        hello = decode(data, HELLO_LIMITS)
    except CodecError as exc:
        raise HelloError(f"unreadable hello: {exc.reason}") from exc
    if not isinstance(hello, list) or not hello:
        raise HelloError("a hello is [version, table, seat, key, nonce]")
    # The version first: a peer on another release gets a reason it can act on.
    if hello[0] != WIRE_VERSION:
        raise HelloError(f"unsupported protocol {hello[0]!r:.40}: this peer speaks "
                         f"{WIRE_VERSION} (every seat needs a compatible tractor)")
    if len(hello) != 5:
        raise HelloError("a hello is [version, table, seat, key, nonce]")
    _, t, seat, key, nonce = hello
    if t != table:
        raise HelloError("hello for another table")
    if type(seat) is not int or not 0 <= seat < len(keys) or seat == me:
        raise HelloError(f"no such seat {seat!r:.10}")
    if key != keys[seat]:
        raise HelloError(f"seat {seat} presents another key than the table's")
    if type(nonce) is not bytes or len(nonce) != NONCE_SIZE:
        raise HelloError(f"seat {seat} sent a hello without a {NONCE_SIZE}-byte nonce")
    return Hello(seat, nonce)


def read_hello(data: bytes, table: bytes, keys: Sequence[bytes], me: int) -> int:
    """The seat a hello claims (see `open_hello`); raises `HelloError`."""
    return open_hello(data, table, keys, me).seat


def proof_message(table: bytes, signer: int, verifier: int, verifier_nonce: bytes,
                  signer_nonce: bytes) -> bytes:
    """The bytes seat ``signer`` signs to prove its key to seat ``verifier`` on one
    connection: the verifier's nonce makes it useless on any other connection, the seats
    stop it being reflected back or shown to a third seat."""
    return PROOF_CONTEXT + encode([WIRE_VERSION, table, signer, verifier, verifier_nonce,
                                   signer_nonce])


def pack_proof(key: Ed25519PrivateKey, table: bytes, signer: int, verifier: int,
               verifier_nonce: bytes, signer_nonce: bytes) -> bytes:
    """The proof frame ``signer`` sends after reading ``verifier``'s hello."""
    signature = key.sign(proof_message(table, signer, verifier, verifier_nonce, signer_nonce))
    return encode([_PROOF_TAG, signature])


def check_proof(data: bytes, public_key: bytes, table: bytes, signer: int, verifier: int,
                verifier_nonce: bytes, signer_nonce: bytes) -> None:
    """Raise `HelloError` unless ``data`` is ``signer``'s proof for this connection."""
    try:
        proof = decode(data, PROOF_LIMITS)
    except CodecError:
        proof = None
    if (not isinstance(proof, list) or len(proof) != 2 or proof[0] != _PROOF_TAG
            or type(proof[1]) is not bytes):
        raise HelloError("sent another frame before proving it holds the seat's key")
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(
            proof[1], proof_message(table, signer, verifier, verifier_nonce, signer_nonce))
    except (InvalidSignature, ValueError) as exc:
        raise HelloError("its proof does not verify with the seat's key (an impostor, or a "
                         "proof replayed from another connection)") from exc

