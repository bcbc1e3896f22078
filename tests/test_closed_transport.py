"""A game link over a Dilation subchannel (an internet table's pair link) that closed: its
writes and closes are refused by the library (`net.mesh.closed_transport`), and the link
takes that as the end of the connection, as over TCP; anything else a write raises (a bug)
goes up. Real magic-wormhole subchannels, with a manager that only records what they send."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("wormhole")

from test_wire_hostile import seated_game  # noqa: E402
from twisted.application.internet import ClientService  # noqa: E402
from twisted.internet.defer import Deferred, succeed  # noqa: E402
from twisted.internet.interfaces import IProtocol, IStreamClientEndpoint  # noqa: E402
from twisted.internet.task import Clock  # noqa: E402
from twisted.internet.testing import StringTransport  # noqa: E402
from twisted.logger import capturedLogs  # noqa: E402
from wormhole._dilation.subchannel import (  # noqa: E402
    SubChannel,
    SubchannelAddress,
    _WormholeAddress,
)
from wormhole._interfaces import IDilationManager  # noqa: E402
from zope.interface import implementer  # noqa: E402

from tractor.net.internet.mesh import PairLink  # noqa: E402
from tractor.net.mesh.link import PeerLink  # noqa: E402
from tractor.net.mesh.loopback import raw_public  # noqa: E402
from tractor.net.mesh.wire import PeerNode  # noqa: E402


@implementer(IDilationManager)
class RecordingManager:
    """The Dilation manager as a subchannel sees it: what it sends is kept."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, int, bytes]] = []

    def send_data(self, scid: int, data: bytes) -> None:
        self.sent.append(("data", scid, data))

    def send_close(self, scid: int) -> None:
        self.sent.append(("close", scid, b""))

    def subchannel_closed(self, scid: int, sc: Any) -> None:
        pass


def connect(protocol: Any) -> SubChannel:
    """``protocol`` on a new subchannel, as the library's connector endpoint connects it."""
    channel = SubChannel(1, RecordingManager(), _WormholeAddress(),
                         SubchannelAddress("tractor-mesh"))
    channel._set_protocol(protocol)
    protocol.makeConnection(channel)
    return channel


def node() -> PeerNode:
    d, sessions = seated_game()
    clock = Clock()
    peer = PeerNode(clock, sessions[0], [raw_public(k) for k in d.signing_keys])
    peer.clock = clock
    return peer


def test_a_link_whose_subchannel_the_other_end_closed_takes_a_refused_write_as_its_end():
    link = PeerLink(node(), expected=1)
    channel = connect(link)
    channel.remote_close()  # the other end closed: the library refuses writes from now on
    with capturedLogs() as events:
        link.sendString(b"a heartbeat")
    assert link.closing
    assert any("closed under a write" in e.get("log_format", "") for e in events), events


def test_a_link_whose_subchannel_was_closed_under_it_takes_a_refused_write_and_close():
    link = PeerLink(node(), expected=1)
    channel = connect(link)
    channel.loseConnection()  # closed by another hand (a ClientService stopping)
    link.sendString(b"a frame")  # refused (AlreadyClosedError), then closed: refused too
    assert link.closing


def test_a_bug_under_a_links_write_is_not_taken_for_a_closed_connection():
    link = PeerLink(node(), expected=1)
    link.makeConnection(StringTransport())
    with pytest.raises(TypeError):
        link.sendString("text, not bytes")  # type: ignore[arg-type]
    assert not link.closing


@implementer(IStreamClientEndpoint)
class SubchannelEndpoint:
    """Connects each protocol to a new subchannel (Dilation's connector, in memory)."""

    def __init__(self) -> None:
        self.channels: list[SubChannel] = []

    def connect(self, factory: Any) -> Deferred[IProtocol]:
        protocol = factory.buildProtocol(SubchannelAddress("tractor-mesh"))
        self.channels.append(connect(protocol))
        return succeed(protocol)


class ClosingWormhole:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> Deferred[None]:
        self.closed = True
        return succeed(None)


def test_a_pair_whose_link_closed_first_still_stops_its_service_and_closes_its_wormhole():
    peer = node()
    pair = PairLink(peer, 1, "ws://127.0.0.1:9/v1", "tcp:127.0.0.1:9")
    endpoint = SubchannelEndpoint()
    service = ClientService(endpoint, peer.factory(1), clock=peer.clock)
    service.startService()
    (channel,) = endpoint.channels
    channel.loseConnection()  # the game link closed its subchannel first
    wormhole = ClosingWormhole()
    pair.service, pair.wormhole = service, wormhole
    with capturedLogs() as events:
        pair.stop()  # the service closes the subchannel again: refused, and logged
    assert wormhole.closed and not service.running
    assert any("closing its link" in e.get("log_format", "") for e in events), events
