"""How each command opens the journal, and what it says when the file cannot be used.

`tractor history`, `replay` and `resume` need the games in it: they refuse a file they
cannot use, naming it and leaving it as it is. `play`, `host` and `join` start a new
game: a damaged file (or another program's database) is kept aside under a new name and a
new journal started, in one line naming both. A journal of a newer tractor, a folder in
its place, a file or folder without permission, or a journal another tractor holds is
never moved or written: every command refuses it with the reason.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from tractor.net.journal.sqlite_file import (
    ACCESS,
    BUSY,
    FOREIGN,
    NEWER,
    REPLACEABLE,
    JournalError,
    keep_aside,
)
from tractor.net.journal.store import Journal


def refusal(exc: JournalError) -> str:
    """One line: the file, what is wrong, that it is left as it is, and what to do."""
    path, why = exc.path, exc.why
    if exc.kind == NEWER:
        return (f"tractor: {path} cannot be used ({why}). It is left as it is: use the "
                "newer tractor, or move the file aside to start a new journal.")
    if exc.kind == BUSY:
        return (f"tractor: the journal {path} is busy ({why}). Try again once the other "
                "tractor has ended.")
    if exc.kind == ACCESS:
        todo = ("move that folder away" if os.path.isdir(path) else
                "give yourself permission to read and write it and its folder")
        return (f"tractor: cannot use the journal {path} ({why}). It is left as it is; "
                f"{todo}, or set TRACTOR_HOME to a folder of yours.")
    what = "a tractor journal" if exc.kind == FOREIGN else "a readable journal"
    return (f"tractor: {path} is not {what} ({why}). It is left as it is; move it aside to "
            "start a new one (`tractor play` does that itself).")


def read_journal(path: str) -> Journal:
    """The journal for `tractor history` and `tractor replay`: opened without writing
    (a journal the person made read-only is read all the same) and checked page by page.
    Raises `JournalError`."""
    journal = Journal(path, read_only=True)
    try:
        journal.verify()
    except JournalError:
        journal.close()
        raise
    return journal


def journal_to_resume(path: str, tell: Callable[[str], None]) -> Journal | None:
    """The journal for `tractor resume`, checked; None (the reason told) if it cannot be
    used: resuming needs the games in it, so a damaged file is left for the person."""
    try:
        journal = Journal(path)
    except JournalError as exc:
        tell(refusal(exc))
        return None
    try:
        journal.verify()
    except JournalError as exc:
        journal.close()
        tell(refusal(exc))
        return None
    return journal


def ready_for_a_new_game(path: str, tell: Callable[[str], None]) -> bool:
    """Make sure `play`, `host` and `join` can write their game: a damaged journal is
    kept aside and a new one started (told in one line); False (the reason told) when
    the file must be left alone."""
    try:
        _check(path)
        return True
    except JournalError as exc:
        if exc.kind not in REPLACEABLE:
            tell(refusal(exc))
            return False
        problem = exc
    try:
        aside = keep_aside(path)
    except OSError as exc:
        tell(refusal(JournalError(path, f"{problem.why}; cannot move it aside: "
                                  f"{exc.strerror or exc}", ACCESS)))
        return False
    was = "a tractor journal" if problem.kind == FOREIGN else "a readable journal"
    tell(f"tractor: {path} was not {was} ({problem.why}): kept it aside as {aside}; a new "
         f"journal starts at {path}.")
    try:
        _check(path)
    except JournalError as exc:
        tell(refusal(exc))
        return False
    return True


def _check(path: str) -> None:
    journal = Journal(path)
    try:
        journal.verify()
    finally:
        journal.close()
