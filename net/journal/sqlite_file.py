"""Opening the journal's SQLite file safely: what is wrong with a file that cannot be
used (damaged, another program's database, a newer tractor's journal, a folder, no
permission), and keeping a damaged file aside so a new journal can start without losing
the old bytes.

A journal opened for writing is brought to the current layout (`versions.upgrade`); a
journal of a newer layout is refused and never touched. A read-only open never writes a
byte: a journal of an earlier layout is read through an upgraded copy in memory.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Mapping
from contextlib import ExitStack, closing
from urllib.parse import quote

from tractor.net.errors import NetError
from tractor.net.journal.versions import (
    APPLICATION_ID as APPLICATION_ID,  # where the mark was defined before: still importable
)
from tractor.net.journal.versions import (
    CURRENT,
    application_id,
    columns_at,
    columns_of,
    upgrade,
    version_of,
)

#: The journal's layout version this program writes (`versions.CURRENT`).
JOURNAL_VERSION = CURRENT

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


class JournalError(NetError, OSError):
    """The journal file at ``path`` cannot be used: ``why`` says what is wrong in a few
    words, ``kind`` what may be done about it (see `REPLACEABLE`)."""

    def __init__(self, path: str, why: str, kind: str) -> None:
        self.path, self.why, self.kind = path, why, kind
        super().__init__(f"{path} cannot be used as a journal ({why})")


def open_database(path: str, read_only: bool = False) -> sqlite3.Connection:
    """The journal at ``path``, checked and at the current layout; created if it does not
    exist (unless ``read_only``). Raises `JournalError`. ``read_only`` writes nothing: a
    missing file reads as an empty journal, one of an earlier layout as it would be
    after its upgrade."""
    if os.path.isdir(path):
        raise JournalError(path, "it is a folder, not a file", ACCESS)
    _check_access(path, read_only)
    try:
        return _open_read_only(path) if read_only else _open_for_writing(path)
    except sqlite3.DatabaseError as exc:
        raise _sqlite_error(path, exc) from None
    except PermissionError:
        raise JournalError(path, "permission denied", ACCESS) from None


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


def _open_for_writing(path: str) -> sqlite3.Connection:
    if not os.path.exists(path):
        # Readable by this user only from the first byte: it holds identity keys and
        # deck secrets.
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    db = sqlite3.connect(path)
    with ExitStack() as on_failure:
        on_failure.callback(db.close)
        _check_usable(db, path)
        _tighten(path)  # only now: a file refused is left exactly as it was
        version = upgrade(db)
        if version > CURRENT:
            raise _newer(path, version)
        _check_layout(db, path)
        on_failure.pop_all()  # usable: it stays open
    return db


def _open_read_only(path: str) -> sqlite3.Connection:
    if not os.path.lexists(path):
        db = sqlite3.connect(":memory:")  # no journal yet: an empty one, nothing made
        upgrade(db)
        return db
    db = sqlite3.connect(f"file:{_quote(path)}?mode=ro", uri=True)
    with ExitStack() as on_failure:
        on_failure.callback(db.close)
        if _check_usable(db, path) < CURRENT:
            db = _copy_in_memory(db)
            on_failure.callback(db.close)
            upgrade(db)
        _check_layout(db, path)
        on_failure.pop_all()  # usable: it stays open
    return db


def _copy_in_memory(db: sqlite3.Connection) -> sqlite3.Connection:
    """A copy of the database open in ``db``, in memory; ``db`` is closed."""
    with closing(db):
        copy = sqlite3.connect(":memory:")
        with ExitStack() as on_failure:
            on_failure.callback(copy.close)
            db.backup(copy)
            on_failure.pop_all()
    return copy


def _tighten(path: str) -> None:
    """An existing journal loses any group and other bits, and nothing else: a file the
    person made read-only stays so."""
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


def _newer(path: str, version: int) -> JournalError:
    return JournalError(path, f"a newer tractor wrote it: journal layout {version}, "
                        f"this version knows up to {CURRENT}", NEWER)


def _check_usable(db: sqlite3.Connection, path: str) -> int:
    """The version of the journal open in ``db``, once it is known to be a journal this
    program can use (maybe after an upgrade)."""
    app, version = application_id(db), version_of(db)
    if app == APPLICATION_ID and version > CURRENT:
        raise _newer(path, version)
    tables = columns_of(db)
    unmarked = app == 0 and version == 0
    if not (app == APPLICATION_ID or (unmarked and (not tables or "games" in tables))):
        raise JournalError(path, "it is a SQLite database of another program", FOREIGN)
    # An unmarked journal has (some of) the tables of layout 1.
    _check_columns(path, tables, columns_at(max(version, 1)), every_table=False)
    return version


def _check_layout(db: sqlite3.Connection, path: str) -> None:
    """Every table of the current layout is there, with its columns."""
    _check_columns(path, columns_of(db), columns_at(CURRENT), every_table=True)


def _check_columns(path: str, tables: Mapping[str, frozenset[str]],
                   expected: Mapping[str, frozenset[str]], every_table: bool) -> None:
    for name, columns in expected.items():
        if name not in tables:
            if every_table:
                raise JournalError(path, f"it has no table {name}", FOREIGN)
            continue
        missing = columns - tables[name]
        if missing:
            raise JournalError(path, f"its table {name} lacks {', '.join(sorted(missing))}",
                               FOREIGN)
