"""The peer's journal in SQLite: what a crash must not lose, and the record of past games.

One row per game (this peer's seat, identity key, master seed, rules, table and the
seats' public keys: a `GameStart`), every frame this peer accepted or sent (written
before it is sent), and each hand's result. The journal takes and gives plain records
(`net.journal.records`); the table code rebuilds a session from them
(`net.table.journaled.open_session`). The file's layout and its versions:
`net.journal.versions`.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Collection, Sequence
from typing import Any

from tractor.net.deck.envelope import peek_hand
from tractor.net.journal.checked import PROOFS, SIGNATURE, CheckMarks
from tractor.net.journal.records import CUT_AND_CHOOSE, LINEAR, GameStart, HandRecord
from tractor.net.journal.records import GameRecord as GameRecord  # importable from here too
from tractor.net.journal.sqlite_file import (
    JournalError as JournalError,  # raised by Journal: theirs to catch
)
from tractor.net.journal.sqlite_file import open_database, verify
from tractor.records import HandResult
from tractor.rules import Rules

#: The meta key of the table's passphrase (the lobby's), which a resumed seat needs while
#: the game may go on: a host's watchers prove it (`cli.watch_hosting`), and a seat reopens
#: or rejoins the lobby with it when a seat is gone for good (`cli.going_on`). One secret,
#: kept once for both.
TABLE_PASSPHRASE_KEY = "lobby_passphrase"
#: Meta keys of secrets a game needs only while it may be resumed: removed once it is over.
UNFINISHED_SECRETS = (TABLE_PASSPHRASE_KEY,)
#: The meta key of why a game ended without a winner (`Journal.mark_finished`), and the
#: most of it kept; `WENT_ON_KEY`: the game it went on as at a new table (`cli.seat.goes_on`).
ENDED_KEY, MAX_WHY, WENT_ON_KEY = "ended", 300, "went_on"
#: A key's length in ``games.public_keys`` (the seats' raw Ed25519 keys, one after another).
_KEY_BYTES = 32


def private_folder(path: str | os.PathLike[str], tighten: bool = False) -> None:
    """Make ``path`` (and its parents) if needed, readable by this user only: journals
    hold identity keys and deck secrets. A folder that exists already is tightened only
    with ``tighten`` (a folder of tractor's own: one the person named, say their home,
    stays as they set it; the files in it are private anyway)."""
    existed = os.path.isdir(path)
    os.makedirs(path, mode=0o700, exist_ok=True)
    if (tighten or not existed) and os.stat(path).st_uid == os.getuid():
        os.chmod(path, 0o700)  # also past a umask that took bits off the mode


def open_private_log(path: str | os.PathLike[str]) -> Any:
    """Open a log file for appending, readable by this user only (it names tables, seats
    and addresses); an older file from a looser umask is tightened too."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.fchmod(fd, 0o600)
    return os.fdopen(fd, "ab")


