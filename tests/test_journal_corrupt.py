"""A journal that cannot be used (issue 28, item 4): every command names the file and says
what to do, never a traceback, never a silent loss. `history`, `replay` and `resume` refuse
it and leave it as it is; `play`, `host` and `join` keep a damaged file aside as
``journal.sqlite.corrupt-<UTC time>`` and start a new journal, saying so in one line. A
newer tractor's journal, a folder in its place and a file without permission are refused
by every command. Each case runs the installed `tractor` command on a real file."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import stat
import subprocess
from pathlib import Path

import pytest

from tractor import Rules
from tractor.cli.journal_open import read_journal, ready_for_a_new_game
from tractor.net.deck.local import LocalDeal
from tractor.net.journal.sqlite_file import JOURNAL_VERSION, JournalError
from tractor.net.journal.store import Journal
from tractor.net.journal.versions import APPLICATION_ID
from tractor.net.table.journaled import game_start
from tractor.net.table.player import RandomPlayer
from tractor.net.table.session import GameSession

TRACTOR = shutil.which("tractor")
FIXTURES = Path(__file__).parent / "fixtures"
ASIDE = re.compile(r"journal\.sqlite\.corrupt-\d{8}T\d{6}Z(-\d+)?")
#: A process as root reads and writes any file: without these capabilities the file's
#: permission bits apply to it as to anyone (setpriv, util-linux).
AS_ANYONE = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search",
             "--inh-caps", "-dac_override,-dac_read_search"]


def tractor(home: Path, *args: str, timeout: float = 60,
            anyone: bool = False) -> subprocess.CompletedProcess:
    """The installed command on ``home``; ``anyone``: bound by permission bits even as
    root."""
    assert TRACTOR is not None, "the tractor command is not installed"
    prefix = AS_ANYONE if anyone and os.geteuid() == 0 else []
    return subprocess.run([*prefix, TRACTOR, *args], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL,
                          env={"TRACTOR_HOME": str(home), "PATH": os.environ["PATH"],
                               "COLUMNS": "200"})


def real_journal(path: Path) -> None:
    """A journal with one game and enough in it to span many pages."""
    deal = LocalDeal(seats=4, seed=3)
    keys = [k.public_key() for k in deal.signing_keys]
    master = bytes(32)
    session = GameSession(Rules(), b"corrupt-table-01", 1, deal.signing_keys[1], keys,
                          master, RandomPlayer(1))
    journal = Journal(str(path))
    journal.add_game("g1", game_start(session, deal.signing_keys[1], master))
    journal.set_meta("g1", {"names": ["Ann", "Bo", "Cy", "Di"], "pad": "x" * 200_000})
    journal.close()


def damage(path: Path, kind: str) -> None:
    """Make the file at ``path`` the kind of file a person might find there."""
    if kind == "garbage":
        path.write_bytes(b"these are not the bytes of a database\n" * 40)
    elif kind == "truncated":
        real_journal(path)
        data = path.read_bytes()
        path.write_bytes(data[:len(data) // 2])
    elif kind == "foreign":  # a SQLite file of another program
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")
        db.execute("INSERT INTO moz_places (url) VALUES ('https://example.org')")
        db.commit()
        db.close()
    elif kind == "other-games":  # a table named like ours, of another layout
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE games (id TEXT, score INTEGER)")
        db.commit()
        db.close()
    elif kind == "newer":
        real_journal(path)
        db = sqlite3.connect(path)
        db.execute(f"PRAGMA user_version = {JOURNAL_VERSION + 1}")
        db.commit()
        db.close()
    else:
        raise AssertionError(kind)


def home_with(tmp_path: Path, kind: str) -> tuple[Path, Path, bytes]:
    home = tmp_path / "home"
    home.mkdir()
    path = home / "journal.sqlite"
    damage(path, kind)
    return home, path, path.read_bytes()


def no_traceback(proc: subprocess.CompletedProcess) -> None:
    text = proc.stdout + proc.stderr
    assert "Traceback" not in text and "unexpected error" not in text, text


def asides(home: Path) -> list[str]:
    return sorted(p.name for p in home.iterdir() if ASIDE.fullmatch(p.name))


# --- history, replay, resume: refused, the file left as it is ---------------------------------


REFUSED = {
    "garbage": "is not a readable journal (file is not a database)",
    "truncated": "is not a readable journal (database disk image is malformed)",
    "foreign": "is not a tractor journal (it is a SQLite database of another program)",
    "other-games": "is not a tractor journal (its table games lacks",
    "newer": f"cannot be used (a newer tractor wrote it: journal layout {JOURNAL_VERSION + 1}",
}


@pytest.mark.e2e
@pytest.mark.parametrize("kind", sorted(REFUSED))
@pytest.mark.parametrize("command", [["history"], ["replay", "g1"], ["resume"]])
def test_reading_commands_refuse_a_journal_they_cannot_use(tmp_path, kind, command):
    home, path, before = home_with(tmp_path, kind)
    proc = tractor(home, *command)
    no_traceback(proc)
    assert proc.returncode == 1
    said = (proc.stdout + proc.stderr).strip().splitlines()
    assert len(said) == 1 and said[0].startswith(f"tractor: {path} "), said
    assert REFUSED[kind] in said[0] and "It is left as it is" in said[0]
    assert ("use the newer tractor" if kind == "newer" else "move it aside") in said[0]
    assert path.read_bytes() == before and not asides(home)


# --- play, host, join: a damaged file kept aside, a new journal started --------------------------


@pytest.mark.e2e
@pytest.mark.parametrize("kind", ["garbage", "truncated", "foreign", "other-games"])
def test_join_keeps_a_damaged_journal_aside_and_starts_a_new_one(tmp_path, kind):
    home, path, before = home_with(tmp_path, kind)
    proc = tractor(home, "join", "tcp:127.0.0.1:1", "--plain")
    no_traceback(proc)
    [aside] = asides(home)
    first = proc.stdout.splitlines()[0]
    assert first.startswith(f"tractor: {path} {REFUSED[kind].replace('is not', 'was not', 1)}")
    assert first.endswith(f"): kept it aside as {home / aside}; a new journal starts at "
                          f"{path}.")
    assert (home / aside).read_bytes() == before  # nothing lost
    assert "cannot reach the lobby" in proc.stdout  # and the command went on
    fresh = Journal(str(path))
    assert fresh.games() == []
    fresh.close()
    assert application_id(path) == APPLICATION_ID


@pytest.mark.e2e
def test_play_says_so_in_one_line_and_plays(tmp_path):
    home, path, before = home_with(tmp_path, "garbage")
    proc = tractor(home, "play", "--plain", "--deal-pace", "0", "--takeback-wait", "0",
                   timeout=180)
    no_traceback(proc)
    [aside] = asides(home)
    lines = proc.stdout.splitlines()
    assert lines[0] == (f"tractor: {path} was not a readable journal (file is not a "
                        f"database): kept it aside as {home / aside}; a new journal starts "
                        f"at {path}.")
    assert lines[1].startswith("Starting: you and 3 ")
    assert (home / aside).read_bytes() == before
    journal = read_journal(str(path))
    assert len(journal.games()) == 1  # the new game is in the new journal
    journal.close()


@pytest.mark.e2e
@pytest.mark.parametrize("command", [["join", "tcp:127.0.0.1:1", "--plain"], ["history"],
                                     ["resume"]])
def test_a_newer_journal_is_never_moved_or_written(tmp_path, command):
    home, path, before = home_with(tmp_path, "newer")
    proc = tractor(home, *command)
    no_traceback(proc)
    assert proc.returncode == 1
    assert "cannot reach the lobby" not in proc.stdout  # refused before anything began
    assert f"tractor: {path} cannot be used (a newer tractor wrote it" in proc.stdout + \
        proc.stderr
    assert path.read_bytes() == before and not asides(home)


@pytest.mark.e2e
@pytest.mark.parametrize("command", [["join", "tcp:127.0.0.1:1", "--plain"], ["history"],
                                     ["replay", "g1"], ["resume"]])
def test_a_folder_where_the_journal_should_be(tmp_path, command):
    home = tmp_path / "home"
    (home / "journal.sqlite").mkdir(parents=True)
    (home / "journal.sqlite" / "keep.txt").write_text("mine")
    proc = tractor(home, *command)
    no_traceback(proc)
    assert proc.returncode == 1
    assert (f"tractor: cannot use the journal {home / 'journal.sqlite'} (it is a folder, "
            "not a file). It is left as it is; move that folder away") in \
        proc.stdout + proc.stderr
    assert (home / "journal.sqlite" / "keep.txt").read_text() == "mine"


@pytest.mark.e2e
def test_a_zero_byte_journal_is_an_empty_one(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    path = home / "journal.sqlite"
    path.write_bytes(b"")
    proc = tractor(home, "history")
    no_traceback(proc)
    assert (proc.returncode, proc.stdout) == (0, "no games yet: `tractor play` starts one\n")
    assert path.read_bytes() == b""  # history writes nothing
    proc = tractor(home, "join", "tcp:127.0.0.1:1", "--plain")
    no_traceback(proc)
    assert "cannot reach the lobby" in proc.stdout and "kept it aside" not in proc.stdout
    assert application_id(path) == APPLICATION_ID and not asides(home)


# --- permission denied ---------------------------------------------------------------------------


@pytest.mark.e2e
def test_a_journal_without_permission_is_named_and_left_alone(tmp_path):
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("root reads and writes any file, and setpriv is not here to stop it")
    home = tmp_path / "home"
    (home / "ai").mkdir(parents=True)
    path = home / "journal.sqlite"
    real_journal(path)
    before = path.read_bytes()
    # Read-only: history still lists the game; a new game cannot be written.
    path.chmod(0o400)
    proc = tractor(home, "history", anyone=True)
    no_traceback(proc)
    assert proc.returncode == 0 and proc.stdout.startswith("g1  "), proc.stderr
    for command in (["join", "tcp:127.0.0.1:1", "--plain"], ["resume"]):
        proc = tractor(home, *command, anyone=True)
        no_traceback(proc)
        assert proc.returncode == 1
        assert proc.stdout == (
            f"tractor: cannot use the journal {path} (permission denied: cannot read and "
            "write it). It is left as it is; give yourself permission to read and write it "
            "and its folder, or set TRACTOR_HOME to a folder of yours.\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o400  # not "tightened" into writable
    # Unreadable.
    path.chmod(0)
    proc = tractor(home, "history", anyone=True)
    no_traceback(proc)
    assert proc.returncode == 1
    assert f"cannot use the journal {path} (permission denied: cannot read it)" in proc.stderr
    # A read-only folder: reading works, writing is refused with the folder named.
    path.chmod(0o600)
    home.chmod(0o500)
    try:
        assert tractor(home, "history", anyone=True).stdout.startswith("g1  ")
        proc = tractor(home, "join", "tcp:127.0.0.1:1", "--plain", anyone=True)
        no_traceback(proc)
        assert proc.returncode == 1
        assert f"(permission denied: cannot write in {home})" in proc.stdout
    finally:
        home.chmod(0o700)
    assert path.read_bytes() == before and not asides(home)


# --- the opening functions ---------------------------------------------------------------------


def application_id(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return db.execute("PRAGMA application_id").fetchone()[0]
    finally:
        db.close()


def test_keeping_aside_takes_sqlites_own_files_along(tmp_path):
    path = tmp_path / "journal.sqlite"
    damage(path, "garbage")
    # SQLite's rollback journal beside it (one SQLite left as it is: empty) belongs to it.
    (tmp_path / "journal.sqlite-journal").write_bytes(b"")
    told: list[str] = []
    assert ready_for_a_new_game(str(path), told.append)
    [aside] = asides(tmp_path)
    assert (tmp_path / f"{aside}-journal").exists()
    assert not (tmp_path / "journal.sqlite-journal").exists()
    # Damaged again within the same second: a second name, the first kept.
    damage(path, "garbage")
    assert ready_for_a_new_game(str(path), told.append)
    assert len(asides(tmp_path)) == 2 and len(told) == 2
    assert all(line.count("kept it aside as") == 1 for line in told)


def test_a_journal_of_an_earlier_version_is_read_unchanged_and_marked_when_written(tmp_path):
    path = tmp_path / "journal.sqlite"
    shutil.copy(FIXTURES / "journal-layout2.sqlite", path)  # a journal of layout 2
    db = sqlite3.connect(path)  # as earlier versions left it: no mark
    db.execute("PRAGMA application_id = 0")
    db.execute("PRAGMA user_version = 0")
    for later in ("ai_servers", "checked", "ballots"):  # tables that came later
        db.execute(f"DROP TABLE {later}")
    db.commit()
    db.close()
    before = path.read_bytes()
    seats = [f"seat{s}" for s in range(4)]
    journal = read_journal(str(path))
    assert [g.id for g in journal.games()] == seats
    assert journal.pinned_ai_server("x") is None  # the missing table reads as empty
    journal.close()
    assert path.read_bytes() == before
    assert ready_for_a_new_game(str(path), lambda line: pytest.fail(line))
    assert application_id(path) == APPLICATION_ID
    journal = Journal(str(path))
    assert [g.id for g in journal.games()] == seats
    journal.close()


def test_a_damaged_page_is_found_when_opened(tmp_path):
    path = tmp_path / "journal.sqlite"
    damage(path, "truncated")
    with pytest.raises(JournalError) as raised:
        read_journal(str(path))
    assert (raised.value.kind, raised.value.path) == ("damaged", str(path))
