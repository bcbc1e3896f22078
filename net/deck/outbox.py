"""`Outbox`: the numbering of this peer's own messages, and, when it resumes after a crash,
the frames it sent before, used again in place of new ones.

A peer that crashed makes its moves again as the hand is replayed; each move finds its
journaled frame by number and sends that frame again (a peer that missed it needs it, the
others ignore a replay), so nobody ever sees two versions of a message of this peer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tractor.net.table.messages import Chat

from .envelope import Envelope, Header


def is_chat(env: Envelope) -> bool:
    """Whether ``env`` is a chat line (said once: never made again on resuming)."""
    return env.header.kind == "app" and isinstance(env.body["data"], Chat)


@dataclass
class Outbox:
    """The number of this peer's next message, and its journaled frames not yet sent again
    (by number, with their checked envelopes)."""

    sent_seq: int = 0
    journal: dict[int, tuple[bytes, Envelope]] = field(default_factory=dict)

    def next_header(self, table: bytes, hand: int, seat: int, kind: str,
                    views: tuple[tuple[int, bytes], ...]) -> Header:
        """The header of a new message, numbered next."""
        header = Header(table, hand, seat, self.sent_seq, kind, views)
        self.sent_seq += 1
        return header

    def refused(self, seq: int) -> None:
        """This peer's own engine refused its message ``seq``: it never left, its number is
        free again."""
        self.sent_seq = seq

    def remember(self, frame: bytes, env: Envelope) -> None:
        """Keep one of this peer's journaled frames for its move made again."""
        self.journal[env.header.seq] = (frame, env)

    def take_chat(self) -> bytes | None:
        """The journaled chat line numbered next, if any: it is not said again, it is
        taken back so that the next move finds its own frame."""
        entry = self.journal.get(self.sent_seq)
        if entry is None or not is_chat(entry[1]):
            return None
        del self.journal[self.sent_seq]
        self.sent_seq += 1
        return entry[0]

    def take(self, kind: str) -> bytes | None:
        """The journaled frame of the move numbered next (a ``kind`` message), if the move
        was made before the crash."""
        entry = self.journal.pop(self.sent_seq, None)
        if entry is None:
            return None
        kind_sent = entry[1].header.kind
        if kind_sent != kind:
            raise RuntimeError(f"the journal has a {kind_sent} where a {kind} is due")
        self.sent_seq += 1
        return entry[0]

    def journaled(self, kind: str) -> bool:
        """Whether this peer's next move (after any chat lines) is in the journal as a
        ``kind`` message, so its body need not be computed again."""
        seq = self.sent_seq
        while (entry := self.journal.get(seq)) is not None and is_chat(entry[1]):
            seq += 1
        return entry is not None and entry[1].header.kind == kind

    def ahead(self) -> list[tuple[str, dict[str, Any]]]:
        """Resuming: this peer's own journaled messages not yet made again, in order, as
        (kind, body); the table reads its decisions from them instead of asking again."""
        out = []
        seq = self.sent_seq
        while seq in self.journal:
            env = self.journal[seq][1]
            out.append((env.header.kind, env.body))
            seq += 1
        return out