class Journal:
    """The journal at ``path``, created (readable by this user only) if there is none.
    A file that cannot be used raises `JournalError` (its ``kind`` says whether it may be
    kept aside for a new one: `sqlite_file.REPLACEABLE`). ``read_only`` writes nothing."""

    def __init__(self, path: str, read_only: bool = False) -> None:
        self.path = path
        self.db = open_database(path, read_only)
        self._digests: dict[str, set[bytes]] = {}  #: per game, frames already kept
        self.marks = CheckMarks(self.db)  #: frames whose proofs passed here (`net.journal.checked`)

    def verify(self) -> None:
        """Raise `JournalError` if any page of the file is damaged (a truncated file
        opens, and fails only at the first read of a missing page)."""
        verify(self.db, self.path)

    def close(self) -> None:
        self.db.close()

    # --- AI servers this host has used (trust on first use) ---------------------------------

    def pinned_ai_server(self, label: str) -> bytes | None:
        """The identity key of the AI server known as ``label`` (the name it announces, or
        the address the person gave), if this host ever used it."""
        row = self.db.execute("SELECT key FROM ai_servers WHERE label = ?", (label,)).fetchone()
        return None if row is None else bytes(row[0])

    def pin_ai_server(self, label: str, key: bytes) -> None:
        """Remember (or, the person having accepted a new one, replace) its key."""
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO ai_servers VALUES (?, ?, ?)",
                            (label, key, time.time()))

    # --- games -------------------------------------------------------------------------------

    def add_game(self, game: str, start: GameStart) -> None:
        """Keep a new game's start (before its first frame)."""
        with self.db:
            self.db.execute(
                "INSERT INTO games (id, seat, identity, master_seed, rules, table_id,"
                " public_keys, first, shuffle_proof, created) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (game, start.seat, start.identity, start.master_seed,
                 json.dumps(start.rules.to_data()), start.table, b"".join(start.public_keys),
                 start.first, LINEAR, time.time()))

    def game_start(self, game: str) -> GameStart:
        """The start of ``game`` as `add_game` kept it. Raises KeyError for a game not in
        this journal, ValueError for one this version cannot rebuild."""
        row = self.db.execute(
            "SELECT seat, identity, master_seed, rules, table_id, public_keys, first,"
            " shuffle_proof FROM games WHERE id = ?", (game,)).fetchone()
        if row is None:
            raise KeyError(f"no game {game!r} in this journal")
        seat, identity, seed, rules, table, keys, first, proof = row
        if proof == CUT_AND_CHOOSE:
            raise ValueError(f"game {game!r} was recorded by an older version of tractor (its "
                             "shuffle proofs are of protocol tractor-deck/1): this version "
                             "can neither resume nor replay it")
        if proof != LINEAR:
            raise ValueError(f"game {game!r} has shuffle proofs of a kind this version of "
                             f"tractor does not know ({proof!r}): it cannot resume or replay it")
        keys = bytes(keys)
        return GameStart(seat, bytes(identity), bytes(seed), Rules.from_data(json.loads(rules)),
                         bytes(table), tuple(keys[i:i + _KEY_BYTES]
                                             for i in range(0, len(keys), _KEY_BYTES)), first)

    def set_meta(self, game: str, data: dict[str, Any]) -> None:
        """What a restart needs beyond the protocol: the seats' names and addresses, the
        endpoint this peer listened on, who decides for it (JSON-able)."""
        with self.db:
            self._set_meta(game, data)

    def meta(self, game: str) -> dict[str, Any]:
        row = self.db.execute("SELECT data FROM meta WHERE game = ?", (game,)).fetchone()
        return json.loads(row[0]) if row else {}

    def add_meta(self, game: str, entries: dict[str, Any]) -> None:
        """Add ``entries`` to ``game``'s meta (what it had stays)."""
        with self.db:
            self._set_meta(game, {**self.meta(game), **entries})

    def _set_meta(self, game: str, data: dict[str, Any]) -> None:
        """(In the caller's transaction.)"""
        self.db.execute("INSERT OR REPLACE INTO meta (game, data) VALUES (?,?)",
                        (game, json.dumps(data)))

    def append(self, game: str, frames: Sequence[bytes]) -> None:
        """Keep frames (this peer's before it sends them, others' once accepted); a frame
        kept already (sent again after a resume or a reconnect) is kept once."""
        seen = self._digests.get(game)
        if seen is None:
            self.frames(game)
            seen = self._digests[game]
        fresh = []
        for f in frames:
            digest = hashlib.sha256(f).digest()
            if digest not in seen:
                seen.add(digest)
                fresh.append(f)
        if not fresh:
            return
        with self.db:
            self.db.executemany("INSERT INTO frames (game, hand, frame) VALUES (?,?,?)",
                                [(game, peek_hand(f), f) for f in fresh])

    def keep(self, game: str, frames: Sequence[bytes], signed: Collection[bytes],
             proved: Collection[bytes], results: Sequence[HandResult] = (),
             finished: bool = False, declaring: Sequence[Sequence[int] | None] = (),
             winners: Sequence[int] = ()) -> None:
        """Keep ``frames`` with the marks of what was checked here (``signed``, ``proved``:
        not checked again on resume, `net.journal.checked`) in one commit, then those of
        the game's ``results`` (every hand's so far, with the seats that ``declaring`` says
        declared it) not recorded as they are yet (a forfeit may replace the last one);
        ``finished``: the game is over, won by ``winners``."""
        with self.db:
            self.marks.add(game, SIGNATURE, signed)
            self.marks.add(game, PROOFS, proved)
            self.append(game, frames)
        kept = self.hands(game)
        for i, res in enumerate(results):
            sides = declaring[i] if i < len(declaring) else None
            hand = HandRecord(res.to_data(), None if sides is None else tuple(sides))
            if i >= len(kept) or kept[i] != hand:
                self.record_result(game, i, res, finished=finished,
                                   declaring=hand.declaring, winners=winners)

    def add_ballot(self, game: str, frame: bytes) -> None:
        """Keep a ballot this peer cast (`net.referee.ballots`), before it leaves."""
        self.db.execute("INSERT OR IGNORE INTO ballots (game, ballot) VALUES (?,?)",
                        (game, frame))

    def ballots(self, game: str) -> list[bytes]:
        """The ballots this peer cast in ``game``."""
        rows = self.db.execute("SELECT ballot FROM ballots WHERE game = ? ORDER BY rowid",
                               (game,))
        return [bytes(r[0]) for r in rows]

    def frames(self, game: str) -> list[bytes]:
        """Every frame kept of ``game``, in the order kept."""
        rows = self.db.execute("SELECT frame FROM frames WHERE game = ? ORDER BY n", (game,))
        frames = [bytes(r[0]) for r in rows]
        # What `append` must not keep twice: known now, without reading the journal again.
        self._digests[game] = {hashlib.sha256(f).digest() for f in frames}
        return frames

    def record_result(self, game: str, hand: int, result: HandResult,
                      finished: bool = False, declaring: Sequence[int] | None = None,
                      winners: Sequence[int] = ()) -> None:
        """Keep hand number ``hand``'s result (replacing one kept before) and the seats
        that ``declaring`` it; ``finished``: it ended the game, won by ``winners``."""
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO results (game, hand, result, declaring)"
                " VALUES (?,?,?,?)",
                (game, hand, json.dumps(result.to_data()),
                 None if declaring is None else json.dumps(list(declaring))))
            # A result replaced after the game was won (a forfeit) may take the win away.
            self.db.execute("UPDATE games SET winners = ? WHERE id = ?",
                            (json.dumps(list(winners)) if finished and winners else None, game))
            if finished:
                self.db.execute("UPDATE games SET finished = 1 WHERE id = ?", (game,))
                self._forget_secrets(game)

    def mark_finished(self, game: str, why: str | None = None) -> None:
        """The game will not go on here (its table halted, or it moved to a new table):
        `tractor history` lists it as over, saying ``why`` (the halt's verdict, kept in
        its meta as `ENDED_KEY`), and `tractor resume` does not offer it."""
        with self.db:
            self.db.execute("UPDATE games SET finished = 1 WHERE id = ?", (game,))
            self._forget_secrets(game, {} if why is None else {ENDED_KEY: why[:MAX_WHY]})

    def _forget_secrets(self, game: str, entries: dict[str, Any] | None = None) -> None:
        """(In the caller's transaction) the game is over: `UNFINISHED_SECRETS` go (and
        ``entries`` are added to its meta)."""
        meta = self.meta(game)
        if entries or any(key in meta for key in UNFINISHED_SECRETS):
            for key in UNFINISHED_SECRETS:
                meta.pop(key, None)
            self._set_meta(game, {**meta, **(entries or {})})

    def results(self, game: str) -> list[dict[str, Any]]:
        return [h.result for h in self.hands(game)]

    def hands(self, game: str) -> list[HandRecord]:
        """Every scored hand of ``game`` kept here, in order."""
        rows = self.db.execute("SELECT result, declaring FROM results WHERE game = ?"
                               " ORDER BY hand", (game,))
        return [HandRecord(json.loads(r[0]), None if r[1] is None else
                           tuple(int(s) for s in json.loads(r[1]))) for r in rows]

    def games(self) -> list[GameRecord]:
        rows = self.db.execute("SELECT id, seat, rules, table_id, created, finished, winners"
                               " FROM games ORDER BY created")
        return [GameRecord(r[0], r[1], Rules.from_data(json.loads(r[2])), bytes(r[3]), r[4],
                           bool(r[5]), None if r[6] is None else
                           tuple(int(s) for s in json.loads(r[6]))) for r in rows]
