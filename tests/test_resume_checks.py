"""Resuming from a journal: the replay tells its progress, and the signatures and proofs
checked on this machine before the crash are not checked again (issue 28, item 6), while
anything the marks do not name exactly (a changed frame, a mark made under another key or
for another check) is checked in full."""

from __future__ import annotations

import msgpack
import pytest
from helpers import pump, transcript
from test_resume import make

from tractor.net.deck import engine, lock_proof, shuffle_proof
from tractor.net.deck.envelope import FrameError
from tractor.net.deck.errors import DeckError
from tractor.net.deck.ledger import frame_digest
from tractor.net.deck.local import LocalDeal
from tractor.net.journal.checked import PROOFS, SIGNATURE, mark, marks_key
from tractor.net.journal.store import Journal
from tractor.net.table.journaled import game_start, open_session
from tractor.net.table.player import RandomPlayer

SEED, HANDS, SEAT = 5, 3, 2


@pytest.fixture(scope="module")
def crashed():
    """Four peers a hand and a bit into a game; seat 2's journal, and the frames whose
    signatures and whose proofs its decks checked (what its node marks in the journal)."""
    d = LocalDeal(seats=4, seed=SEED)
    d.peers = [make(d, s, SEED, HANDS) for s in range(4)]
    d.call_all("start")
    while d.queue and d.peers[SEAT].hand_no < 1:
        pump(d, 50)
    pump(d, 300)
    peer = d.peers[SEAT]
    assert peer.hand_no >= 1
    signed, proved = peer.ledger.take_marks()
    return d, peer.journal(), Marked(signed, proved), peer


class Marked:
    """The frames a peer checked: their digests, as the journal's marks give them back."""

    def __init__(self, signed: list[bytes], proved: list[bytes]) -> None:
        self.signed_frames, self.proved_frames = signed, proved
        self.signed = {frame_digest(f) for f in signed}
        self.proved = {frame_digest(f) for f in proved}


@pytest.fixture
def proof_runs(monkeypatch):
    """How many shuffle proofs, lock proofs and frame signatures the decks verify."""
    runs = {"shuffle": 0, "lock": 0, "signature": 0}
    for module, kind in ((shuffle_proof, "shuffle"), (lock_proof, "lock")):
        def counted(*args, _real=module.verify, _kind=kind):
            runs[_kind] += 1
            return _real(*args)
        monkeypatch.setattr(module, "verify", counted)
    real_open = engine.open_frame

    def opened(*args, verify=True):
        runs["signature"] += verify
        return real_open(*args, verify=verify)

    monkeypatch.setattr(engine, "open_frame", opened)
    return runs


def nothing_run(runs: dict[str, int]) -> bool:
    return runs == {"shuffle": 0, "lock": 0, "signature": 0}


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


def test_checks_that_passed_here_are_not_run_again(crashed, proof_runs):
    d, journal, marked, peer = crashed
    # Every other seat's shuffle and lock of every deck so far passed at this seat, and
    # every frame it applied had its signature checked.
    assert {msgpack.unpackb(f)[0][5] for f in marked.proved_frames} == {"shuffle", "lock"}
    assert len(marked.proved) == len(marked.proved_frames)
    assert len(marked.signed) > len(journal) * 0.9  # all but those still waiting their turn
    full = make(d, SEAT, SEED, HANDS)
    full.resume(journal)
    assert proof_runs["shuffle"] > 0 and proof_runs["lock"] > 0
    assert proof_runs["signature"] >= len(journal)
    proof_runs.update(shuffle=0, lock=0, signature=0)
    quick = make(d, SEAT, SEED, HANDS)
    quick.resume(journal, proved=marked.proved, signed=marked.signed)
    assert proof_runs["signature"] == len(journal) - len(marked.signed)
    assert proof_runs["shuffle"] == proof_runs["lock"] == 0
    # The same game either way: same hands, same transcripts.
    assert (quick.hand_no, quick.current.phase) == (full.hand_no, full.current.phase)
    assert transcript(quick) == transcript(full) == transcript(peer)[:len(transcript(full))]
    # The replay marks only what it checked (the frames that had waited for their turn).
    signed, proved = quick.ledger.take_marks()
    assert proved == [] and len(signed) <= len(journal) - len(marked.signed)
    assert full.ledger.take_marks() != ([], [])


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
    d, journal, marked, _ = crashed
    original, forged = forged_shuffle(d, journal, 1)
    assert original in marked.proved_frames and original in marked.signed_frames
    changed = [forged if f == original else f for f in journal]
    with pytest.raises(DeckError) as caught:  # its (valid) signature, then its proof
        make(d, SEAT, SEED, HANDS).resume(changed, marked.proved, marked.signed)
    assert caught.value.seat == 1
    # Bytes damaged on the disk: the signature no longer verifies.
    i = journal.index(original)
    damaged = [*journal[:i], original[:-1] + bytes([original[-1] ^ 1]), *journal[i + 1:]]
    with pytest.raises(FrameError, match="bad signature"):
        make(d, SEAT, SEED, HANDS).resume(damaged, marked.proved, marked.signed)


def journal_of(tmp_path, d: LocalDeal, journal: list[bytes]) -> tuple[Journal, str]:
    session = make(d, SEAT, SEED, HANDS)
    kept = Journal(str(tmp_path / "journal.sqlite"))
    kept.add_game("g", game_start(session, d.signing_keys[SEAT], bytes([SEED, SEAT]) * 16))
    kept.append("g", journal)
    return kept, "g"


def test_the_journal_keeps_the_marks_and_a_resume_uses_them(tmp_path, crashed, proof_runs):
    d, journal, marked, _ = crashed
    kept, game = journal_of(tmp_path, d, journal)
    with kept.db:
        kept.marks.add(game, SIGNATURE, marked.signed_frames)
        kept.marks.add(game, PROOFS, marked.proved_frames)
    kept.close()
    told: list[int] = []
    again = Journal(str(tmp_path / "journal.sqlite"))
    assert again.marks.known(game, journal) == (marked.signed, marked.proved)
    open_session(again, game, RandomPlayer(1), progress=lambda done, total: told.append(done))
    assert proof_runs["shuffle"] == proof_runs["lock"] == 0
    assert proof_runs["signature"] == len(journal) - len(marked.signed)
    assert told[-1] == len(journal)


def test_marks_of_another_key_or_check_vouch_for_nothing(tmp_path, crashed, proof_runs):
    d, journal, marked, _ = crashed
    kept, game = journal_of(tmp_path, d, journal)
    stranger, own = marks_key(bytes(32)), marks_key(d.signing_keys[SEAT].private_bytes_raw())
    rows = [mark(stranger, check, frame_digest(f)) for f in journal
            for check in (SIGNATURE, PROOFS)]
    # A proof's frame marked for its signature only: its proofs are still run.
    rows += [mark(own, SIGNATURE, frame_digest(f)) for f in marked.proved_frames]
    with kept.db:
        kept.db.executemany("INSERT INTO checked (game, mark) VALUES (?, ?)",
                            [(game, m) for m in rows])
    assert kept.marks.known(game, journal) == ({frame_digest(f) for f in
                                                marked.proved_frames}, set())
    open_session(kept, game, RandomPlayer(1))
    assert proof_runs["shuffle"] > 0 and proof_runs["lock"] > 0
