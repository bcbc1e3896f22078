"""A seat's link that this peer closes is aborted when its close has not finished after
`linger.LINGER` (a TCP close waits for the other end to read: one that stopped reading
would hold the connection for ever), and only then; on a StringTransport and a Clock."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_wire_hostile import TABLE, link_for
from twisted.internet.task import Clock

from tractor import Rules
from tractor.net.mesh.linger import LINGER
from tractor.net.mesh.loopback import raw_public
from tractor.net.mesh.wire import PeerNode
from tractor.net.table.player import RandomPlayer
from tractor.net.table.session import GameSession


def seated_node() -> tuple[PeerNode, Clock, list[Ed25519PrivateKey]]:
    """Seat 0's node at a table of four, before the game starts (the links need no more)."""
    keys = [Ed25519PrivateKey.from_private_bytes(bytes([9, s]) * 16) for s in range(4)]
    session = GameSession(Rules(), TABLE, 0, keys[0], [k.public_key() for k in keys],
                          bytes([7, 0]) * 16, RandomPlayer(70))
    clock = Clock()
    return PeerNode(clock, session, [raw_public(k) for k in keys]), clock, keys


def test_a_replaced_link_whose_other_end_stopped_reading_is_aborted_after_the_linger():
    node, clock, keys = seated_node()
    old, old_side = link_for(node, 1, keys[1])
    new, new_side = link_for(node, 1, keys[1])  # seat 1 came back on a new connection
    assert node.links[1] is new and old.closing
    # Closed, but the close waits for seat 1's old end, which reads nothing any more.
    assert old_side.disconnecting and not old_side.disconnected
    clock.advance(LINGER - 0.5)
    assert not old_side.disconnected
    clock.advance(1.0)
    assert old_side.disconnected  # aborted: its descriptor and unsent frames are free
    assert not new_side.disconnecting  # (the link in use is left alone)


def test_a_close_that_finishes_in_time_is_never_aborted():
    node, clock, keys = seated_node()
    link, side = link_for(node, 1, keys[1])
    _, stalled_side = link_for(node, 2, keys[2])  # seat 2 stopped reading
    node.stop()  # every link closes
    assert side.disconnecting and stalled_side.disconnecting
    link.connectionLost(None)  # seat 1 read everything: its close completes
    clock.advance(LINGER + 0.5)
    assert not side.disconnected  # (closed as usual)
    assert stalled_side.disconnected
