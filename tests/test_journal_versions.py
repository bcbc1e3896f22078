"""The journal's versions (issue 30): a journal of an earlier layout is upgraded one step at
a time when opened for writing, each step in a transaction of its own, and read as it is
(nothing written) by `history` and `replay`; a newer one is refused and left exactly as it
was. ``fixtures/journal-layout2.sqlite`` is a journal as tractor wrote it before versions
had steps (layout 2; fixtures/README.md says how it was made): it opens, replays and
resumes."""

from __future__ import annotations

import io
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import pump, sender, transcript

from tractor.cli.history import history_lines, replay
from tractor.cli.journal_open import read_journal
from tractor.net.deck.local import LocalDeal
from tractor.net.journal import versions
from tractor.net.journal.sqlite_file import NEWER, JournalError
from tractor.net.journal.store import Journal
from tractor.net.journal.versions import APPLICATION_ID
from tractor.net.table.journaled import hand_sides, open_session
from tractor.net.table.player import RandomPlayer
from tractor.net.table.session import GameSession

FIXTURE = Path(__file__).parent / "fixtures" / "journal-layout2.sqlite"
#: How the fixture's game was played (fixtures/make_journal_layout2.py).
SEED, HANDS, SEATS = 5, 2, 4
GAMES = [f"seat{s}" for s in range(SEATS)]


def copy_of_fixture(tmp_path: Path, version: int = 2) -> Path:
    """The fixture, as a journal of ``version`` (2, or an earlier one made from it by
    taking away what came later)."""
    path = tmp_path / "journal.sqlite"
    shutil.copy(FIXTURE, path)
    path.chmod(0o600)
    db = sqlite3.connect(path)
    with db:
        if version < 2:
            db.execute("DROP TABLE ballots")
            db.execute("DROP TABLE checked")  # journals marked 1 before the marks came
        if version < 1:
            db.execute("DROP TABLE ai_servers")
            db.execute("PRAGMA application_id = 0")
        db.execute(f"PRAGMA user_version = {version}")
    db.close()
    return path


