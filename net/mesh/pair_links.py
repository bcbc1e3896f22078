"""Links to seats this peer does not dial over TCP: what a layer above the mesh provides.

An internet table's seats meet through magic-wormholes, one per pair of seats
(`tractor.net.internet.mesh`). The mesh does not know about wormholes: whoever builds a
`wire.PeerNode` passes it a `PairLinkMaker`, which says which addresses it takes and opens
the pair links for them. The game's links run over those exactly as over TCP.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from twisted.internet.interfaces import IProtocolFactory, IReactorTime

from tractor.net.mesh.handshake import SeatIdentity


class ClosingLink(Protocol):
    """A game link, as pair links see it."""

    @property
    def closing(self) -> bool:
        """This peer closed it (nothing more goes out or comes in on it)."""
        ...


class PairLinkHost(SeatIdentity, Protocol):
    """What pair links may use of the node they serve (`wire.PeerNode`), besides who it is."""

    @property
    def reactor(self) -> Any:
        """The reactor the wormholes run on (whatever the node was given)."""
        ...

    @property
    def clock(self) -> IReactorTime: ...

    @property
    def links(self) -> Mapping[int, ClosingLink]:
        """Seat -> its game link, once proved."""
        ...

    def factory(self, seat: int | None = None) -> IProtocolFactory:
        """Game links for connections with ``seat`` (None: any seat that proves itself)."""
        ...

    def dial_failed(self, seat: int, address: str, reason: str) -> None:
        """An attempt to reach ``seat`` failed (said on the screen and in the log)."""
        ...

    def seat_lost(self, seat: int) -> None:
        """The link of ``seat`` is down now, whatever its connection says yet."""
        ...


class PairLinks(Protocol):
    """One node's pair links, once opened."""

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def paths(self) -> dict[int, str | None]:
        """Seat -> how its link goes now ("direct", "relay"), None if it is not up."""
        ...

    def states(self) -> dict[int, str]:
        """Seat -> what its link last said, in words (why a seat is unreachable)."""
        ...


class PairLinkMaker(Protocol):
    """What a node is given to reach the seats it does not dial over TCP."""

    def takes(self, address: str) -> bool:
        """Whether ``address`` is one of this maker's (not a TCP endpoint)."""
        ...

    def open(self, node: PairLinkHost, addresses: Mapping[int, str]) -> PairLinks:
        """The pair links of ``node`` with the seats at ``addresses`` (not started)."""
        ...
