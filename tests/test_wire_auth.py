"""Who may speak for a seat: public keys are known to the whole table and visible on the
LAN, so a hello proves nothing by itself. A link counts (takes over the seat's outbox,
stops its grace clock, carries game frames) only after the peer signs this connection's
nonce with the seat's private key."""

from __future__ import annotations

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_wire_grace import seconded, votes_of
from test_wire_hostile import TABLE, link_for, seated_game, sent_frames, snapshot
from twisted.internet.testing import MemoryReactorClock, StringTransport
from twisted.logger import LogLevel, capturedLogs

from tractor.net.mesh.handshake import WIRE_VERSION, open_hello, pack_hello, pack_proof
from tractor.net.mesh.link import HELLO_TIMEOUT, LINK_SILENCE, PeerLink
from tractor.net.mesh.loopback import raw_public
from tractor.net.mesh.relay import is_have
from tractor.net.mesh.wire import HEARTBEAT, PeerNode
from tractor.net.referee.refereeing import SeatGone

IMPOSTOR_NONCE = b"\x11" * 32


def node_and_game(grace: float = 120.0):
    d, sessions = seated_game()
    clock = MemoryReactorClock()
    node = PeerNode(clock, sessions[0], [raw_public(k) for k in d.signing_keys], grace=grace)
    node.done.addErrback(lambda f: None)
    return d, sessions, clock, node


def connect(node: PeerNode, seat: int = 1) -> tuple[PeerLink, StringTransport, bytes]:
    """A new connection between the node and ``seat`` (the node dials higher seats): the
    link, its transport and the node's nonce on it."""
    link = PeerLink(node, seat if seat > node.seat else None)
    transport = StringTransport()
    link.makeConnection(transport)
    return link, transport, open_hello(sent_frames(transport)[0], TABLE, node.raw_keys, 1).nonce


def warnings(events) -> list[str]:
    return [e["log_format"].format(**e) for e in events if e["log_level"] == LogLevel.warn]


def test_a_hello_with_the_seats_public_key_but_no_private_key_cannot_take_the_seat():
    d, sessions, clock, node = node_and_game()
    real, real_transport = link_for(node, 1, d.signing_keys[1])
    ours = next(f for src, dst, f in d.log if src == 0)
    node.send([ours])  # something in seat 1's outbox an impostor would love to read
    assert sent_frames(real_transport)[-1] == ours
    for wrong_key in (Ed25519PrivateKey.generate(), d.signing_keys[2]):
        link, transport, nonce = connect(node)
        link.stringReceived(pack_hello(TABLE, 1, node.raw_keys[1], IMPOSTOR_NONCE))
        # The hello alone changes nothing: the real link stays, seat 1 is connected.
        assert node.links[1] is real and not real_transport.disconnecting
        with capturedLogs() as events:
            link.stringReceived(pack_proof(wrong_key, TABLE, 1, 0, nonce, IMPOSTOR_NONCE))
        assert transport.disconnecting and not link.up
        assert any(w.startswith("dropping seat 1") and "does not verify" in w
                   for w in warnings(events))
        link.connectionLost(None)
        # The impostor got the node's hello and proof, none of seat 1's frames.
        assert ours not in sent_frames(transport) and len(sent_frames(transport)) == 2
        assert node.links[1] is real and not real_transport.disconnecting
        assert 1 not in node.down_since


def test_an_impostor_does_not_stop_the_grace_clock_of_a_seat_that_is_gone():
    d, sessions, clock, node = node_and_game(grace=30.0)
    sessions[0].current.deck.tick = lambda now: None  # the grace period alone, here
    sessions[0].current.deck.overdue = lambda now: {}
    link_for(node, 2, d.signing_keys[2])
    link_for(node, 3, d.signing_keys[3])
    node.begin([])
    for _ in range(3):  # seat 1 never comes; an impostor keeps saying hello in its name
        link, transport, _nonce = connect(node)
        link.stringReceived(pack_hello(TABLE, 1, node.raw_keys[1], IMPOSTOR_NONCE))
        clock.advance(HELLO_TIMEOUT)
        assert transport.disconnecting  # one deadline for the whole handshake
        link.connectionLost(None)
    clock.advance(1)
    # It votes seat 1 gone on time (an impostor's hellos did not start the grace again).
    assert node.halted is None and votes_of(node, 1)[0].what == "gone"
    seconded(node, d.signing_keys, node.links[2], 1)
    assert isinstance(node.halted, SeatGone) and node.halted.seat == 1


def test_a_proof_replayed_from_another_connection_is_refused():
    d, sessions, clock, node = node_and_game()
    # A real handshake of seat 1, recorded by an eavesdropper.
    link, transport, nonce = connect(node)
    hello = pack_hello(TABLE, 1, node.raw_keys[1], IMPOSTOR_NONCE)
    proof = pack_proof(d.signing_keys[1], TABLE, 1, 0, nonce, IMPOSTOR_NONCE)
    link.stringReceived(hello)
    link.stringReceived(proof)
    assert link.up and node.links[1] is link
    # Played back word for word on a new connection: the node's nonce there is another.
    replay, replay_transport, replay_nonce = connect(node)
    assert replay_nonce != nonce
    replay.stringReceived(hello)
    with capturedLogs() as events:
        replay.stringReceived(proof)
    assert replay_transport.disconnecting and not replay.up
    assert any(w.startswith("dropping seat 1") and "replayed" in w for w in warnings(events))
    assert node.links[1] is link and not transport.disconnecting


