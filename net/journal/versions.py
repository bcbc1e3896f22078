"""The journal's layouts, version by version, and the steps from each to the next.

A journal is marked with SQLite's ``application_id`` (`APPLICATION_ID`) and carries its
layout's version in ``user_version``. `upgrade` brings a file to `CURRENT` one step at a
time: ``STEPS[n]`` turns version n into n + 1, in a transaction of its own that also
writes the new number, so whatever stops the program, a file is at one version or the
next, never between. A new journal is an empty file of version 0 that takes every step.

The versions:

0. Unmarked: a new, empty file, or a journal of the tractor before journals were marked
   (games, frames, results; meta and ai_servers when that tractor had them).
1. Marked; games, frames, meta, results, ai_servers, checked (the marks of checks that
   passed: a file marked 1 before they came lacks them, step 1 adds them).
2. ballots: the ballots this peer cast (`net.referee.ballots`).
3. ``games.shuffle_proof`` names the shuffle proof a game's frames carry; ``games.rounds``
   is gone (it said the same by holding 0, linear, or the cut-and-choose rounds of
   protocol tractor-deck/1).
4. ``results.declaring`` names the seats that declared each hand (a JSON list; NULL in a
   hand recorded before: with teams the declaring side was not kept) and ``games.winners``
   the seats that won the game (a JSON list; NULL while it goes on, if it ended otherwise,
   or if it was recorded before). `tractor stats` reads them.

A step never changes: a later layout is a new step. Its statements are written out in
full, not taken from constants the current code uses, for the same reason.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable

#: ``PRAGMA application_id`` of a tractor journal (the bytes "TrJn").
APPLICATION_ID = 0x54724A6E

_CHECKED = """CREATE TABLE IF NOT EXISTS checked (
    game TEXT NOT NULL, mark BLOB NOT NULL, PRIMARY KEY (game, mark))"""

#: Layout 1, as tractor created it table by table (IF NOT EXISTS: an unmarked journal has
#: some of them already).
_LAYOUT_1 = (
    """CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY, seat INTEGER NOT NULL, identity BLOB NOT NULL,
    master_seed BLOB NOT NULL, rules TEXT NOT NULL, table_id BLOB NOT NULL,
    public_keys BLOB NOT NULL, first INTEGER NOT NULL, rounds INTEGER NOT NULL,
    created REAL NOT NULL, finished INTEGER NOT NULL DEFAULT 0)""",
    """CREATE TABLE IF NOT EXISTS frames (
    n INTEGER PRIMARY KEY AUTOINCREMENT, game TEXT NOT NULL, hand INTEGER NOT NULL,
    frame BLOB NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS frames_game ON frames (game, n)",
    "CREATE TABLE IF NOT EXISTS meta (game TEXT PRIMARY KEY, data TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS results (
    game TEXT NOT NULL, hand INTEGER NOT NULL, result TEXT NOT NULL,
    PRIMARY KEY (game, hand))""",
    """CREATE TABLE IF NOT EXISTS ai_servers (
    label TEXT PRIMARY KEY, key BLOB NOT NULL, first REAL NOT NULL)""",
    _CHECKED,
)


def _to_1_marked(db: sqlite3.Connection) -> None:
    """The tables of layout 1 that the file lacks, and tractor's mark."""
    for statement in _LAYOUT_1:
        db.execute(statement)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")


def _to_2_ballots(db: sqlite3.Connection) -> None:
    db.execute(_CHECKED)  # a file marked 1 before the marks came has none
    db.execute("""CREATE TABLE IF NOT EXISTS ballots (
    game TEXT NOT NULL, ballot BLOB NOT NULL, PRIMARY KEY (game, ballot))""")


def _to_3_shuffle_proof(db: sqlite3.Connection) -> None:
    """``games`` again, with ``shuffle_proof`` for ``rounds`` (SQLite before 3.35 cannot
    drop a column: a new table, the rows copied, the old one dropped)."""
    db.execute("""CREATE TABLE games_3 (
    id TEXT PRIMARY KEY, seat INTEGER NOT NULL, identity BLOB NOT NULL,
    master_seed BLOB NOT NULL, rules TEXT NOT NULL, table_id BLOB NOT NULL,
    public_keys BLOB NOT NULL, first INTEGER NOT NULL, shuffle_proof TEXT NOT NULL,
    created REAL NOT NULL, finished INTEGER NOT NULL DEFAULT 0)""")
    db.execute("""INSERT INTO games_3 (id, seat, identity, master_seed, rules, table_id,
    public_keys, first, shuffle_proof, created, finished)
    SELECT id, seat, identity, master_seed, rules, table_id, public_keys, first,
    CASE rounds WHEN 0 THEN 'linear' ELSE 'cut-and-choose' END, created, finished
    FROM games""")
    db.execute("DROP TABLE games")
    db.execute("ALTER TABLE games_3 RENAME TO games")


def _to_4_sides_and_winners(db: sqlite3.Connection) -> None:
    db.execute("ALTER TABLE results ADD COLUMN declaring TEXT")
    db.execute("ALTER TABLE games ADD COLUMN winners TEXT")


#: ``STEPS[n]`` turns a journal of version n into one of version n + 1.
STEPS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _to_1_marked,
    _to_2_ballots,
    _to_3_shuffle_proof,
    _to_4_sides_and_winners,
)
#: The version this program writes; a file of a higher one was written by a newer tractor.
CURRENT = len(STEPS)


def version_of(db: sqlite3.Connection) -> int:
    row = db.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def application_id(db: sqlite3.Connection) -> int:
    row = db.execute("PRAGMA application_id").fetchone()
    return int(row[0])


def upgrade(db: sqlite3.Connection) -> int:
    """Take the steps from the version of the journal open in ``db`` to `CURRENT`; returns
    the version it has then (higher than `CURRENT` only if a newer tractor upgraded it
    meanwhile: then it is left as it is). A step that fails is rolled back whole and
    raises (`sqlite3.DatabaseError`)."""
    version = version_of(db)
    if version >= CURRENT:  # the usual case: no write lock taken
        return version
    while True:
        with db:  # commits the step, or rolls it back whole if anything in it fails
            # IMMEDIATE: the write lock first, then the version read under it, so two
            # programs opening the same old file do not both take the same step.
            db.execute("BEGIN IMMEDIATE")
            version = version_of(db)
            if version >= CURRENT:
                return version
            STEPS[version](db)
            db.execute(f"PRAGMA user_version = {version + 1}")


@functools.cache
def columns_at(version: int) -> dict[str, frozenset[str]]:
    """The tables of layout ``version`` and their columns, as the steps make them."""
    model = sqlite3.connect(":memory:")
    try:
        for step in STEPS[:version]:
            step(model)
        return columns_of(model)
    finally:
        model.close()


def columns_of(db: sqlite3.Connection) -> dict[str, frozenset[str]]:
    """The tables of the database open in ``db`` (in its main file), and their columns."""
    names = [str(r[0]) for r in db.execute(
        "SELECT name FROM main.sqlite_master WHERE type = 'table'"
        " AND name NOT LIKE 'sqlite_%'")]
    return {t: _columns_of_table(db, t) for t in names}


def _columns_of_table(db: sqlite3.Connection, table: str) -> frozenset[str]:
    quoted = '"' + table.replace('"', '""') + '"'  # a name from the file: any characters
    return frozenset(str(r[1]) for r in db.execute(f"PRAGMA main.table_info({quoted})"))
