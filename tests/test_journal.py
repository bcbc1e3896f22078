"""The SQLite journal: a peer that crashes mid-hand is rebuilt from the file on disk alone
(its identity, seed, rules and frames) and the game finishes with the same results and
transcripts everywhere; finished games stay listed with their results."""

from __future__ import annotations

import pytest
from helpers import pump, sender, transcript

from tractor import Rules
from tractor.net.deck.local import LocalDeal
from tractor.net.journal.store import Journal
from tractor.net.table.journaled import game_start, open_session
from tractor.net.table.player import RandomPlayer
from tractor.net.table.session import GameSession

TABLE = b"journal-table-01"


class Journaled:
    """A session whose every sent and accepted frame goes to its journal first."""

    def __init__(self, session: GameSession, journal: Journal, game: str) -> None:
        self.session, self.journal, self.game = session, journal, game

    def start(self) -> list[bytes]:
        return self._keep(self.session.start())

    def receive(self, frame: bytes) -> list[bytes]:
        out = self.session.receive(frame)
        self.journal.append(self.game, [frame])
        return self._keep(out)

    def _keep(self, out: list[bytes]) -> list[bytes]:
        self.journal.append(self.game, out)
        for res in self.session.results[len(self.journal.results(self.game)):]:
            self.journal.record_result(self.game, len(self.journal.results(self.game)), res,
                                       finished=self.session.over)
        return out


@pytest.mark.slow
def test_a_peer_comes_back_from_its_sqlite_journal(tmp_path):
    seed, hands = 4, 2
    d = LocalDeal(seats=4, seed=seed)
    keys = [k.public_key() for k in d.signing_keys]
    journals = [Journal(str(tmp_path / f"seat{s}.sqlite")) for s in range(4)]
    peers = []
    for s in range(4):
        master = bytes([seed, s]) * 16
        session = GameSession(Rules(), TABLE, s, d.signing_keys[s], keys, master,
                              RandomPlayer(seed * 10 + s), max_hands=hands)
        journals[s].add_game("g1", game_start(session, d.signing_keys[s], master))
        peers.append(Journaled(session, journals[s], "g1"))
    d.peers = peers
    d.call_all("start")
    pump(d, 1500)
    # Seat 1 crashes: its process and the frames in flight to it are gone; the file stays.
    journals[1].close()
    d.queue = type(d.queue)((s, t, f) for s, t, f in d.queue if t != 1)
    reopened = Journal(str(tmp_path / "seat1.sqlite"))
    session, out = open_session(reopened, "g1", RandomPlayer(seed * 10 + 1), max_hands=hands)
    d.peers[1] = Journaled(session, reopened, "g1")
    d.broadcast(1, out)
    for s in (0, 2, 3):  # the others reconnect and send theirs again
        for frame in d.peers[s].session.journal():
            if sender(frame) == s:
                d.queue.append((s, 1, frame))
    pump(d)
    results = [p.session.results for p in d.peers]
    assert all(len(r) == hands for r in results) and all(r == results[0] for r in results)
    chains = [transcript(p.session) for p in d.peers]
    assert all(c == chains[0] for c in chains)
    # The record of the game: listed, with every hand's result, on every peer.
    for j in (journals[0], reopened):
        (game,) = j.games()
        assert game.id == "g1" and game.table == TABLE
        assert j.results("g1") == [r.to_data() for r in results[0]]


def test_the_journal_is_private_and_keeps_each_frame_once(tmp_path):
    import os
    import stat

    from tractor.net.deck.envelope import Header, seal

    path = tmp_path / "private.sqlite"
    journal = Journal(str(path))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    key = LocalDeal(seats=4, seed=1).signing_keys[0]
    frames = [seal(Header(b"t" * 16, 0, 0, i, "app", ()), {"data": {}}, key) for i in range(3)]
    journal.append("g", frames[:2])
    journal.append("g", frames)  # sent again after a resume: kept once
    assert journal.frames("g") == frames
    again = Journal(str(path))  # a new process: the frames on disk count too
    again.append("g", frames[1:])
    assert again.frames("g") == frames


def test_a_game_of_the_old_shuffle_proof_is_refused_plainly(tmp_path):
    """A journal of protocol tractor-deck/1 (its games row holds the cut-and-choose rounds,
    40): this version says it cannot resume or replay it, instead of failing on a frame.
    Such games are in journals of layout 2 and before (the fixture's layout), where
    ``games.rounds`` said which shuffle proof a game had."""
    import shutil
    import sqlite3
    from pathlib import Path

    import pytest

    path = tmp_path / "old.sqlite"
    shutil.copy(Path(__file__).parent / "fixtures" / "journal-layout2.sqlite", path)
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE games SET rounds = 40 WHERE id = 'seat1'")
    db.close()
    journal = Journal(str(path))
    with pytest.raises(ValueError, match="older version of tractor"):
        open_session(journal, "seat1", RandomPlayer(1))
    fresh, _ = open_session(journal, "seat0", RandomPlayer(1))
    assert fresh.seat == 0


def test_a_data_folder_and_journal_made_loose_before_are_tightened(tmp_path, monkeypatch):
    # The README promises 0700 folders and 0600 files; the default data folder made earlier
    # (an older version, another umask) kept 0755, and the AI journals' folder was 0755.
    import os

    from tractor.cli.options import data_dir
    from tractor.net.journal.store import Journal, private_folder

    monkeypatch.delenv("TRACTOR_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    (tmp_path / "tractor" / "ai").mkdir(parents=True)
    for folder in (tmp_path / "tractor", tmp_path / "tractor" / "ai"):
        os.chmod(folder, 0o755)
    home = data_dir()
    assert home == tmp_path / "tractor"
    assert home.stat().st_mode & 0o777 == 0o700
    assert (home / "ai").stat().st_mode & 0o777 == 0o700
    loose = home / "journal.sqlite"
    loose.touch()
    os.chmod(loose, 0o644)
    Journal(str(loose)).close()
    assert loose.stat().st_mode & 0o777 == 0o600
    # A folder the person named stays as they set it (their home, say); new ones are 0700.
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o755)
    os.chmod(mine, 0o755)
    monkeypatch.setenv("TRACTOR_HOME", str(mine))
    assert data_dir().stat().st_mode & 0o777 == 0o755
    assert (mine / "ai").stat().st_mode & 0o777 == 0o700
    private_folder(tmp_path / "new" / "deep")
    assert (tmp_path / "new" / "deep").stat().st_mode & 0o777 == 0o700
