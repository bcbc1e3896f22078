"""Deadlines for every step a seat owes the table, and the signed complaint.

Each peer's referee (`net.referee.machine`) notes since when it waits for each seat's next message
(`TableHand.waiting_on`); past the step's deadline it complains. The complaint is signed
(`pack_complaint`) and goes to every seat, which relays it once and, if it holds the
awaited frames, sends them to the complainer at once. `COMPLAINT_WAIT` seconds later, still
without the message, the peer votes on it (`net.referee.ballots`); a seat is named only on the
votes of every other seat (`Stalled`).
"""

from __future__ import annotations

from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tractor.net.codec import CodecError, Limits, decode, encode
from tractor.net.errors import NetError

Seat = int
#: Seconds a step the protocol makes by itself may take (a shuffle with its proof on a slow
#: machine, keys, claims, verdicts): far above what an honest peer needs.
AUTO_DEADLINE = 60.0
#: Seconds a person may think over a decision (a play, a declaration, a bid, a burial).
MOVE_DEADLINE = 300.0
DECISIONS = frozenset({"play", "declaration window", "bid", "show", "name", "burial",
                       "call"})
COMPLAINT_WAIT = 10.0  #: seconds between the complaint and the blame
#: Prefix of every signed complaint: never a deck frame (those begin with an array) nor a
#: link proof (another text).
COMPLAINT_CONTEXT = b"tractor-wire/4 stall complaint\x00"
MAX_COMPLAINT = 400
#: A complaint: a map of two, one of them a list of six scalars.
NOTICE_LIMITS = Limits(max_bytes=MAX_COMPLAINT, max_depth=2, max_elements=20, max_str=32,
                       max_bin=128, max_array=7, max_map=2, max_memory=8192)


class Stalled(NetError):
    """A connected seat withheld a message it owed past its deadline and a complaint."""

    def __init__(self, seat: Seat, what: str, seconds: float,
                 complaints: tuple[bytes, ...] = (), moves: int | None = None) -> None:
        self.seat, self.what, self.seconds = seat, what, seconds
        #: The signed votes of every other seat (the evidence).
        self.frames = complaints
        #: Its moves in the hand before the one it withheld (the votes' item; None: unknown).
        self.moves = moves
        super().__init__(f"seat {seat}: sent no {what} for {seconds:.0f} s while connected "
                         f"(and after a complaint), so the table cannot go on")


def complaint_message(table: bytes, hand: int, complainer: Seat, about: Seat, what: str,
                      held: int) -> bytes:
    return COMPLAINT_CONTEXT + encode([table, hand, complainer, about, what, held])


def pack_complaint(key: Ed25519PrivateKey, table: bytes, hand: int, complainer: Seat,
                   about: Seat, what: str, held: int) -> bytes:
    """A signed complaint: ``complainer`` has waited past the deadline for ``about``'s
    ``what`` in ``hand``, holding ``held`` of its frames. A map, like a have report."""
    body = [table, hand, complainer, about, what, held]
    signature = key.sign(complaint_message(table, hand, complainer, about, what, held))
    return encode({"stall": body, "sig": signature})


@dataclass(frozen=True)
class Complaint:
    hand: int
    complainer: Seat
    about: Seat
    what: str
    held: int


class ComplaintError(NetError, ValueError):
    """A complaint that does not parse, is for another table or is not signed."""


def is_complaint(frame: bytes) -> bool:
    return frame[:1] == b"\x82" and b"stall" in frame[:8]


def _read_signed(frame: bytes, name: str, key: str, size: int) -> tuple[list[object], bytes]:
    if len(frame) > MAX_COMPLAINT:
        raise ComplaintError(f"{name} too large")
    try:
        data = decode(frame, NOTICE_LIMITS)
    except CodecError as exc:
        raise ComplaintError(f"unreadable {name}: {exc.reason}") from exc
    if not isinstance(data, dict) or set(data) != {key, "sig"}:
        raise ComplaintError(f"a {name} is {{{key}: [...], sig: ...}}")
    body, sig = data[key], data["sig"]
    if not isinstance(body, list) or len(body) != size or type(sig) is not bytes:
        raise ComplaintError(f"a {name} has {size} fields")
    return body, sig


def read_complaint(frame: bytes, table: bytes, keys: list[Ed25519PublicKey]) -> Complaint:
    body, sig = _read_signed(frame, "complaint", "stall", 6)
    t, hand, complainer, about, what, held = body
    if t != table:
        raise ComplaintError("complaint for another table")
    if not (type(hand) is int and type(held) is int and type(complainer) is int
            and type(about) is int and type(what) is str):
        raise ComplaintError("bad fields")
    seats = len(keys)
    if not (0 <= complainer < seats and 0 <= about < seats and hand >= 0 and held >= 0):
        raise ComplaintError("bad fields")
    try:  # (``t`` is ``table``)
        keys[complainer].verify(sig, complaint_message(table, hand, complainer, about, what,
                                                       held))
    except InvalidSignature as exc:
        raise ComplaintError("complaint signature does not verify") from exc
    return Complaint(hand, complainer, about, what, held)
