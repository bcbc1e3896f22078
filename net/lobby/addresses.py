"""Which addresses the lobby takes from a peer: endpoint strings read as lobby messages,
and the scope check a guest makes of the game addresses in a start.

The endpoint strings themselves are the game mesh's (`tractor.net.mesh.endpoints`); here a
bad one is a `BadLobbyMessage` naming the peer, as every other bad field of a lobby message.
"""

from __future__ import annotations

import ipaddress

from tractor.net.lobby.errors import BadLobbyMessage
from tractor.net.mesh import endpoints
from tractor.net.mesh.endpoints import EndpointError


def parse_endpoint(text: object, who: str = "?") -> tuple[str, int]:
    """The (ip, port) of an endpoint string `endpoints.endpoint_string` writes; anything
    else (host names, other endpoint types, options) raises `BadLobbyMessage`, so a peer
    cannot make us dial a Unix socket or a TLS endpoint with files."""
    try:
        return endpoints.parse_endpoint(text, who)
    except EndpointError as exc:
        raise BadLobbyMessage(exc.reason, who) from exc


def is_loopback(ip: str) -> bool:
    """Whether ``ip`` is this machine's loopback (an IPv4-mapped one too); False for
    anything that is not an IP."""
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return addr.is_loopback


def out_of_scope(ip: str, lobby_ip: str | None) -> str:
    """Why a seat's address in a start message is not one to dial ("" if it is), for a
    guest that reached the lobby at ``lobby_ip``. The host names the address each seat
    connected from; a lying host could name any, and every guest would redial it for the
    game. So: never an address nobody can be at (unspecified, multicast, broadcast);
    from a lobby on the LAN, no address on the internet; from a lobby elsewhere than this
    machine, never this machine's loopback (the honest host names a LAN address instead).

        >>> out_of_scope("198.18.0.7", "198.18.0.2"), out_of_scope("127.0.0.1", "127.0.0.1")
        ('', '')
        >>> out_of_scope("8.8.8.8", "192.168.1.4")
        'an internet address, for a table on the LAN'
    """
    addr = ipaddress.ip_address(ip)
    if not usable(ip) or str(addr) == "255.255.255.255":
        return "an address no seat can be at"
    if lobby_ip is None:
        return ""
    try:
        lobby = ipaddress.ip_address(lobby_ip)
    except ValueError:
        return ""
    if isinstance(lobby, ipaddress.IPv6Address) and lobby.ipv4_mapped is not None:
        lobby = lobby.ipv4_mapped
    if addr.is_loopback and not lobby.is_loopback:
        return "this machine's loopback, for a table on another machine"
    if addr.is_global and not lobby.is_global:
        return "an internet address, for a table on the LAN"
    return ""


def usable(ip: str) -> bool:
    """Whether a seat can be at ``ip``: an IP, neither unspecified nor multicast."""
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return False
    return not addr.is_unspecified and not addr.is_multicast
