"""Internet tables, the pure part (`tractor.net.internet.rendezvous`): the pair codes two seats
work out alone, the table's internet address, what reads as a seat code."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tractor.net.internet.rendezvous import (
    DEFAULT_MAILBOX,
    DEFAULT_RELAY,
    RendezvousError,
    check_mailbox,
    check_relay,
    internet_address,
    is_internet_address,
    is_seat_code,
    pair_code,
    pair_secret,
    read_internet_address,
)
from tractor.net.mesh.loopback import raw_public


def keys(n: int) -> list[Ed25519PrivateKey]:
    return [Ed25519PrivateKey.from_private_bytes(bytes([s + 1]) * 32) for s in range(n)]


def test_both_seats_of_a_pair_work_out_the_same_code_and_no_other_pair_has_it():
    k = keys(4)
    table = bytes(range(32))
    codes = {}
    for a in range(4):
        for b in range(4):
            if a == b:
                continue
            secret = pair_secret(k[a].private_bytes_raw(), raw_public(k[b]))
            codes[(a, b)] = pair_code(table, a, b, secret)
    for (a, b), code in codes.items():
        assert code == codes[(b, a)]  # worked out alone, the same on both sides
        nameplate, _, password = code.partition("-")
        assert nameplate.isdigit() and len(nameplate) == 18 and len(password) == 32
    assert len(set(codes.values())) == 6  # one per pair
    # Another table, another code; a third seat's key gives another secret.
    other = pair_code(bytes(32), 0, 1, pair_secret(k[0].private_bytes_raw(), raw_public(k[1])))
    assert other != codes[(0, 1)]
    assert pair_secret(k[2].private_bytes_raw(), raw_public(k[1])) != pair_secret(
        k[0].private_bytes_raw(), raw_public(k[1]))


def test_a_key_that_gives_no_agreement_is_refused():
    with pytest.raises(RendezvousError):
        pair_secret(keys(1)[0].private_bytes_raw(), bytes(32))  # a small-order point
    # libsodium's refusals (nacl.exceptions): a point off the curve, a key of a wrong size.
    for key in (b"\xff" * 32, b"\x01" * 31):
        with pytest.raises(RendezvousError, match="no key agreement with that key"):
            pair_secret(keys(1)[0].private_bytes_raw(), key)


def test_the_internet_address_names_the_mailbox_and_the_relay():
    address = internet_address(DEFAULT_MAILBOX, DEFAULT_RELAY)
    assert is_internet_address(address) and not is_internet_address("tcp:192.0.2.5:4000")
    assert read_internet_address(address) == (DEFAULT_MAILBOX, DEFAULT_RELAY)
    for bad in ("wormhole:", "wormhole:http://x/v1 tcp:a:1", "wormhole:ws://x/v1 udp:a:1",
                "wormhole:ws://x/v1 tcp:a:99999", "wormhole:ws://x y/v1 tcp:a:1", 7, None):
        with pytest.raises(RendezvousError):
            read_internet_address(bad)
    assert check_mailbox("wss://mailbox.example.org/v1") == "wss://mailbox.example.org/v1"
    assert check_relay("tcp:198.18.0.1:4001") == "tcp:198.18.0.1:4001"
    for bad in ("ws://a.b/v1 ; rm", "ftp://a", ""):
        with pytest.raises(RendezvousError, match="websocket URL"):
            check_mailbox(bad)
    for bad in ("tcp:a", "tcp:a:0", "unix:/tmp/x", "tcp:a:1:interface=b"):
        with pytest.raises(RendezvousError, match="tcp:HOST:PORT"):
            check_relay(bad)


def test_a_seat_code_is_told_from_an_address():
    for code in ("7-guitarist-revenge", "123-a-b", " 7-Guitarist-Revenge "):
        assert is_seat_code(code)
    for text in ("tcp:192.0.2.5:40123", "192.0.2.5:40123", "7", "7-", "guitarist-revenge",
                 "7-guitarist", "x-a-b"):
        assert not is_seat_code(text)
