"""Opening a lobby's (or an AI server's) port, and the addresses to tell about it: the one
joiners on the LAN dial, the one announced by multicast, the one on this machine.

A port bound to every interface does not know which of its addresses a joiner can reach:
`guess_lan_ip` takes the source address of a route towards the LAN, and the announcement
names the wildcard address, which tells a browser to use the datagram's source instead
(`net/lobby/discovery.py`).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from twisted.internet.endpoints import serverFromString
from twisted.internet.interfaces import IListeningPort
from twisted.internet.protocol import Factory, Protocol

from tractor.net.lobby.discovery import GROUP, PORT
from tractor.net.lobby.framing import ip_of
from tractor.net.mesh.endpoints import endpoint_string


def guess_lan_ip() -> str:
    """The address this machine uses towards the LAN (the source address of a route to the
    multicast group; a UDP ``connect`` sends nothing). 127.0.0.1 if there is no route."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((GROUP, PORT))
            ip = s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    return ip if ip and not ipaddress.ip_address(ip).is_unspecified else "127.0.0.1"


def bound_ip(socket_owner: Any) -> str:
    """The IP a listening port (or a connection) is bound to, as this machine dials it:
    127.0.0.1 for the wildcard address."""
    ip = ip_of(socket_owner.getHost())
    try:
        return "127.0.0.1" if ipaddress.ip_address(ip).is_unspecified else ip
    except ValueError:
        return "127.0.0.1"


@dataclass(frozen=True)
class ListenAddresses:
    """Client endpoint strings of one listening port."""

    lan: str  #: what joiners on the LAN dial
    announced: str  #: announced as bound: a wildcard IP tells browsers to use the source
    local: str  #: the same port on this machine
    bound_ip: str  #: `bound_ip` of the port


async def listen(reactor: Any, description: str,
                 protocol: Callable[[], Protocol]) -> tuple[IListeningPort, ListenAddresses]:
    """Listen on a Twisted server endpoint ``description``, one ``protocol()`` per
    connection; returns the port and its addresses."""
    # Twisted leaves serverFromString unannotated.
    endpoint = serverFromString(reactor, description)  # type: ignore[no-untyped-call]
    port: IListeningPort = await endpoint.listen(Factory.forProtocol(protocol))
    host = port.getHost()
    bound = ip_of(host)
    number: int = getattr(host, "port", 0)
    try:
        wildcard = ipaddress.ip_address(bound).is_unspecified
    except ValueError:
        wildcard = True
    return port, ListenAddresses(
        lan=endpoint_string(guess_lan_ip() if wildcard else bound, number),
        announced=endpoint_string("0.0.0.0" if wildcard else bound, number),
        local=endpoint_string(bound_ip(port), number),
        bound_ip=bound_ip(port))
