"""Signed envelopes of the deck protocol, and the checks every frame gets.

A frame is ``msgpack([header, body, signature])``. The header binds the message to
the protocol version, table, hand, sender seat, the sender's sequence number,
the message kind, and the sender's view of every seat's message chain (a count
and a hash per seat), which is how equivocation is found. The signature is the
sender seat's Ed25519 signature over the packed header and body.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .group import hash32

PROTOCOL = "tractor-deck/3"  #: 3: verdicts sign the hand's transcript (2: linear shuffle proof)
MAX_FRAME = 256 * 1024  #: largest frame: a lock of 324 cards with proofs fits well below
MAX_SEATS = 12


class FrameError(ValueError):
    """A frame that is malformed, oversized, unsigned or not from the seat it claims."""

    def __init__(self, message: str, seat: int | None = None) -> None:
        self.seat = seat
        super().__init__(message if seat is None else f"seat {seat}: {message}")


class NoRoom(FrameError):
    """A valid frame this peer cannot keep yet (too far ahead of the messages it applied;
    see `engine.MAX_AHEAD`): refused unread, blaming nobody; it is to come again."""


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

    @property
    def seat(self) -> int:
        return self.header.seat


def chain_digest(previous: bytes, content: bytes) -> bytes:
    """The hash of a seat's message chain after one more message (``content``: its signed
    bytes): what the views in every header report, and what have reports abbreviate."""
    return hash32(b"chain", previous, content)


def seal(header: Header, body: dict[str, Any], key: Ed25519PrivateKey) -> bytes:
    signed = msgpack.packb([header.pack(), body], use_bin_type=True)
    return msgpack.packb([header.pack(), body, key.sign(signed)], use_bin_type=True)


def _unpack(frame: bytes) -> Any:
    if type(frame) is not bytes or len(frame) > MAX_FRAME:
        raise FrameError(f"frame larger than {MAX_FRAME} bytes or not bytes")
    try:
        return msgpack.unpackb(frame, raw=False, strict_map_key=True, use_list=True,
                               max_bin_len=MAX_FRAME,
                               max_str_len=4096, max_array_len=4096, max_map_len=64,
                               max_ext_len=0)
    except (msgpack.UnpackException, ValueError, TypeError) as exc:
        raise FrameError(f"not a msgpack frame: {exc}") from exc


def _int(v: Any, what: str, lo: int = 0, hi: int = 2**62) -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise FrameError(f"bad {what}")
    return v


def open_frame(frame: bytes, table: bytes, hand: int, keys: list[Ed25519PublicKey],
               verify: bool = True) -> Envelope:
    """Check one frame: shape, table, hand, seat, signature (``verify`` False: a frame this
    peer signed itself, read back). Raises `FrameError`."""
    data = _unpack(frame)
    if not isinstance(data, list) or len(data) != 3:
        raise FrameError("a frame is [header, body, signature]")
    raw_header, body, sig = data
    if not isinstance(raw_header, list) or len(raw_header) != 7:
        raise FrameError("bad header")
    proto, t, h, seat, seq, kind, views = raw_header
    if proto != PROTOCOL:
        raise FrameError(f"unknown protocol {proto!r:.40}")
    seat = _int(seat, "seat", 0, len(keys) - 1)
    if t != table:
        raise FrameError("frame for another table", seat)
    if _int(h, "hand number") != hand:
        raise FrameError(f"frame for hand {h}, this is hand {hand}", seat)
    seq = _int(seq, "sequence number")
    if type(kind) is not str or not isinstance(body, dict) or type(sig) is not bytes:
        raise FrameError("bad kind, body or signature", seat)
    if not isinstance(views, list) or len(views) != len(keys):
        raise FrameError("bad transcript views", seat)
    parsed_views = []
    for v in views:
        if (not isinstance(v, list) or len(v) != 2 or type(v[1]) is not bytes
                or len(v[1]) != 32):
            raise FrameError("bad transcript view", seat)
        parsed_views.append((_int(v[0], "view count"), v[1]))
    signed = msgpack.packb([raw_header, body], use_bin_type=True)
    try:
        if verify:
            keys[seat].verify(sig, signed)
    except InvalidSignature as exc:
        raise FrameError("bad signature (forged or altered)", seat) from exc
    header = Header(t, h, seat, seq, kind, tuple(parsed_views))
    return Envelope(header, body, frame, signed)


def peek_hand(frame: bytes) -> int:
    """The hand number a frame claims, read with the same bounds (nothing is verified)."""
    data = _unpack(frame)
    try:
        hand = data[0][2]
    except (TypeError, IndexError, KeyError) as exc:
        raise FrameError("a frame is [header, body, signature]") from exc
    return _int(hand, "hand number")
