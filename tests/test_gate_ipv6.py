"""A host on IPv6 has a whole /64 to connect from. Counted per address, 256 connections a
second from fresh addresses of one /64 kept all 512 of a lobby's places younger than
their 2 s grace, and every newcomer (the person too) was refused (attack run, issue 28).
The gate counts an IPv6 /64 as one source."""

from __future__ import annotations

import pytest

from tractor.net.lobby.framing import SILENT_GRACE
from tractor.net.lobby.host_protocol import MAX_LINKS, MAX_PER_SOURCE, MAX_SILENT_PER_SOURCE
from tractor.net.mesh.gate import Gate, Refused, source_of


def lobby_gate() -> Gate:
    return Gate(MAX_SILENT_PER_SOURCE, MAX_LINKS, "connections", "have not begun a handshake",
                per_source_total=MAX_PER_SOURCE, min_age=SILENT_GRACE)


def test_fresh_addresses_of_one_ipv6_64_cannot_take_every_place():
    gate = lobby_gate()
    held = 0
    for k in range(600):  # 300 a second for two seconds, each from a new address
        try:
            gate.admit(("flood", k), f"2001:db8::{k + 1:x}", k / 300.0)
            held += 1
        except Refused:
            pass
    assert held <= MAX_SILENT_PER_SOURCE, held  # (before: 512, the whole lobby)
    assert gate.admit("person", "2001:db8:0:1::5", 2.0) == []  # the next /64 gets in


def test_ipv4_and_ipv4_mapped_clients_keep_their_own_address():
    assert source_of("198.18.0.7") == source_of("::ffff:198.18.0.7") == "198.18.0.7"
    gate = lobby_gate()
    for k in range(50):  # a LAN's people each count alone, as before
        gate.admit(("lan", k), f"198.18.0.{k + 1}", 0.0)
    with pytest.raises(Refused, match="2001:db8::/64"):
        for k in range(MAX_SILENT_PER_SOURCE + 1):
            gate.admit(("v6", k), f"2001:db8::{k + 1:x}", 0.0)
