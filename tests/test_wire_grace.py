"""A seat that disappears: the others wait for it through the grace period (a reconnect
resets the wait), then the hand ends with a verdict naming the seat; a peer that is not
seated yet refuses game connections."""

from __future__ import annotations

from test_wire_hostile import link_for, seated_game
from twisted.internet.testing import MemoryReactorClock, StringTransport
from twisted.logger import capturedLogs

from tractor.net.loopback import raw_public
from tractor.net.wire import PeerLink, PeerNode, SeatGone


def test_a_seat_gone_past_the_grace_period_ends_the_hand_naming_it():
    d, sessions = seated_game()
    clock = MemoryReactorClock()
    node = PeerNode(clock, sessions[0], [raw_public(k) for k in d.signing_keys], grace=30.0)
    changes = []
    node.on_change = lambda: changes.append(clock.seconds())
    failures = []
    node.done.addErrback(failures.append)
    links = {s: link_for(node, s) for s in (1, 2, 3)}
    node.begin([])
    clock.advance(20)
    links[3][0].connectionLost(None)  # seat 3 drops at t=20
    assert changes  # the screen is told at once
    for _ in range(29):
        clock.advance(1)
    assert node.halted is None  # t=49: seat 3 gone for 29 s
    links[3] = link_for(node, 3)  # it comes back: the wait starts again when it drops
    clock.advance(100)
    assert node.halted is None
    links[2][0].connectionLost(None)
    for _ in range(31):
        clock.advance(1)
    assert isinstance(node.halted, SeatGone) and node.halted.seat == 2
    assert "seat 2 left the table" in str(node.halted)
    assert len(failures) == 1 and failures[0].check(SeatGone)


def test_a_seat_that_never_connects_is_gone_after_the_grace_period():
    d, sessions = seated_game()
    clock = MemoryReactorClock()
    node = PeerNode(clock, sessions[0], [raw_public(k) for k in d.signing_keys], grace=10.0)
    node.done.addErrback(lambda f: None)
    link_for(node, 1)
    link_for(node, 3)
    node.begin([])
    for _ in range(11):
        clock.advance(1)
    assert isinstance(node.halted, SeatGone) and node.halted.seat == 2


def test_an_unseated_node_refuses_game_connections():
    node = PeerNode(MemoryReactorClock())
    link = PeerLink(node)
    transport = StringTransport()
    with capturedLogs() as events:
        link.makeConnection(transport)
    assert transport.disconnecting and transport.value() == b""
    assert any("not seated yet" in e["log_format"] for e in events)
