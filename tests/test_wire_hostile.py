"""Hostile input against a seated peer: 10,000 random and mutated frames (truncated,
oversized, wrong types, bad signatures, replays, wrong seat, wrong hand or table, out of
turn). No exception escapes, the game state never changes, the offender is dropped with a
log line, and the hand then goes on with the honest frames."""

from __future__ import annotations

import random
from collections.abc import Callable

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet.testing import MemoryReactorClock, StringTransport
from twisted.logger import LogLevel, capturedLogs

from tractor import Rules
from tractor.net.deck.envelope import Header, seal
from tractor.net.deck.local import LocalDeal
from tractor.net.mesh.handshake import check_proof, open_hello, pack_hello, pack_proof
from tractor.net.mesh.intake import ProcessingFailure
from tractor.net.mesh.link import PeerLink
from tractor.net.mesh.loopback import raw_public
from tractor.net.mesh.wire import PeerNode
from tractor.net.table.player import RandomPlayer
from tractor.net.table.session import GameSession

TABLE = b"hostile-table-01"


def seated_game(prepare: Callable[[LocalDeal, list[GameSession]], None] | None = None):
    """Four in-memory sessions, stopped in the middle of the deal; returns the router,
    the sessions and the frames still in flight. ``prepare`` runs before the game starts
    (to attach a node whose clock stamps the deal, say)."""
    d = LocalDeal(seats=4, seed=7)
    keys = [k.public_key() for k in d.signing_keys]
    sessions = [GameSession(Rules(), TABLE, s, d.signing_keys[s], keys, bytes([7, s]) * 16,
                            RandomPlayer(70 + s), max_hands=1) for s in range(4)]
    d.peers = sessions
    if prepare is not None:
        prepare(d, sessions)
    d.call_all("start")
    while d.queue and sessions[0].current.round < 3:
        src, dst, frame = d.queue.popleft()
        d.log.append((src, dst, frame))
        d.broadcast(dst, d.peers[dst].receive(frame))
    return d, sessions


def snapshot(session: GameSession):
    deck, table = session.current.deck, session.current
    return (deck.phase, [len(c.frames) for c in deck._chains],
            [sorted(p) for p in deck._pending], len(deck.inbox), table.phase, table.round,
            [len(q) for q in table._queues], sorted(deck.cards.items()))


def sent_frames(transport: StringTransport) -> list[bytes]:
    """The length-prefixed frames a link wrote to its transport so far."""
    data, frames = transport.value(), []
    while len(data) >= 4:
        n = int.from_bytes(data[:4], "big")
        frames.append(data[4:4 + n])
        data = data[4 + n:]
    return frames


def link_for(node: PeerNode, seat: int,
             key: Ed25519PrivateKey) -> tuple[PeerLink, StringTransport]:
    """A connection that completes the real handshake as ``seat`` (holding its ``key``):
    hello with a fresh nonce, the node's proof checked, then this seat's proof."""
    link = PeerLink(node, seat if seat > node.seat else None)
    transport = StringTransport()
    link.makeConnection(transport)
    theirs = open_hello(sent_frames(transport)[0], TABLE, node.raw_keys, seat)
    assert theirs.seat == node.seat
    mine = random.Random(len(node.connections)).randbytes(32)
    link.stringReceived(pack_hello(TABLE, seat, node.raw_keys[seat], mine))
    check_proof(sent_frames(transport)[1], node.raw_keys[node.seat], TABLE, node.seat, seat,
                mine, theirs.nonce)
    assert not link.up  # nothing counts before the proof
    link.stringReceived(pack_proof(key, TABLE, seat, node.seat, theirs.nonce, mine))
    assert link.seat == seat and link.up and node.links[seat] is link
    return link, transport


def hostile_frames(rng: random.Random, genuine: list[bytes], other_key, count: int):
    """Random bytes, truncations, bit flips, wrong types, re-signed lies, replays."""
    kinds = ["random", "truncate", "flip", "types", "forged", "replay", "wrong_hand",
             "wrong_seat", "deep"]
    for i in range(count):
        kind = kinds[i % len(kinds)]
        base = rng.choice(genuine)
        if kind == "random":
            yield kind, rng.randbytes(rng.randint(0, 300))
        elif kind == "truncate":
            yield kind, base[:rng.randint(0, len(base) - 1)]
        elif kind == "flip":
            b = bytearray(base)
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
            yield kind, bytes(b)
        elif kind == "types":
            junk = rng.choice([None, 1, -5, 2**64 - 1, "x" * 50, [1, 2], {"a": 1}, b"\x00" * 9,
                               [[1], {}, b""], [["tractor-deck/1", TABLE, 0, 1, 0, "deal", []],
                                                {}, b"sig"]])
            yield kind, msgpack.packb(junk, use_bin_type=True)
        elif kind == "forged":
            header = Header(TABLE, 0, 1, rng.randint(0, 50), rng.choice(
                ["deal", "reveal", "app", "commit", "lock"]), tuple((0, bytes(32))
                                                                    for _ in range(4)))
            # Signed with seat 2's key while claiming seat 1.
            yield kind, seal(header, {"positions": [1], "keys": [b"\x01" * 32]}, other_key)
        elif kind == "replay":
            yield kind, base
        elif kind == "wrong_hand":
            data = msgpack.unpackb(base, raw=False)
            data[0][2] = rng.choice([5, 99, 2**40])
            yield kind, msgpack.packb(data, use_bin_type=True)
        elif kind == "wrong_seat":
            data = msgpack.unpackb(base, raw=False)
            data[0][3] = 2
            yield kind, msgpack.packb(data, use_bin_type=True)
        else:
            nested: object = 1
            for _ in range(200):
                nested = [nested]
            yield kind, msgpack.packb(nested)


