"""Deadlines for every step a seat owes the table, with blame only where it is due.

A connected seat that withholds its shuffle, a play or its verdict would stall the table
for ever. `StallWatch` notes since when this peer waits for each seat's next message
(`TableHand.waiting_on`); past the step's deadline it says to complain. The complaint is
signed (`pack_complaint`) and goes to every seat, which relays it once and, if it holds
the awaited frames, sends them to the complainer at once. A seat is blamed only when,
`COMPLAINT_WAIT` seconds after the complaint, this peer still lacks its message although
its link was up all that time: every frame an honest peer accepts reaches every other
(the relay), so an honest seat is never blamed for a frame someone else withheld, and a
seat whose link is down has the grace period instead (`wire.GRACE`).

A plain state machine: the node feeds it the time, what the table waits for, and when
each link came up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .codec import CodecError, Limits, decode

Seat = int
#: Seconds a step the protocol makes by itself may take (a shuffle with its proof on a slow
#: machine, keys, claims, verdicts): far above what an honest peer needs.
AUTO_DEADLINE = 60.0
#: Seconds a person may think over a decision (a play, a declaration, a bid, a burial).
MOVE_DEADLINE = 300.0
DECISIONS = frozenset({"play", "declaration window", "bid", "show", "name", "burial"})
COMPLAINT_WAIT = 10.0  #: seconds between the complaint and the blame
#: Prefix of every signed complaint: never a deck frame (those begin with an array) nor a
#: link proof (another text).
COMPLAINT_CONTEXT = b"tractor-wire/4 stall complaint\x00"
MAX_COMPLAINT = 400
#: A complaint or a halt notice: a map of two, one of them a list of at most 7 scalars.
NOTICE_LIMITS = Limits(max_bytes=MAX_COMPLAINT, max_depth=2, max_elements=20, max_str=32,
                       max_bin=128, max_array=7, max_map=2, max_memory=8192)


#: Prefix of every signed halt notice (see `pack_halt`).
HALT_CONTEXT = b"tractor-wire/4 halt notice\x00"
#: Seconds between a peer's stop on a stall and its verdict: every seat stops as soon as it
#: hears of the stop and sends what it holds of the staller's messages, so a message that
#: reached some seats (a person who answered at the last second) reaches all of them, and
#: every peer judges the same frames.
HALT_SETTLE = 5.0


class StallDisputed(Exception):
    """Another seat named a staller that this peer cannot confirm: it holds the message, or
    it could not watch the whole wait (it came back or reconnected meanwhile). Timing no
    peer can prove, so no seat is blamed and the game stops here."""

    def __init__(self, halter: Seat, staller: Seat, what: str) -> None:
        self.seat, self.halter, self.what = staller, halter, what
        super().__init__(f"seat {halter} named seat {staller} for its {what}, which this "
                         "seat cannot confirm (the message reached it, or it could not "
                         "watch the whole wait): no seat is blamed")


class Stalled(Exception):
    """A connected seat withheld a message it owed past its deadline and a complaint."""

    def __init__(self, seat: Seat, what: str, seconds: float,
                 complaints: tuple[bytes, ...] = ()) -> None:
        self.seat, self.what, self.seconds = seat, what, seconds
        #: The signed complaints and halt notices (this peer's and others' heard).
        self.frames = complaints
        super().__init__(f"seat {seat}: sent no {what} for {seconds:.0f} s while connected "
                         f"(and after a complaint), so the table cannot go on")


class FalseStop(Stalled):
    """A seat named another for a stall long before that seat's deadline: it stopped the
    table for nothing, and is the one blamed (its signed final notice is the evidence)."""

    def __init__(self, halter: Seat, staller: Seat, what: str) -> None:
        Exception.__init__(self, f"seat {halter} named seat {staller} for its {what} long "
                                 "before its deadline, and so stopped the table")
        self.seat, self.what, self.seconds = halter, f"stop over seat {staller}", 0.0
        self.frames = ()


@dataclass
class _Wait:
    what: str
    since: float
    complained: float | None = None


@dataclass
class StallWatch:
    deadline_auto: float = AUTO_DEADLINE
    deadline_move: float = MOVE_DEADLINE
    complaint_wait: float = COMPLAINT_WAIT
    settle: float = 5.0  #: seconds a seat whose link came up has to resend (`wire.SETTLE`)
    _marker: object = None
    _waits: dict[Seat, _Wait] = field(default_factory=dict)

    def deadline(self, what: str) -> float:
        return self.deadline_move if what in DECISIONS else self.deadline_auto

    def observe(self, now: float, marker: object, waiting: Mapping[Seat, str],
                up_since: Mapping[Seat, float]) -> tuple[list[tuple[Seat, str]],
                                                          Stalled | None]:
        """(seats to complain about now, the stall to halt on if any). ``marker`` changes
        whenever the table moves on (every wait starts again); a seat without a link, or
        whose link came up after the wait began, is waited for from its link's start."""
        if marker != self._marker:
            self._marker, self._waits = marker, {}
        complain: list[tuple[Seat, str]] = []
        stalled: Stalled | None = None
        for seat in list(self._waits):
            if seat not in waiting:
                del self._waits[seat]
        for seat, what in sorted(waiting.items()):
            wait = self._waits.get(seat)
            if wait is None or wait.what != what:
                wait = self._waits[seat] = _Wait(what, now)
            # A seat without a link has the grace period instead; one whose link just came
            # up has `settle` seconds to resend what it owes. Its wait does not start again
            # (a seat that reconnects now and then is still waited for since the start).
            if seat not in up_since or now - up_since[seat] < self.settle:
                continue
            if wait.complained is None and now - wait.since >= self.deadline(what):
                wait.complained = now
                complain.append((seat, what))
            elif (wait.complained is not None and now - wait.complained >= self.complaint_wait
                  and stalled is None):
                stalled = Stalled(seat, what, now - wait.since)
        return complain, stalled


