"""What a peer's decks have checked: signatures and proofs that passed here, and a count.

Replaying a journal after a crash plays every hand of the game again from its frames, and
checking them again was most of the wait: every other seat's shuffle proof and lock proofs
(and the group checks of their points), and every frame's Ed25519 signature. Those frames
were checked when they first came, on this machine, by this program. The `CheckLedger`
lets that work be done once:

- a deck tells it each frame it accepted (`accepted`): its signature was checked, and
  for another seat's shuffle or lock its proofs passed; the peer's node writes marks for
  those checks into the journal beside the frames (`net.journal.checked`);
- a deck replaying a journal asks it whether a frame's signature (`signature_known`) or
  proofs (`proofs_known`) passed here before, and skips only that check: the frame's
  shape, its place in the protocol, its input transcript and the rules are checked as for
  any frame.

Why this is safe: a mark names one exact frame (the SHA-256 of its bytes, which bind the
table, hand, seat and message number) and one check, and is written only after that check
passed. The same bytes give the same signature check; replaying the same signed frames in
the same order reaches the same state, so the same proofs would pass again. A damaged
journal cannot make a frame skip a check: a changed frame no longer matches its marks, a
changed mark matches no frame; either way the frame is checked in full. See `net.journal.checked`
for how the marks are kept.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field


def frame_digest(frame: bytes) -> bytes:
    """The name a mark gives one frame."""
    return hashlib.sha256(frame).digest()


@dataclass
class CheckLedger:
    """Shared by every deck of one peer's game (`GameSession` hands it to each). Compared
    by value: a frame a deck refuses leaves it as it was."""

    #: Digests of the frames whose proofs passed on this machine before (journal marks).
    proved: frozenset[bytes] = frozenset()
    #: Digests of the frames whose signatures were checked here before (journal marks).
    signed: frozenset[bytes] = frozenset()
    #: Called once per frame a deck applies (a replay's progress).
    on_applied: Callable[[], None] | None = None
    #: Frames checked here since `take_marks` last took them: (signatures, proofs).
    fresh_signed: list[bytes] = field(default_factory=list)
    fresh_proved: list[bytes] = field(default_factory=list)

    def proofs_known(self, frame: bytes) -> bool:
        """Whether ``frame``'s proofs passed on this machine before."""
        return bool(self.proved) and frame_digest(frame) in self.proved

    def signature_known(self, frame: bytes) -> bool:
        """Whether ``frame``'s signature was checked on this machine before."""
        return bool(self.signed) and frame_digest(frame) in self.signed

    def accepted(self, frame: bytes, proofs: bool) -> None:
        """A deck applied ``frame`` after checking it (its signature, and its proofs if
        ``proofs``): marks are due for the checks that ran here, not for those the
        journal's marks spared."""
        if not self.signature_known(frame):
            self.fresh_signed.append(frame)
        if proofs and not self.proofs_known(frame):
            self.fresh_proved.append(frame)
        if self.on_applied is not None:
            self.on_applied()

    def take_marks(self) -> tuple[list[bytes], list[bytes]]:
        """The frames checked since the last call: (signatures, proofs), for the journal."""
        out = (self.fresh_signed, self.fresh_proved)
        self.fresh_signed, self.fresh_proved = [], []
        return out
