"""Peer addresses as Twisted client endpoint strings: ``tcp:IP:PORT`` and nothing else.

Seats name each other's game addresses this way (the lobby's start message, the game
mesh's seating), so a peer must never be able to make us dial anything but a TCP port at
an IP literal: no host names to resolve, no Unix sockets, no TLS endpoints with files.
`endpoint_string` writes the one canonical form and `parse_endpoint` accepts only it.

    >>> endpoint_string("::ffff:192.0.2.5", 40123)
    'tcp:192.0.2.5:40123'
    >>> parse_endpoint("tcp:192.0.2.5:40123")
    ('192.0.2.5', 40123)
"""

from __future__ import annotations

import ipaddress

from tractor.net.codec import CodecError

MAX_ENDPOINT = 80  #: characters of an endpoint string (an IPv6 literal with a port: 57)


class EndpointError(CodecError):
    """An address from a peer that is not ``tcp:IP:PORT`` in canonical form."""


def endpoint_string(ip: str, port: int) -> str:
    """A Twisted client endpoint string for an IP literal: ``tcp:192.0.2.5:40123``; an IPv6
    literal gets its colons escaped, and an IPv4-mapped IPv6 address becomes IPv4."""
    addr = ipaddress.ip_address(ip)
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    host = str(addr).replace(":", "\\:")
    return f"tcp:{host}:{port}"


def parse_endpoint(text: object, who: str = "") -> tuple[str, int]:
    """The (ip, port) of an endpoint string `endpoint_string` writes; anything else (host
    names, other endpoint types, options) raises `EndpointError` (a `ValueError`) naming
    ``who`` sent it."""
    if type(text) is not str or len(text) > MAX_ENDPOINT or not text.startswith("tcp:"):
        raise EndpointError("an address is tcp:IP:PORT", who)
    host, sep, port = text[4:].rpartition(":")
    if not sep or not port.isdigit() or len(port) > 5 or not 1 <= int(port) <= 65535:
        raise EndpointError("an address is tcp:IP:PORT", who)
    try:
        ip = ipaddress.ip_address(host.replace("\\:", ":"))
    except ValueError as exc:
        raise EndpointError("an address is tcp:IP:PORT with an IP literal", who) from exc
    if endpoint_string(str(ip), int(port)) != text:
        raise EndpointError("address not in canonical form", who)
    return str(ip), int(port)
