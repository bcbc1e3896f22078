"""The journal's marks: which frames' proofs passed on this machine (`deck.ledger`).

A resume replays the whole game from the journal; without the marks it runs every other
seat's shuffle proof and lock proofs of every hand again (seconds per process, and a
practice table resumes four processes on the same cores). With them, a frame that
passed here before has its signature, its place and its input checked, not its proofs.

What the marks guard against, and why they are keyed: the journal lies on the person's
own disk and holds this seat's identity key and master seed, so whoever can write it can
already act as this seat: no mark could stop them, nor would re-running proofs (they
would sign what they like). What can happen to the file is damage: a disk error, a
crash mid-write, rows left by another version or another tool. A mark therefore
names exactly one frame (the SHA-256 of its bytes, which bind table, hand, seat and
number) and is written only after that frame passed; a damaged frame or mark matches
nothing and the frame is checked in full. The mark is an HMAC of the digest under a key
derived from this seat's identity key, so only the program that holds the seat makes
marks that count for its game: a row copied from another game's journal vouches for
nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import sqlite3
from collections.abc import Iterable, Sequence

from .deck.ledger import frame_digest


def marks_key(identity: bytes) -> bytes:
    """The key of one seat's marks, from its raw identity key (never the key itself)."""
    return hmac.new(identity, b"tractor/journal-checked-marks", hashlib.sha256).digest()


def mark(key: bytes, digest: bytes) -> bytes:
    return hmac.new(key, digest, hashlib.sha256).digest()


class CheckMarks:
    """The ``checked`` table of a journal's database (``net.journal.SCHEMA``)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self._keys: dict[str, bytes] = {}

    def _key(self, game: str) -> bytes | None:
        key = self._keys.get(game)
        if key is None:
            row = self.db.execute("SELECT identity FROM games WHERE id = ?", (game,)).fetchone()
            if row is None:
                return None
            key = self._keys[game] = marks_key(bytes(row[0]))
        return key

    def add(self, game: str, frames: Iterable[bytes]) -> None:
        """Mark ``frames``: their proofs passed here just now."""
        key = self._key(game)
        if key is None:
            return
        rows = [(game, mark(key, frame_digest(f))) for f in frames]
        with self.db:
            self.db.executemany("INSERT OR IGNORE INTO checked (game, mark) VALUES (?, ?)",
                                rows)

    def vouched(self, game: str, frames: Sequence[bytes]) -> set[bytes]:
        """The digests of those of ``frames`` whose marks are in the journal."""
        key = self._key(game)
        if key is None:
            return set()
        marks = {bytes(r[0]) for r in self.db.execute(
            "SELECT mark FROM checked WHERE game = ?", (game,))}
        if not marks:
            return set()
        digests = (frame_digest(f) for f in frames)
        return {d for d in digests if mark(key, d) in marks}