def complaint_message(table: bytes, hand: int, complainer: Seat, about: Seat, what: str,
                      held: int) -> bytes:
    return COMPLAINT_CONTEXT + msgpack.packb([table, hand, complainer, about, what, held],
                                             use_bin_type=True)


def pack_complaint(key: Ed25519PrivateKey, table: bytes, hand: int, complainer: Seat,
                   about: Seat, what: str, held: int) -> bytes:
    """A signed complaint: ``complainer`` has waited past the deadline for ``about``'s
    ``what`` in ``hand``, holding ``held`` of its frames. A map, like a have report."""
    body = [table, hand, complainer, about, what, held]
    signature = key.sign(complaint_message(table, hand, complainer, about, what, held))
    return msgpack.packb({"stall": body, "sig": signature}, use_bin_type=True)


def halt_message(table: bytes, hand: int, halter: Seat, staller: Seat, what: str, held: int,
                 final: bool) -> bytes:
    return HALT_CONTEXT + msgpack.packb([table, hand, halter, staller, what, held, final],
                                        use_bin_type=True)


def pack_halt(key: Ed25519PrivateKey, table: bytes, hand: int, halter: Seat, staller: Seat,
              what: str, held: int, final: bool = False) -> bytes:
    """A signed halt notice: ``halter`` stopped the table in ``hand`` because ``staller``
    sent no ``what`` (it holds ``held`` of its frames); ``final`` once it named the staller.
    Every seat that hears one stops too and sends the halter what it lacks."""
    body = [table, hand, halter, staller, what, held, final]
    signature = key.sign(halt_message(table, hand, halter, staller, what, held, final))
    return msgpack.packb({"halt": body, "sig": signature}, use_bin_type=True)


@dataclass(frozen=True)
class Complaint:
    hand: int
    complainer: Seat
    about: Seat
    what: str
    held: int


@dataclass(frozen=True)
class HaltNotice:
    hand: int
    halter: Seat
    staller: Seat
    what: str
    held: int
    final: bool


class ComplaintError(ValueError):
    """A complaint or halt notice that does not parse, is for another table or is not
    signed."""


def is_complaint(frame: bytes) -> bool:
    return frame[:1] == b"\x82" and b"stall" in frame[:8]


def is_halt(frame: bytes) -> bool:
    return frame[:1] == b"\x82" and b"halt" in frame[:8]


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


def _check_seats(keys: list[Ed25519PublicKey], hand: object, seats: tuple[object, ...],
                 what: object, held: object) -> None:
    if not all(type(v) is int for v in (hand, held, *seats)) or not (
            all(0 <= s < len(keys) for s in seats) and hand >= 0 and held >= 0) or type(  # type: ignore[operator]
            what) is not str:
        raise ComplaintError("bad fields")


def read_complaint(frame: bytes, table: bytes, keys: list[Ed25519PublicKey]) -> Complaint:
    body, sig = _read_signed(frame, "complaint", "stall", 6)
    t, hand, complainer, about, what, held = body
    if t != table:
        raise ComplaintError("complaint for another table")
    _check_seats(keys, hand, (complainer, about), what, held)
    try:
        keys[complainer].verify(sig, complaint_message(  # type: ignore[index]
            t, hand, complainer, about, what, held))  # type: ignore[arg-type]
    except InvalidSignature as exc:
        raise ComplaintError("complaint signature does not verify") from exc
    return Complaint(hand, complainer, about, what, held)  # type: ignore[arg-type]


def read_halt(frame: bytes, table: bytes, keys: list[Ed25519PublicKey]) -> HaltNotice:
    body, sig = _read_signed(frame, "halt notice", "halt", 7)
    t, hand, halter, staller, what, held, final = body
    if t != table:
        raise ComplaintError("halt notice for another table")
    _check_seats(keys, hand, (halter, staller), what, held)
    if type(final) is not bool:
        raise ComplaintError("bad fields")
    try:
        keys[halter].verify(sig, halt_message(  # type: ignore[index]
            t, hand, halter, staller, what, held, final))  # type: ignore[arg-type]
    except InvalidSignature as exc:
        raise ComplaintError("halt notice signature does not verify") from exc
    return HaltNotice(hand, halter, staller, what, held, final)  # type: ignore[arg-type]
