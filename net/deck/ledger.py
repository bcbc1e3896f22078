"""What a peer's decks have checked: the heavy proofs that passed here, and a replay's count.

A shuffle's proof and a lock's proofs (and the group checks of their points) are most of
the work of replaying a journal after a crash: every hand of the game is played again
from its frames. Those frames were checked when they first came, on this machine, by
this program. The `CheckLedger` lets that work be done once:

- a deck tells it each other seat's shuffle or lock whose checks passed (`passed`); the
  peer's node writes their digests to the journal as marks (`net.checked`);
- a deck replaying a journal asks it whether a frame is vouched for (`vouches`): its
  signature, its place in the protocol and its input transcript are still checked (they
  are cheap), only the proofs are not run again.

Why this is safe: a mark names one exact frame (the SHA-256 of its bytes, which bind the
table, hand, seat and message number) and is written only after that frame's proofs
passed. Replaying the same signed frames in the same order reaches the same state, so
the same proofs would pass again. A damaged journal cannot make a frame skip its checks:
a changed frame no longer matches its mark (and fails its signature), a changed mark
matches no frame; either way the frame is checked in full. See `net.checked` for how
the marks are kept.
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

    #: Digests of the frames whose proofs passed on this machine before (see the module).
    vouched: frozenset[bytes] = frozenset()
    #: Called once per frame a deck applies (a replay's progress).
    on_applied: Callable[[], None] | None = None
    #: Frames whose proofs were run here and passed since `take_passed` last took them.
    passed_frames: list[bytes] = field(default_factory=list)

    def vouches(self, frame: bytes) -> bool:
        """Whether ``frame``'s proofs passed on this machine before (see the module)."""
        return bool(self.vouched) and frame_digest(frame) in self.vouched

    def passed(self, frame: bytes) -> None:
        """``frame``'s proofs were run here and passed: a mark is due."""
        self.passed_frames.append(frame)

    def take_passed(self) -> list[bytes]:
        """The frames that passed since the last call (for the journal's marks)."""
        out, self.passed_frames = self.passed_frames, []
        return out

    def applied(self) -> None:
        if self.on_applied is not None:
            self.on_applied()
