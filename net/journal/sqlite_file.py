"""Opening the journal's SQLite file safely: what is wrong with a file that cannot be
used (damaged, another program's database, a newer tractor's journal, a folder, no
permission), and keeping a damaged file aside so a new journal can start without losing
the old bytes.

A journal is marked with SQLite's ``application_id`` and its layout's version in
``user_version``; a journal of a newer layout is refused and never written to. A file
written before the mark existed is recognised by its tables and marked when opened for
writing.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Iterable

#: ``PRAGMA application_id`` of a tractor journal (the bytes "TrJn").
APPLICATION_ID = 0x54724A6E
#: The journal's layout; a file with a higher one was written by a newer tractor.
#: 2: a table of the ballots this peer cast (`net.referee.ballots`); a layout-1 journal gains it
#: when opened for writing.
JOURNAL_VERSION = 2

#: What a `JournalError` allows: a DAMAGED or FOREIGN file may be kept aside and a new
#: journal started; a NEWER journal, a file beyond our ACCESS or one in use (BUSY) is
#: left alone.
DAMAGED, FOREIGN, NEWER, ACCESS, BUSY = "damaged", "foreign", "newer", "access", "busy"
REPLACEABLE = (DAMAGED, FOREIGN)

#: SQLite's own words for an unusable file, by its error name.
_ACCESS_ERRORS = ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH")
_BUSY_ERRORS = ("SQLITE_BUSY", "SQLITE_LOCKED")
#: Files SQLite keeps beside a database: they belong to it, wherever it goes.
SIDE_FILES = ("-journal", "-wal", "-shm")


class JournalError(OSError):
    """The journal file at ``path`` cannot be used: ``why`` says what is wrong in a few
    words, ``kind`` what may be done about it (see `REPLACEABLE`)."""

    def __init__(self, path: str, why: str, kind: str) -> None:
        self.path, self.why, self.kind = path, why, kind
        super().__init__(f"{path} cannot be used as a journal ({why})")


def open_database(path: str, schema: str, read_only: bool = False) -> sqlite3.Connection:
    """The journal at ``path``, checked and with every table of ``schema``; created if it
    does not exist (unless ``read_only``). Raises `JournalError`. ``read_only`` opens
    without writing a byte: tables it lacks read as empty."""
    if os.path.isdir(path):
        raise JournalError(path, "it is a folder, not a file", ACCESS)
    _check_access(path, read_only)
    try:
        if read_only and not os.path.lexists(path):
            db = sqlite3.connect(":memory:")  # no journal yet: an empty one, nothing made
            db.executescript(schema)
            return db
        if read_only:
            db = sqlite3.connect(f"file:{_quote(path)}?mode=ro", uri=True)
        else:
            _create_private(path)
            db = sqlite3.connect(path)
        try:
            tables = _layout(db, path, schema)
            if read_only:
                _stand_in(db, schema, set(tables))
            else:
                _complete(db, schema)
        except BaseException:
            db.close()
            raise
    except sqlite3.DatabaseError as exc:
        raise _sqlite_error(path, exc) from None
    except PermissionError:
        raise JournalError(path, "permission denied", ACCESS) from None
    return db


def verify(db: sqlite3.Connection, path: str) -> None:
    """Read every page once (SQLite's quick check: a few milliseconds a megabyte), so a
    truncated or damaged file is found before a command relies on it."""
    try:
        rows = db.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as exc:
        raise _sqlite_error(path, exc) from None
    if rows != [("ok",)]:
        raise JournalError(path, "database disk image is malformed", DAMAGED)


def keep_aside(path: str) -> str:
    """Rename the file at ``path`` (and SQLite's files beside it) to
    ``<path>.corrupt-<UTC time>``, a name not taken yet; returns that name."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside, n = f"{path}.corrupt-{stamp}", 1
    while any(os.path.lexists(aside + extra) for extra in ("", *SIDE_FILES)):
        n += 1
        aside = f"{path}.corrupt-{stamp}-{n}"
    os.rename(path, aside)
    for extra in SIDE_FILES:
        # A rollback journal left beside the old file would be applied to the new one.
        if os.path.lexists(path + extra):
            os.rename(path + extra, aside + extra)
    return aside


def _quote(path: str) -> str:
    """``path`` as the path part of a SQLite URI."""
    from urllib.parse import quote

    return quote(os.path.abspath(path))


def _check_access(path: str, read_only: bool) -> None:
    """Permission denied, said before SQLite turns it into "unable to open database
    file" (or, for a file it may read only, into a failure at the first write)."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.exists(path):
        if not os.access(path, os.R_OK if read_only else os.R_OK | os.W_OK):
            raise JournalError(path, "permission denied: cannot "
                               + ("read" if read_only else "read and write") + " it", ACCESS)
    if not read_only and not os.access(folder, os.W_OK | os.X_OK):
        # SQLite writes its rollback journal beside the file.
        raise JournalError(path, f"permission denied: cannot write in {folder}", ACCESS)


def _create_private(path: str) -> None:
    """Create the file readable by this user only (it holds identity keys and deck
    secrets); an existing one loses any group and other bits, and nothing else: a file
    the person made read-only stays so."""
    if not os.path.exists(path):
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        return
    st = os.stat(path)
    if st.st_uid == os.getuid() and stat.S_IMODE(st.st_mode) & 0o077:
        os.chmod(path, stat.S_IMODE(st.st_mode) & 0o700)


def _sqlite_error(path: str, exc: sqlite3.DatabaseError) -> JournalError:
    name = getattr(exc, "sqlite_errorname", "")
    if name in _ACCESS_ERRORS:
        return JournalError(path, str(exc), ACCESS)
    if name in _BUSY_ERRORS:
        return JournalError(path, f"{exc}: another tractor is using it", BUSY)
    return JournalError(path, str(exc), DAMAGED)


def _columns(db: sqlite3.Connection) -> dict[str, set[str]]:
    names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                      " AND name NOT LIKE 'sqlite_%'")]
    return {t: {r[1] for r in db.execute(f"PRAGMA table_info(\"{t}\")")} for t in names}


def _expected(schema: str) -> dict[str, set[str]]:
    model = sqlite3.connect(":memory:")
    try:
        model.executescript(schema)
        return _columns(model)
    finally:
        model.close()


def _layout(db: sqlite3.Connection, path: str, schema: str) -> dict[str, set[str]]:
    """The file's tables, once it is known to be a journal this version can use."""
    app = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = _columns(db)
    if app == APPLICATION_ID and version > JOURNAL_VERSION:
        raise JournalError(path, f"a newer tractor wrote it: journal layout {version}, "
                           f"this version knows up to {JOURNAL_VERSION}", NEWER)
    unmarked = app == 0 and version == 0
    if not (app == APPLICATION_ID or (unmarked and (not tables or "games" in tables))):
        raise JournalError(path, "it is a SQLite database of another program", FOREIGN)
    _check_columns(path, tables, _expected(schema).items())
    return tables


def _check_columns(path: str, tables: dict[str, set[str]],
                   expected: Iterable[tuple[str, set[str]]]) -> None:
    for name, columns in expected:
        missing = columns - tables.get(name, columns)
        if missing:
            raise JournalError(path, f"its table {name} lacks {', '.join(sorted(missing))}",
                               FOREIGN)


def _stand_in(db: sqlite3.Connection, schema: str, present: set[str]) -> None:
    """Empty temporary tables for those a journal opened read-only lacks (a new file, or
    one of an earlier version): it reads as a journal with nothing in them."""
    for statement in schema.split(";"):
        words = statement.split()
        if words[:5] == ["CREATE", "TABLE", "IF", "NOT", "EXISTS"] and words[5] not in present:
            db.execute(statement.replace("CREATE TABLE", "CREATE TEMP TABLE", 1))


def _complete(db: sqlite3.Connection, schema: str) -> None:
    """Add the tables a journal lacks and mark it as this version's (an unmarked one is
    of an earlier version of tractor, same layout)."""
    marked = db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    version = db.execute("PRAGMA user_version").fetchone()[0]
    with db:
        db.executescript(schema)  # the tables a journal of an earlier layout lacks
        if not marked:
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        if not marked or version < JOURNAL_VERSION:
            db.execute(f"PRAGMA user_version = {JOURNAL_VERSION}")