def layout(path: Path) -> tuple[int, int, dict[str, list[tuple[object, ...]]]]:
    """The file's mark, version, and each table's columns (name, type, not null, default,
    key) and indexes (the words of their CREATE statements may differ: the meaning not)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = {name: [*db.execute(f"PRAGMA table_info({name})"),
                         *[(index, *db.execute(f"PRAGMA index_info({index})").fetchall())
                           for _, index, *_ in db.execute(f"PRAGMA index_list({name})")]]
                  for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type ="
                                            " 'table' AND name NOT LIKE 'sqlite_%'")}
        return (db.execute("PRAGMA application_id").fetchone()[0],
                db.execute("PRAGMA user_version").fetchone()[0], tables)
    finally:
        db.close()


def rows(path: Path, query: str) -> list[tuple[object, ...]]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute(query).fetchall()
    finally:
        db.close()


def test_the_layout2_fixture_is_read_without_a_byte_written(tmp_path):
    path = copy_of_fixture(tmp_path)
    before = path.read_bytes()
    journal = read_journal(str(path))
    lines = history_lines(journal)
    assert [line.split()[0] for line in lines[::2]] == GAMES
    assert all(line.endswith("unfinished in hand 2 (tractor resume)") for line in lines[::2])
    assert set(lines[1::2]) == {"    rules: decks=1"}
    out = io.StringIO()
    assert replay(journal, "seat2", out) == 0
    text = out.getvalue().splitlines()
    assert text[0].startswith("hand 1: starter seat ")
    assert text[-1] == "  audit: 4 of 4 peers verified the hand: no rule broken"
    journal.close()
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["journal.sqlite"]  # no side file either


def test_the_layout2_fixture_is_upgraded_when_opened_for_writing(tmp_path):
    path = copy_of_fixture(tmp_path)
    # Each table's columns of layout 2 (step 4 adds results.declaring).
    columns = {"frames": "*", "meta": "*", "results": "game, hand, result", "ai_servers": "*",
               "checked": "*", "ballots": "*"}
    kept = {table: rows(path, f"SELECT {columns[table]} FROM {table} ORDER BY 1, 2")
            for table in columns}
    games = rows(path, "SELECT id, seat, identity, master_seed, rules, table_id, public_keys,"
                       " first, created, finished FROM games ORDER BY id")
    assert rows(path, "SELECT DISTINCT rounds FROM games") == [(0,)]
    Journal(str(path)).close()
    app, version, _ = layout(path)
    assert (app, version) == (APPLICATION_ID, versions.CURRENT)
    # What `rounds` said (0: the linear proof) has a column of its own; `rounds` is gone.
    assert rows(path, "SELECT id, shuffle_proof FROM games ORDER BY id") == [
        (g, "linear") for g in GAMES]
    assert "rounds" not in [r[1] for r in rows(path, "PRAGMA table_info(games)")]
    assert rows(path, "SELECT id, seat, identity, master_seed, rules, table_id, public_keys,"
                      " first, created, finished FROM games ORDER BY id") == games
    for table, before in kept.items():
        assert rows(path, f"SELECT {columns[table]} FROM {table} ORDER BY 1, 2") == before, \
            table
    # What layout 2 did not keep is said to be unknown, not made up (`tractor stats`).
    assert rows(path, "SELECT DISTINCT declaring FROM results") == [(None,)]
    assert rows(path, "SELECT DISTINCT winners FROM games") == [(None,)]


@pytest.mark.parametrize("version", [0, 1, 2])
def test_a_journal_of_every_earlier_version_ends_as_a_new_one_begins(tmp_path, version):
    path = copy_of_fixture(tmp_path, version)
    Journal(str(path)).close()
    new = tmp_path / "new.sqlite"
    Journal(str(new)).close()
    assert layout(path) == layout(new)
    assert rows(path, "PRAGMA integrity_check") == [("ok",)]


def test_each_step_is_a_transaction_of_its_own(tmp_path, monkeypatch):
    """A step that fails is undone whole; the steps before it stay done."""
    path = copy_of_fixture(tmp_path, 0)
    before = layout(path)
    last = versions.STEPS[2]

    def failing(db: sqlite3.Connection) -> None:
        last(db)
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(versions, "STEPS", (*versions.STEPS[:2], failing))
    with pytest.raises(JournalError):
        Journal(str(path))
    app, version, tables = layout(path)
    assert (app, version) == (APPLICATION_ID, 2)  # steps 0 -> 1 and 1 -> 2 are done
    assert "rounds" in [r[1] for r in rows(path, "PRAGMA table_info(games)")]
    assert sorted(tables) == sorted([*before[2], "ai_servers", "ballots", "checked"])
    monkeypatch.undo()
    Journal(str(path)).close()  # and the next open takes the last step
    assert layout(path)[1] == versions.CURRENT


def test_a_newer_journal_opened_for_writing_is_left_exactly_as_it_was(tmp_path):
    path = copy_of_fixture(tmp_path)
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {versions.CURRENT + 1}")
    db.commit()
    db.close()
    path.chmod(0o644)
    before = path.read_bytes()
    with pytest.raises(JournalError) as raised:
        Journal(str(path))
    assert raised.value.kind == NEWER
    assert str(raised.value) == (
        f"{path} cannot be used as a journal (a newer tractor wrote it: journal layout "
        f"{versions.CURRENT + 1}, this version knows up to {versions.CURRENT})")
    assert path.read_bytes() == before
    assert stat.S_IMODE(path.stat().st_mode) == 0o644  # not even its mode


def test_every_seat_of_the_fixture_resumes_and_the_game_ends_the_same_everywhere(tmp_path):
    journal = Journal(str(copy_of_fixture(tmp_path)))
    deal = LocalDeal(seats=SEATS, seed=SEED)
    seats, sent = [], []
    for s, game in enumerate(GAMES):
        session, out = open_session(journal, game, RandomPlayer(SEED * 10 + s),
                                    max_hands=HANDS)
        assert session.hand_no == 1 and len(session.results) == 1
        seats.append(Kept(session, journal, game))
        sent.append(out)
    deal.peers = seats
    for s in range(SEATS):  # what each owes, then all of its own again, as after a restart
        deal.broadcast(s, sent[s])
        for frame in seats[s].session.journal():
            if sender(frame) == s:
                deal.broadcast(s, [frame])
    pump(deal)
    results = [k.session.results for k in seats]
    assert len(results[0]) == HANDS and all(r == results[0] for r in results)
    assert all(transcript(k.session) == transcript(seats[0].session) for k in seats)
    for game in GAMES:
        assert journal.results(game) == [r.to_data() for r in results[0]]
    # Layout 4 keeps who declared each hand (the starter and its partner across), the
    # hand the old tractor recorded too once the game goes on.
    starters = [h.starter for h in seats[0].session.played]
    assert len(starters) == HANDS
    for game in GAMES:
        assert [h.declaring for h in journal.hands(game)] == [
            tuple(sorted((s, (s + 2) % SEATS))) for s in starters]
    journal.close()


class Kept:
    """A seat that keeps every frame it accepts or sends in the journal, as `PeerNode`
    does."""

    def __init__(self, session: GameSession, journal: Journal, game: str) -> None:
        self.session, self.journal, self.game = session, journal, game

    def receive(self, frame: bytes) -> list[bytes]:
        out = self.session.receive(frame)
        signed, proved = self.session.ledger.take_marks()
        self.journal.keep(self.game, [frame, *out], signed, proved, self.session.results,
                          self.session.over, hand_sides(self.session), self.session.winners)
        return out


@pytest.mark.e2e
def test_the_journal_does_not_import_the_table_code():
    """The storage takes and gives plain records: the table code depends on it, not the
    other way round."""
    code = ("import sys, tractor.net.journal.store, tractor.net.journal.versions;"
            "print(sorted(m for m in sys.modules if m.startswith('tractor.net.table')))")
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).parent)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
