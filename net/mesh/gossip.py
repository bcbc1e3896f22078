"""What this peer tells the seats besides its own frames, every `wire.HAVE_EVERY` seconds: a
have report on each link whose last one is out of date, and the frames a seat still lacks
past `relay.RELAY_AFTER` (`net.mesh.relay` says which).

No Twisted here: a link is a `GossipLink`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from tractor.net.mesh.relay import Relay, pack_have
from tractor.net.mesh.traffic import Traffic


class GossipLink(Protocol):
    """A link to one seat: whether its proof was checked, and a way to send on it."""

    @property
    def up(self) -> bool: ...

    def sendString(self, string: bytes) -> None: ...


class Gossip:
    """The have reports and relays of one peer (counted in its `Traffic`)."""

    def __init__(self, relay: Relay, traffic: Traffic) -> None:
        self.relay = relay
        self.traffic = traffic
        self.have_sent: dict[int, bytes] = {}  #: seat -> the last have report it got

    def link_up(self, seat: int) -> None:
        """``seat`` has a new link: it hears what this peer holds at the next report."""
        self.have_sent.pop(seat, None)

    def tell(self, links: Mapping[int, GossipLink], hand: int, now: float) -> None:
        """One round while ``hand`` is played (reports cover it and the hands beside it);
        ``links``: seat -> its link."""
        report = pack_have(self.relay.report([h for h in (hand - 1, hand, hand + 1)
                                              if h >= 0]))
        for seat, link in list(links.items()):
            if link.up and self.have_sent.get(seat) != report:
                self.have_sent[seat] = report
                link.sendString(report)
        for seat, frame in self.relay.due(now, [s for s, lk in links.items() if lk.up]):
            self.traffic.relayed += 1
            self.traffic.relayed_bytes += len(frame)
            links[seat].sendString(frame)
