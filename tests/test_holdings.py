"""What one seat can make a peer hold, measured: a flood of hostile frames from one seat is
refused past a bound that names the seat (`net.deck.holdings`), and the memory it leaves
behind, counted by tracemalloc, stays within that bound."""

from __future__ import annotations

import tracemalloc
from collections.abc import Sequence

import pytest
from test_deck_cheats import SEED, SMALL, forge, pump, stage

from tractor.net.deck import holdings
from tractor.net.deck.engine import Deck
from tractor.net.deck.envelope import MAX_FRAME, FrameError, NoRoom, open_frame
from tractor.net.deck.errors import BadMessage, DeckError
from tractor.net.deck.local import LocalDeal
from tractor.net.table.messages import Chat

#: 256 KiB of empty maps as a table message: 18 MiB decoded (the issue's frame).
EMPTY_MAPS = {"data": {f"k{i}": [{}] * 4096 for i in range(62)}}
#: As many 32-byte strings as a frame holds: about 1 MB decoded, within the frame limits.
BLOBS = {"keys": [bytes(32)] * 3800, "more": [bytes(32)] * 3800}


Refusal = tuple[type, int | None, str]


def memory_kept(deck: Deck, frames: Sequence[bytes]) -> tuple[int, list[Refusal]]:
    """Bytes still allocated after ``deck`` received ``frames``, and its refusals (not the
    exceptions: their tracebacks would keep what the frames decoded to)."""
    refusals: list[Refusal] = []
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for frame in frames:
            try:
                deck.receive(frame)
            except (FrameError, DeckError) as exc:
                refusals.append((type(exc), exc.seat, str(exc)))
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    return kept, refusals


def test_a_flood_of_empty_maps_is_refused_unread_and_kept_nowhere():
    """Seat 1's table messages of 256 KiB of empty maps, validly signed, while the deck is
    still shuffling (so they would wait for their turn): each is refused before it is
    decoded. Before the codec each was kept, decoded, until 4 MiB of them waited: 16
    frames, 283 MiB (tracemalloc)."""
    d = LocalDeal(**SMALL, seed=SEED)
    frames = [forge(d, 1, "app", EMPTY_MAPS, seq=q) for q in range(20)]
    assert all(len(f) <= MAX_FRAME for f in frames)
    kept, refusals = memory_kept(d.peers[0], frames)
    assert len(refusals) == 20
    assert all(t is FrameError and "more than 8192 values" in why for t, _, why in refusals)
    assert kept < 64 * 1024
    assert not any(d.peers[0]._pending)


def test_frames_waiting_for_their_turn_hold_at_most_the_bound_naming_the_seat():
    """Seat 1's frames of a later step of the protocol, each as heavy as the frame limits
    allow (256 KiB of 32-byte strings, about 1 MB decoded), wait until their turn: past
    `AHEAD_HELD` (8 MiB) of them the next is refused unread, naming seat 1, blaming
    nobody. Before, 4 MiB of frames waited whatever they held decoded: 16 frames, 12 MiB;
    now 7 frames, 5.5 MiB (tracemalloc)."""
    d = LocalDeal(**SMALL, seed=SEED)
    frames = [forge(d, 1, "audit", BLOBS, seq=q) for q in range(20)]
    kept, refusals = memory_kept(d.peers[0], frames)
    waiting = d.peers[0]._pending[1]
    assert 0 < len(waiting) < 20 and len(refusals) == 20 - len(waiting)
    assert all(t is NoRoom and seat == 1 for t, seat, _ in refusals)
    assert "seat 1: its messages waiting here would hold more than 8 MiB" in refusals[0][2]
    assert sum(e.held for e in waiting.values()) <= holdings.AHEAD_HELD
    assert kept <= holdings.AHEAD_HELD


def test_a_seat_past_its_journal_bound_is_blamed_by_every_peer_on_the_signed_frame(
        monkeypatch):
    """Every peer applies the same chain, so every peer refuses the same frame of the seat
    whose messages of the hand pass the bound (set low here: an honest seat sends about
    190 KB in a hand at the largest table, a twentieth of it), with that frame as evidence;
    the other seats go on."""
    d, _ = stage("ready")
    line = {"chat": "x" * 250}
    sent = sum(len(e.content) for e in d.peers[0]._chains[1].frames)
    size = len(open_frame(forge(d, 1, "app", {"data": line}), d.config.table, d.config.hand,
                          list(d.config.public_keys)).content)
    monkeypatch.setattr(holdings, "CHAIN_BYTES", sent + 9 * size + size // 2)
    for _ in range(9):
        d.call(1, "post", line)
    assert pump(d) == []
    with pytest.raises(ValueError, match="refused"):  # its own engine refuses it first
        d.call(1, "post", line)
    frame = forge(d, 1, "app", {"data": line})
    for dst in (0, 2, 3):
        with pytest.raises(BadMessage, match="seat 1: its messages of this hand pass .* bytes "
                           r"\(the journal's bound for one seat\)") as info:
            d.peers[dst].receive(frame)
        assert info.value.frames == (frame,)
    d.call(2, "post", {"chat": "still heard"})
    assert pump(d) == []
    assert all(p.inbox[-1][:2] == (2, Chat("still heard")) for p in d.peers)
