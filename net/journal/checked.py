"""The journal's marks: which frames' signatures and proofs passed on this machine.

A resume replays the whole game from the journal; without the marks it checks every
frame's signature and runs every other seat's shuffle proof and lock proofs of every hand
again (seconds per process, and a practice table resumes four processes on the same
cores). With them, a frame checked here before has its shape, its place and its input
checked and the rules applied, not its signature or proofs again (`deck.ledger`).

What the marks guard against, and why they are keyed: the journal lies on the person's
own disk and holds this seat's identity key and master seed, so whoever can write it can
already act as this seat: no mark could stop them, nor would checking again (they would
sign what they like). What can happen to the file is damage: a disk error, a crash
mid-write, rows left by another version or another tool. A mark therefore names exactly
one frame (the SHA-256 of its bytes, which bind table, hand, seat and number) and one
check, and is written only after that check passed; a damaged frame or mark matches
nothing and the frame is checked in full. The mark is an HMAC of the check and the digest
under a key derived from this seat's identity key, so only the program that holds the
seat makes marks that count for its game: a row copied from another game's journal, or
a signature mark offered as a proof mark, vouches for nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import sqlite3
from collections.abc import Iterable, Sequence

from tractor.net.deck.ledger import frame_digest

#: The checks a mark may say passed.
SIGNATURE, PROOFS = b"signature", b"proofs"


def marks_key(identity: bytes) -> bytes:
    """The key of one seat's marks, from its raw identity key (never the key itself)."""
    return hmac.new(identity, b"tractor/journal-checked-marks", hashlib.sha256).digest()


def mark(key: bytes, check: bytes, digest: bytes) -> bytes:
    return hmac.new(key, check + b"/" + digest, hashlib.sha256).digest()


class CheckMarks:
    """The ``checked`` table of a journal's database (``net.journal.versions``)."""

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

    def add(self, game: str, check: bytes, frames: Iterable[bytes]) -> None:
        """Mark ``frames``: ``check`` passed for each just now. Written in the caller's
        transaction (with the frames: one commit, not two)."""
        key = self._key(game)
        if key is None:
            return
        self.db.executemany("INSERT OR IGNORE INTO checked (game, mark) VALUES (?, ?)",
                            [(game, mark(key, check, frame_digest(f))) for f in frames])

    def known(self, game: str, frames: Sequence[bytes]) -> tuple[set[bytes], set[bytes]]:
        """The digests of those of ``frames`` whose signatures, and whose proofs, the
        journal's marks say passed here."""
        key = self._key(game)
        marks = {bytes(r[0]) for r in self.db.execute(
            "SELECT mark FROM checked WHERE game = ?", (game,))} if key is not None else set()
        if key is None or not marks:
            return set(), set()
        digests = [frame_digest(f) for f in frames]
        return ({d for d in digests if mark(key, SIGNATURE, d) in marks},
                {d for d in digests if mark(key, PROOFS, d) in marks})
