"""Signed envelopes of the deck protocol, and the checks every frame gets.

A frame is ``msgpack([header, body, signature])``. The header binds the message to
the protocol version, table, hand, sender seat, the sender's sequence number,
the message kind, and the sender's view of every seat's message chain (a count
and a hash per seat), which is how equivocation is found. The signature is the
sender seat's Ed25519 signature over the packed header and body.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, TypeVar

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..codec import (
    Anything,
    Bytes,
    CodecError,
    Fixed,
    Int,
    Limits,
    ListOf,
    MapOf,
    Shape,
    ShapeError,
    Text,
    decode_at,
    decode_measured,
    encode,
)
from .group import hash32

PROTOCOL = "tractor-deck/3"  #: 3: verdicts sign the hand's transcript (2: linear shuffle proof)
MAX_FRAME = 256 * 1024  #: largest frame: a lock of 324 cards with proofs fits well below
MAX_SEATS = 12
#: What one frame may be. The largest an honest seat sends, a lock of 324 cards (12 seats,
#: 6 decks), is 78 KB: 2647 values, nested 4 deep, about 225 KB decoded (`codec.measure`);
#: a claim nests 6 deep. 256 KiB of empty maps (18 MiB decoded) is refused after 8192
#: values, unmade.
FRAME_LIMITS = Limits(max_bytes=MAX_FRAME, max_depth=8, max_elements=8192, max_str=4096,
                      max_bin=MAX_FRAME, max_array=4096, max_map=64, max_memory=1 << 20)


class FrameError(CodecError):
    """A frame that is malformed, oversized, unsigned or not from the seat it claims."""

    def __init__(self, message: str, seat: int | None = None) -> None:
        self.seat = seat
        super().__init__(message, "" if seat is None else f"seat {seat}")


class NoRoom(FrameError):
    """A valid frame this peer cannot keep yet (too far ahead of the messages it applied;
    see `holdings.MAX_AHEAD`): refused unread, blaming nobody; it is to come again."""


@dataclass(frozen=True, slots=True)
class Header:
    table: bytes
    hand: int
    seat: int
    seq: int
    kind: str
    views: tuple[tuple[int, bytes], ...]  #: (messages seen, chain hash) for every seat

    def pack(self) -> list[Any]:
        return [PROTOCOL, self.table, self.hand, self.seat, self.seq, self.kind,
                [list(v) for v in self.views]]


@dataclass(frozen=True, slots=True)
class Envelope:
    header: Header
    body: dict[str, Any]
    frame: bytes  #: the frame as received (kept as evidence)
    #: The signed content in canonical encoding: what identifies the message (two frames
    #: that encode the same header and body are the same message).
    content: bytes
    #: Bytes this peer holds while it keeps the envelope: the content as received and as
    #: re-encoded, and the decoded header and body (an upper bound, `codec.measure`). Made
    #: of the content only, so every peer counts a frame the same however it was encoded.
    held: int = 0

    @property
    def seat(self) -> int:
        return self.header.seat


def chain_digest(previous: bytes, content: bytes) -> bytes:
    """The hash of a seat's message chain after one more message (``content``: its signed
    bytes): what the views in every header report, and what have reports abbreviate."""
    return hash32(b"chain", previous, content)


def seal(header: Header, body: dict[str, Any], key: Ed25519PrivateKey) -> bytes:
    signed = encode([header.pack(), body])
    return encode([header.pack(), body, key.sign(signed)])


_PARTS = Fixed(Anything(), Anything(), Anything())
_HEADER = Fixed(*[Anything()] * 7)
_COUNT = Int()
_KIND_BODY_SIG = Fixed(Text(FRAME_LIMITS.max_str), MapOf(Anything(), Anything(), 64),
                       Bytes(max=MAX_FRAME))


T = TypeVar("T")


def _read(shape: Shape[T], value: object, what: str, seat: int | None = None) -> T:
    try:
        return shape.read(value)
    except ShapeError as exc:
        raise FrameError(f"bad {what}: {exc.reason}", seat) from None


def _unpack(frame: bytes) -> tuple[Any, int]:
    """The decoded frame and what it takes decoded (bounded: `FRAME_LIMITS`)."""
    try:
        data, footprint = decode_measured(frame, FRAME_LIMITS)
    except CodecError as exc:
        raise FrameError(f"not a frame: {exc.reason}") from None
    return data, footprint.memory


def open_frame(frame: bytes, table: bytes, hand: int, keys: list[Ed25519PublicKey],
               verify: bool = True) -> Envelope:
    """Check one frame: shape, table, hand, seat, signature (``verify`` False: a frame this
    peer signed itself, read back). Raises `FrameError`."""
    data, memory = _unpack(frame)
    raw_header, body, sig = _read(_PARTS, data, "frame (it is [header, body, signature])")
    proto, t, h, seat, seq, kind, views = _read(_HEADER, raw_header, "header")
    if proto != PROTOCOL:
        raise FrameError(f"unknown protocol {proto!r:.40}")
    seat = _read(Int(0, len(keys) - 1), seat, "seat")
    if t != table:
        raise FrameError("frame for another table", seat)
    if _read(_COUNT, h, "hand number", seat) != hand:
        raise FrameError(f"frame for hand {h}, this is hand {hand}", seat)
    seq = _read(_COUNT, seq, "sequence number", seat)
    kind, _, sig = _read(_KIND_BODY_SIG, [kind, body, sig], "kind, body or signature", seat)
    parsed_views = _read(ListOf(Fixed(_COUNT, Bytes(32)), len(keys), len(keys)), views,
                         "transcript views", seat)
    signed = encode([raw_header, body])
    if verify and not _signed_by(keys[seat], sig, signed):
        raise FrameError("bad signature (forged or altered)", seat)
    header = Header(t, h, seat, seq, kind, parsed_views)
    return Envelope(header, body, frame, signed, 2 * len(signed) + memory)


#: Signatures this process found good, by what they sign and the key. A process that runs
#: several seats (`tractor ai --seats N`, the tests' in-memory tables) gets every frame once
#: per seat: a signature is checked once (about 60 µs). Only public values are kept (the
#: key, the signature, a digest of the signed bytes), bounded: emptied when full.
_GOOD: set[bytes] = set()
_GOOD_MAX = 1 << 16


def _signed_by(key: Ed25519PublicKey, sig: bytes, signed: bytes) -> bool:
    """Whether ``sig`` is ``key``'s signature of ``signed``."""
    seen = sig + hashlib.blake2b(signed, key=key.public_bytes_raw(), digest_size=32).digest()
    if seen in _GOOD:
        return True
    try:
        key.verify(sig, signed)
    except InvalidSignature:
        return False
    if len(_GOOD) >= _GOOD_MAX:
        _GOOD.clear()
    _GOOD.add(seen)
    return True


def peek_hand(frame: bytes) -> int:
    """The hand number a frame claims, read without the rest of it (nothing is verified:
    `open_frame` checks the whole frame). A frame is an array of three, its header an array
    of seven: `seal` writes both headers in one byte."""
    if type(frame) is not bytes or frame[:2] != b"\x93\x97":
        raise FrameError("a frame is [header, body, signature]")
    try:
        hand = decode_at(frame, FRAME_LIMITS, 4)
    except CodecError as exc:
        raise FrameError(f"not a frame: {exc.reason}") from None
    return _read(_COUNT, hand, "hand number")