@pytest.mark.slow
def test_ten_thousand_hostile_frames_change_nothing_and_the_hand_goes_on():
    d, sessions = seated_game()
    target = sessions[0]
    node = PeerNode(MemoryReactorClock(), target, [raw_public(k) for k in d.signing_keys])
    genuine = [f for src, dst, f in d.log if src == 1 and dst == 0]
    assert genuine, "seat 1 has sent frames to seat 0 by now"
    rng = random.Random(2024)
    before = snapshot(target)
    link, transport = link_for(node, 1, d.signing_keys[1])
    dropped = replays = 0
    with capturedLogs() as events:
        for kind, frame in hostile_frames(rng, genuine, d.signing_keys[2], 10_000):
            link.stringReceived(frame)  # must never raise
            assert snapshot(target) == before, kind
            if transport.disconnecting:
                dropped += 1
                link.connectionLost(None)
                link, transport = link_for(node, 1, d.signing_keys[1])
            elif kind == "replay":
                replays += 1
    assert node.halted is None
    assert dropped > 8000  # everything but the replays of genuine frames drops the link
    warnings = [e for e in events if e["log_level"] == LogLevel.warn]
    assert len(warnings) >= dropped
    assert all("seat 1" in e["log_format"].format(**e) for e in warnings)
    # Oversized and malformed length prefixes drop the link before any parsing.
    link.dataReceived(b"\xff\xff\xff\xff" + b"x" * 10)
    assert transport.disconnecting
    # The honest frames still in flight finish the hand on every peer.
    d.run()
    assert all(len(s.results) == 1 for s in sessions)
    assert all(s.results == sessions[0].results for s in sessions)


def test_a_hello_that_does_not_fit_is_dropped_with_a_reason():
    d, sessions = seated_game()
    node = PeerNode(MemoryReactorClock(), sessions[0], [raw_public(k) for k in d.signing_keys])
    nonce = b"\x05" * 32
    cases = [
        pack_hello(b"another-table-00", 1, node.raw_keys[1], nonce),
        pack_hello(TABLE, 0, node.raw_keys[0], nonce),  # our own seat
        pack_hello(TABLE, 9, node.raw_keys[1], nonce),
        pack_hello(TABLE, 1, node.raw_keys[2], nonce),  # seat 1 with seat 2's key
        pack_hello(TABLE, 1, node.raw_keys[1], b"short"),
        msgpack.packb(["tractor-wire/2", TABLE, 1, node.raw_keys[1]]),  # no nonce
        msgpack.packb(["tractor-wire/0", TABLE, 1, node.raw_keys[1]]),
        b"\x93\x01",
    ]
    for hello in cases:
        link = PeerLink(node)
        transport = StringTransport()
        link.makeConnection(transport)
        with capturedLogs() as events:
            link.stringReceived(hello)
        assert transport.disconnecting and link.seat is None and not link.up
        assert len(sent_frames(transport)) == 1  # the node's hello, and no proof
        assert any("dropping" in e["log_format"] for e in events)
        link.connectionLost(None)  # its place at the gate frees
    assert not node.links


@pytest.mark.parametrize("junk", [
    [[1, 2, 0], {}, b""],  # a header too short to name a seat
    [[1, 2, 0]],
    [[1, 2, 0, 1], {}],
    [b"\x00\x01\x02\x03", {}, b""],  # bytes where the header list belongs
    [[1, 2, 0, "1"], {}, b""],
    [[1, 2, 0, True], {}, b""],
])
def test_an_unsigned_frame_of_a_surprising_shape_drops_the_link_and_raises_nothing(junk):
    d, sessions = seated_game()
    node = PeerNode(MemoryReactorClock(), sessions[0], [raw_public(k) for k in d.signing_keys])
    link, transport = link_for(node, 1, d.signing_keys[1])
    before = snapshot(sessions[0])
    with capturedLogs() as events:
        link.stringReceived(msgpack.packb(junk, use_bin_type=True))  # must not raise
    assert transport.disconnecting and node.halted is None
    assert snapshot(sessions[0]) == before
    assert any("dropping seat 1" in e["log_format"].format(**e) for e in events)


def test_an_unexpected_exception_while_processing_halts_the_node_naming_the_seat():
    d, sessions = seated_game()
    node = PeerNode(MemoryReactorClock(), sessions[0], [raw_public(k) for k in d.signing_keys])
    failures = []
    node.done.addErrback(failures.append)
    link, transport = link_for(node, 1, d.signing_keys[1])
    genuine = next(f for src, dst, f in d.log if src == 1 and dst == 0)
    calls = []

    def broken_receive(frame: bytes) -> list[bytes]:
        calls.append(frame)
        raise KeyError("no such thing")  # what a table bug on a hostile message looks like

    sessions[0].receive = broken_receive
    with capturedLogs() as events:
        link.stringReceived(genuine)  # must not raise into Twisted
    assert isinstance(node.halted, ProcessingFailure) and node.halted.from_seat == 1
    assert str(node.halted).startswith(
        "could not process messages after a frame from seat 1: KeyError")
    assert len(failures) == 1 and failures[0].check(ProcessingFailure)
    logged = [e for e in events if "log_failure" in e]
    assert logged and "seat 1" in logged[0]["log_format"].format(**logged[0])
    assert logged[0]["log_failure"].check(KeyError)
    link.stringReceived(genuine)  # a halted node reads nothing more
    assert len(calls) == 1