def test_the_nodes_own_proof_sent_back_is_refused():
    d, sessions, clock, node = node_and_game()
    link, transport, nonce = connect(node)
    link.stringReceived(pack_hello(TABLE, 1, node.raw_keys[1], IMPOSTOR_NONCE))
    reflected = sent_frames(transport)[1]  # seat 0's proof to "seat 1"
    link.stringReceived(reflected)
    assert transport.disconnecting and 1 not in node.links


def test_a_game_frame_before_the_proof_is_refused():
    d, sessions, clock, node = node_and_game()
    genuine = next(f for src, dst, f in d.log if src == 1 and dst == 0)
    before = snapshot(sessions[0])
    link, transport, nonce = connect(node)
    link.stringReceived(pack_hello(TABLE, 1, node.raw_keys[1], IMPOSTOR_NONCE))
    with capturedLogs() as events:
        link.stringReceived(genuine)  # signed by seat 1, but this link proved nothing
        link.stringReceived(pack_proof(d.signing_keys[1], TABLE, 1, 0, nonce, IMPOSTOR_NONCE))
    assert transport.disconnecting and not link.up and 1 not in node.links
    assert snapshot(sessions[0]) == before
    assert any(w.startswith("dropping seat 1") and "before proving" in w
               for w in warnings(events))


def test_the_old_hello_is_refused_with_a_reason():
    d, sessions, clock, node = node_and_game()
    link, transport, nonce = connect(node)
    with capturedLogs() as events:
        link.stringReceived(msgpack.packb(["tractor-wire/1", TABLE, 1, node.raw_keys[1]],
                                          use_bin_type=True))
    assert transport.disconnecting and link.seat is None
    assert any("unsupported protocol 'tractor-wire/1'" in w and WIRE_VERSION in w
               for w in warnings(events))


def test_a_seat_that_proves_its_key_again_replaces_its_old_link():
    d, sessions, clock, node = node_and_game()
    old, old_transport = link_for(node, 1, d.signing_keys[1])
    ours = next(f for src, dst, f in d.log if src == 0)
    node.send([ours])
    new, new_transport = link_for(node, 1, d.signing_keys[1])  # a reconnect
    assert node.links[1] is new and old_transport.disconnecting
    assert ours in sent_frames(new_transport)  # the outbox goes to the proven link
    old.connectionLost(None)
    assert node.links[1] is new and 1 not in node.down_since


def test_the_handshake_has_one_deadline_and_a_link_that_proved_itself_keeps_going():
    d, sessions, clock, node = node_and_game()
    link, transport, nonce = connect(node)
    clock.advance(HELLO_TIMEOUT - 1)
    link.stringReceived(pack_hello(TABLE, 1, node.raw_keys[1], IMPOSTOR_NONCE))
    clock.advance(1)  # the hello did not buy more time
    assert transport.disconnecting
    link.connectionLost(None)
    link, transport, nonce = connect(node)
    link.stringReceived(pack_hello(TABLE, 1, node.raw_keys[1], IMPOSTOR_NONCE))
    link.stringReceived(pack_proof(d.signing_keys[1], TABLE, 1, 0, nonce, IMPOSTOR_NONCE))
    for _ in range(4):  # the other side's heartbeats keep it up past the handshake's deadline
        clock.advance(HELLO_TIMEOUT / 2)
        link.stringReceived(b"")
    assert link.up and not transport.disconnecting


def test_heartbeats_keep_a_quiet_link_up_and_a_silent_one_is_dropped():
    # A connection whose other end vanished (its host's connections reset while its link
    # was down) looked up for five minutes, so the seat that must dial again never did
    # (dropped, its `ClientService` dials again: LAN lab scenario (e)).
    d, sessions, clock, node = node_and_game()
    link, transport = link_for(node, 1, d.signing_keys[1])
    node.begin([])
    transport.clear()
    for _ in range(int(HEARTBEAT + 1) * 4):
        clock.advance(0.25)
    frames = sent_frames(transport)
    assert b"" in frames  # an empty frame: we are alive
    assert all(is_have(f) for f in frames if f)  # besides it, only what this peer holds
    for _ in range(3):  # heard from: stays up however long the table is quiet
        clock.advance(LINK_SILENCE / 2)
        link.stringReceived(b"")
    assert link.up and not transport.disconnecting
    clock.advance(LINK_SILENCE)  # silence: the other end is gone
    assert transport.disconnecting


def test_a_stopped_node_closes_handshakes_too():
    d, sessions, clock, node = node_and_game()
    up, up_transport = link_for(node, 1, d.signing_keys[1])
    half, half_transport, _nonce = connect(node)
    node.stop()
    assert up_transport.disconnecting and half_transport.disconnecting


def test_a_link_speaks_only_for_the_seat_the_dialing_rule_allows():
    d, sessions, clock, node = node_and_game()
    # Seat 0 dials seat 2: an answer as seat 1 on that connection is refused.
    link = PeerLink(node, 2)
    transport = StringTransport()
    link.makeConnection(transport)
    with capturedLogs() as events:
        link.stringReceived(pack_hello(TABLE, 1, node.raw_keys[1], b"n" * 32))
    assert transport.disconnecting and link.seat is None
    assert any("may not speak on this connection" in w for w in warnings(events))
    # Nobody dials seat 0 as a higher seat: an incoming hello from seat 3 is refused.
    link = PeerLink(node)
    transport = StringTransport()
    link.makeConnection(transport)
    link.stringReceived(pack_hello(TABLE, 3, node.raw_keys[3], b"n" * 32))
    assert transport.disconnecting and link.seat is None

