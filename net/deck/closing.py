"""`HandClose`: the end of the hand: every seat releases all its keys (the audit), then
signs one verdict on the whole hand.

Once every key is out everyone opens the whole deck and checks the hand with the rules
core (`audit.audit_hand`). The ``transcript`` hashes every seat's message chain up to its
audit keys, the last message the hand's result depends on; each verdict signs it, so a
result counts only where every seat signed the same hand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .bodies import scalars
from .chains import SeatChain
from .dealing import Dealing
from .errors import BadMessage, TranscriptSplit
from .group import hash32
from .locking import LockStep

MAX_VIOLATIONS = 64  #: violations a verdict names at most: enough to void the hand


@dataclass
class HandClose:
    """The audit and the verdicts at one peer."""

    seats: int
    size: int
    audited: set[int] = field(default_factory=set)  #: seats whose audit keys are in
    audit_seq: dict[int, int] = field(default_factory=dict)  #: seat -> its audit's number
    verdicts: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: When the audit keys are due (set when this peer begins its audit).
    deadline: float | None = None

    def begin(self, deadline: float) -> None:
        if self.deadline is None:
            self.deadline = deadline

    def on_audit(self, seat: int, body: dict[str, Any], seq: int, ready: bool,
                 dealing: Dealing, locks: LockStep) -> bool:
        """Take ``seat``'s audit keys (its message number ``seq``; ``ready``: the deck is
        dealt and played); True once every seat's are in and the whole deck is open."""
        if not ready or seat in self.audited:
            raise BadMessage(seat, "audit keys out of turn")
        keys = scalars(seat, body["keys"], self.size)
        dealing.take_audit_keys(seat, keys, locks)
        self.audited.add(seat)
        self.audit_seq[seat] = seq
        if len(self.audited) < self.seats:
            return False
        dealing.open_all(locks)
        return True

    def transcript(self, context: bytes, chains: Sequence[SeatChain]) -> bytes:
        """The hash of every seat's chain up to and including its audit keys."""
        return hash32(b"transcript", context, *(
            chains[s].hashes[self.audit_seq[s] + 1] for s in range(self.seats)))

    def on_verdict(self, seat: int, body: dict[str, Any],
                   transcript: Callable[[], bytes]) -> None:
        violations = body["violations"]
        if seat in self.verdicts or not isinstance(violations, list) or \
                len(violations) > MAX_VIOLATIONS:
            raise BadMessage(seat, "one verdict per seat, at most 64 violations")
        if type(body["transcript"]) is not bytes or len(body["transcript"]) != 32:
            raise BadMessage(seat, "a verdict signs the 32-byte hash of the hand")
        if body["transcript"] != transcript():
            raise TranscriptSplit(seat, "its verdict signs another transcript of the hand than "
                                        "this peer's: the result counts only if all agree")
        self.verdicts[seat] = {"violations": violations, "transcript": body["transcript"]}

    def missing(self) -> list[int]:
        """The seats whose audit keys are awaited (none before the audit began)."""
        if self.deadline is None:
            return []
        return [s for s in range(self.seats) if s not in self.audited]

    def add_overdue(self, out: dict[int, list[int]], now: float) -> None:
        """Add to ``out`` every seat whose audit keys are past their deadline at ``now``
        (all its positions), unless it owes others already."""
        if self.deadline is not None and self.deadline <= now:
            for seat in range(self.seats):
                if seat not in self.audited and seat not in out:
                    out[seat] = list(range(self.size))
