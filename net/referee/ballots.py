"""Ballots on the wire: the referee's signed votes and passes (`net.referee.machine`), as frames.

A ballot frame is a map of two, ``{"ballot": [table, hand, signer, seat, moves, came,
what], "sig": signature}``: ``signer`` says of seat ``seat``'s next move after its first
``moves`` in ``hand`` either that it waited past the deadline for it (a vote, ``came``
false, ``what`` the step it waited for) or that it holds it (a pass, ``came`` true). The
signature is the signer's session key over `BALLOT_CONTEXT` and the encoded body: the
context begins with a letter, so a ballot can never pass for a deck frame (an array) or any
other signed text of the table (link proofs, complaints).

>>> from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
>>> keys = [Ed25519PrivateKey.from_private_bytes(bytes([s]) * 32) for s in range(4)]
>>> public = [k.public_key() for k in keys]
>>> frame = pack_ballot(keys[1], b"t" * 16, Ballot(Item(0, 2, 5), signer=1, came=False,
...                                                  what="play"))
>>> is_ballot(frame)
True
>>> read_ballot(frame, b"t" * 16, public, who="seat 3").item
Item(hand=0, seat=2, moves=5)
>>> read_ballot(frame[:-1] + b"x", b"t" * 16, public, who="seat 3")
Traceback (most recent call last):
...
tractor.net.referee.ballots.BallotError: seat 3: the ballot's signature does not verify
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tractor.net.codec import (
    Bool,
    Bytes,
    CodecError,
    Fixed,
    Int,
    Limits,
    Record,
    Text,
    decode,
    encode,
)
from tractor.net.referee.machine import Ballot, Item

#: Prefix of every signed ballot (see the module's docstring).
BALLOT_CONTEXT = b"tractor-wire/5 ballot\x00"
MAX_WHAT = 32  #: the longest step a vote names ("declaration window")
MAX_BALLOT = 400  #: bytes of one ballot frame (a signature, a table id and a few numbers)
BALLOT_LIMITS = Limits(max_bytes=MAX_BALLOT, max_depth=2, max_elements=12, max_str=MAX_WHAT,
                       max_bin=64, max_array=7, max_map=2, max_memory=8192)
_TAG = b"ballot"


class BallotError(CodecError):
    """A ballot frame that does not parse, is for another table or is not signed by the
    seat it names."""


@dataclass(frozen=True)
class _Signed:
    table: bytes
    hand: int
    signer: int
    seat: int
    moves: int
    came: bool
    what: str
    sig: bytes


def _shape(seats: int) -> Record[_Signed]:
    seat = Int(0, seats - 1)
    return Record({"ballot": Fixed(Bytes(max=64), Int(0, 1 << 31), seat, seat, Int(0, 1 << 31),
                                   Bool(), Text(MAX_WHAT)),
                   "sig": Bytes(size=64)},
                  _signed)


def _signed(ballot: tuple[Any, ...], sig: bytes) -> _Signed:
    """(The ballot's seven fields: `Fixed` reads exactly as many.)"""
    table, hand, signer, seat, moves, came, what = ballot
    return _Signed(table, hand, signer, seat, moves, came, what, sig)


def _body(table: bytes, ballot: Ballot) -> list[object]:
    i = ballot.item
    return [table, i.hand, ballot.signer, i.seat, i.moves, ballot.came, ballot.what]


def pack_ballot(key: Ed25519PrivateKey, table: bytes, ballot: Ballot) -> bytes:
    """``ballot``, signed by ``key`` (the signer's session key) for ``table``."""
    body = _body(table, ballot)
    return encode({"ballot": body, "sig": key.sign(BALLOT_CONTEXT + encode(body))})


def is_ballot(frame: bytes) -> bool:
    """Whether a frame says it is a ballot (`read_ballot` then checks it all)."""
    return frame[:1] == b"\x82" and _TAG in frame[:9]


def read_ballot(frame: bytes, table: bytes, keys: Sequence[Ed25519PublicKey],
                who: str = "") -> Ballot:
    """The ballot in ``frame``, checked: its shape, its table, its signer's signature.
    Raises `BallotError` naming ``who`` brought it."""
    try:
        data = _shape(len(keys)).read(decode(frame, BALLOT_LIMITS, who), who)
    except CodecError as exc:
        raise BallotError(f"unreadable ballot: {exc.reason}", who) from None
    if data.table != table:
        raise BallotError("a ballot for another table", who)
    if data.came and data.what:
        raise BallotError("a pass names no step", who)
    ballot = Ballot(Item(data.hand, data.seat, data.moves), data.signer, data.came, data.what,
                    frame)
    try:
        keys[data.signer].verify(data.sig, BALLOT_CONTEXT + encode(_body(table, ballot)))
    except InvalidSignature:
        raise BallotError("the ballot's signature does not verify", who) from None
    return ballot
