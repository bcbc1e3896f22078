"""Places for incoming connections that have not proved a seat yet: a stranger on the LAN
cannot hold this port's descriptors (the journal needs some), nor fill the log.

No Twisted here: a link is a `Newcomer`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, cast

from twisted.internet.interfaces import ITransport
from twisted.logger import Logger

from tractor.net.mesh.endpoints import parse_endpoint
from tractor.net.mesh.gate import Gate, Refused, room_for_a_stranger

STRANGER_HELLO = 3.0  #: seconds for the whole handshake from an address the seating does not name
MAX_STRANGERS = 4096  #: addresses whose refusals are counted (then the count starts again)


class Newcomer(Protocol):
    """An incoming connection, as the gates see it."""

    deadline: float  #: seconds it has for the whole handshake

    def __hash__(self) -> int: ...  # (a gate's key)

    @property
    def transport(self) -> ITransport | None: ...

    def _who(self) -> str: ...

    def _drop(self, why: str) -> None: ...


class Admission:
    """The gates of one peer's port (see `admit`)."""

    def __init__(self, log: Logger) -> None:
        self.log = log
        #: Incoming connections that have not proved a seat: a few per address, a few in
        #: all (replaced by `seat_table` with the table's size).
        self.gate = Gate(2, 4, "connections", "have not proved a seat")
        #: Connections from addresses the seating does not name.
        self.stranger_gate = Gate(2, 8, "connections", "have not proved a seat", min_age=1.0)
        self.strangers: dict[str, int] = {}  #: address -> connections refused
        #: The IPs the seating names, and those seats proved themselves from (None: not
        #: dialed yet).
        self.allowed_ips: set[str] | None = None

    def seat_table(self, players: int) -> None:
        """Seated at a table of ``players``: each seat has a link of its own; seats of one
        machine share an address."""
        self.gate = Gate(players, 2 * players + 4, "connections", "have not proved a seat",
                         min_age=1.0)

    def allow(self, addresses: Iterable[str]) -> None:
        """The seating's addresses (client endpoint strings) get the larger share."""
        self.allowed_ips = set(self.allowed_ips or ())
        for address in addresses:
            try:
                self.allowed_ips.add(parse_endpoint(address)[0])
            except ValueError:
                pass  # an internet table's address: its links come through wormholes

    def admit(self, link: Newcomer, now: float) -> bool:
        """May this incoming connection try to prove a seat? Within the bounds of a gate.
        The addresses the seating names (once `allow` knows them) and those a seat proved
        itself from have a gate of their own; any other address shares a small one and has
        `STRANGER_HELLO` seconds to prove a seat: a seat of a machine with several
        addresses may dial from one the seating does not name, and the link proof, not
        the address, says who it is."""
        assert link.transport is not None  # (it is connected)
        ip = getattr(link.transport.getPeer(), "host", "?")
        known = self.allowed_ips is None or ip in self.allowed_ips
        gate = self.gate if known else self.stranger_gate
        try:
            if not room_for_a_stranger():
                raise Refused("out of descriptors (the journal keeps its reserve)")
            # The gates hold only the links given here: what one evicts is one of them.
            evicted = cast(list[Newcomer], gate.admit(link, ip, now))
        except Refused as exc:
            why = str(exc) if known else f"{exc} (not an address the seating names)"
            self._turned_away(ip, link, why)
            return False
        for old in evicted:
            old._drop("dropped to make room: too many connections without a seat")
        if not known:
            link.deadline = STRANGER_HELLO
        return True

    def proved(self, link: Newcomer) -> None:
        """``link`` proved its seat: its place is its own, and its address is known now."""
        self.gate.settle(link)
        self.stranger_gate.settle(link)
        assert link.transport is not None  # (it is connected)
        ip = getattr(link.transport.getPeer(), "host", None)
        if self.allowed_ips is not None and type(ip) is str:
            self.allowed_ips.add(ip)

    def release(self, link: Newcomer) -> None:
        """``link`` is closed: its place is free."""
        self.gate.release(link)
        self.stranger_gate.release(link)

    def _turned_away(self, ip: str, link: Newcomer, why: str) -> None:
        """Log a refused connection: the first few of an address, then every 1000th (a
        flood must not fill the disk with the same line)."""
        if len(self.strangers) >= MAX_STRANGERS and ip not in self.strangers:
            self.strangers.clear()  # bounded: a flood from ever new addresses
        n = self.strangers[ip] = self.strangers.get(ip, 0) + 1
        if n <= 3 or n % 1000 == 0:
            self.log.warn("dropping {who}: {why} ({n} from this address)", who=link._who(),
                          why=why, n=n)
