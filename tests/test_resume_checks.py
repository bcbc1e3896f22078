"""Resuming from a journal: the replay tells its progress, and the proofs that passed on this
machine before the crash are not run again (issue 28, item 6), while anything the marks do
not name exactly (a changed frame, a mark made under another key) is checked in full."""

from __future__ import annotations

import msgpack
import pytest
from helpers import pump, transcript
from test_resume import make

from tractor.net.checked import mark, marks_key
from tractor.net.deck import lock_proof, shuffle_proof
from tractor.net.deck.errors import DeckError
from tractor.net.deck.ledger import frame_digest
from tractor.net.deck.local import LocalDeal
from tractor.net.journal import Journal
from tractor.net.table import RandomPlayer

SEED, HANDS, SEAT = 5, 3, 2


@pytest.fixture(scope="module")
def crashed():
    """Four peers a hand and a bit into a game; seat 2's journal, and the frames whose
    proofs its decks ran and saw pass (what its node marks in the journal)."""
    d = LocalDeal(seats=4, seed=SEED)
    d.peers = [make(d, s, SEED, HANDS) for s in range(4)]
    d.call_all("start")
    while d.queue and d.peers[SEAT].hand_no < 1:
        pump(d, 50)
    pump(d, 300)
    peer = d.peers[SEAT]
    assert peer.hand_no >= 1
    return d, peer.journal(), peer.ledger.take_passed(), peer


@pytest.fixture
def proof_runs(monkeypatch):
    """How many shuffle and lock proofs are verified."""
    runs = {"shuffle": 0, "lock": 0}
    for module, kind in ((shuffle_proof, "shuffle"), (lock_proof, "lock")):
        def counted(*args, _real=module.verify, _kind=kind):
            runs[_kind] += 1
            return _real(*args)
        monkeypatch.setattr(module, "verify", counted)
    return runs


def test_the_replay_counts_the_messages_up_to_their_total(crashed):
    d, journal, _, _ = crashed
    told: list[tuple[int, int]] = []
    make(d, SEAT, SEED, HANDS).resume(journal, progress=lambda done, total: told.append(
        (done, total)))
    counts = [done for done, _ in told]
    assert len(told) > 100  # told as it goes, not only at the end
    assert counts == sorted(set(counts))  # rising
    assert {total for _, total in told} == {len(journal)}
    assert told[-1] == (len(journal), len(journal))


def test_proofs_that_passed_here_are_not_run_again(crashed, proof_runs):
    d, journal, passed, peer = crashed
    # Every other seat's shuffle and lock of every deck so far passed at this seat.
    assert {msgpack.unpackb(f)[0][5] for f in passed} == {"shuffle", "lock"}
    assert len(passed) == len({frame_digest(f) for f in passed})
    full = make(d, SEAT, SEED, HANDS)
    full.resume(journal)
    assert proof_runs["shuffle"] > 0 and proof_runs["lock"] > 0
    proof_runs.update(shuffle=0, lock=0)
    quick = make(d, SEAT, SEED, HANDS)
    quick.resume(journal, vouched={frame_digest(f) for f in passed})
    assert proof_runs == {"shuffle": 0, "lock": 0}
    # The same game either way: same hands, same transcripts.
    assert (quick.hand_no, quick.current.phase) == (full.hand_no, full.current.phase)
    assert transcript(quick) == transcript(full) == transcript(peer)[:len(transcript(full))]
    # And the replay marks nothing again (it ran no proof): only new checks make marks.
    assert quick.ledger.take_passed() == []
    assert full.ledger.take_passed() != []


def forged_shuffle(d: LocalDeal, journal: list[bytes], seat: int) -> tuple[bytes, bytes]:
    """``seat``'s first shuffle in ``journal``, and the same message with one proof value
    changed, signed again with that seat's key (as a cheating seat could)."""
    original = next(f for f in journal
                    if msgpack.unpackb(f)[0][5] == "shuffle" and msgpack.unpackb(f)[0][3] == seat)
    header, body, _ = msgpack.unpackb(original, raw=False)
    proof = body["proof"]
    i = next(k for k, v in enumerate(proof) if isinstance(v, bytes) and len(v) == 32)
    proof[i] = bytes([proof[i][0] ^ 1]) + proof[i][1:]
    signed = msgpack.packb([header, body], use_bin_type=True)
    sig = d.signing_keys[seat].sign(signed)
    return original, msgpack.packb([header, body, sig], use_bin_type=True)


def test_a_changed_frame_is_checked_in_full_whatever_the_marks(crashed):
    d, journal, passed, _ = crashed
    original, forged = forged_shuffle(d, journal, 1)
    assert original in passed
    damaged = [forged if f == original else f for f in journal]
    with pytest.raises(DeckError) as caught:
        make(d, SEAT, SEED, HANDS).resume(damaged, vouched={frame_digest(f) for f in passed})
    assert caught.value.seat == 1


def journal_of(tmp_path, d: LocalDeal, journal: list[bytes]) -> tuple[Journal, str]:
    session = make(d, SEAT, SEED, HANDS)
    kept = Journal(str(tmp_path / "journal.sqlite"))
    kept.create_game("g", session, d.signing_keys[SEAT], bytes([SEED, SEAT]) * 16)
    kept.append("g", journal)
    return kept, "g"


def test_the_journal_keeps_the_marks_and_a_resume_uses_them(tmp_path, crashed, proof_runs):
    d, journal, passed, _ = crashed
    kept, game = journal_of(tmp_path, d, journal)
    kept.marks.add(game, passed)
    kept.close()
    told: list[int] = []
    again = Journal(str(tmp_path / "journal.sqlite"))
    session, _ = again.open_session(game, RandomPlayer(1),
                                    progress=lambda done, total: told.append(done))
    assert proof_runs == {"shuffle": 0, "lock": 0}
    assert told[-1] == len(journal)


def test_marks_made_under_another_key_vouch_for_nothing(tmp_path, crashed, proof_runs):
    d, journal, passed, _ = crashed
    kept, game = journal_of(tmp_path, d, journal)
    stranger = marks_key(bytes(32))
    with kept.db:
        kept.db.executemany("INSERT INTO checked (game, mark) VALUES (?, ?)",
                            [(game, mark(stranger, frame_digest(f))) for f in passed])
    assert kept.marks.vouched(game, journal) == set()
    kept.open_session(game, RandomPlayer(1))
    assert proof_runs["shuffle"] > 0 and proof_runs["lock"] > 0
