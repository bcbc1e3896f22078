"""The table passphrase: SPAKE2 with key confirmation, MACed lobby frames, guess limiting,
one-time AI seat tokens. The machines are driven frame by frame without sockets, then the
same exchange runs through the Twisted protocols over in-memory transports."""

from __future__ import annotations

import hashlib
import os
import random

import msgpack
import pytest
from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.logger import LogLevel, capturedLogs
from twisted.test.iosim import FakeTransport, connect

from tractor import Rules
from tractor.net.lobby.errors import (
    BadLobbyMessage,
    BadToken,
    LobbyError,
    PassphraseRequired,
    TooManyAttempts,
    UnexpectedPassphrase,
    WrongPassphrase,
)
from tractor.net.lobby.guess_line import AttemptLimiter
from tractor.net.lobby.guest_protocol import LobbyGuest
from tractor.net.lobby.host_protocol import LobbyHost
from tractor.net.lobby.pake import Channel, GuestHandshake, HostHandshake, Step
from tractor.net.lobby.seating import Participant
from tractor.net.lobby.tokens import TOKEN_TTL, TokenBook, token_id

PASS = "plum tree at dawn"
NAME = "Friday"


def run(guest: GuestHandshake, host: HostHandshake, now: float = 0.0,
        wire: list[bytes] | None = None) -> tuple[Step, Step | None]:
    """Drive one handshake; returns the guest's last step and the host's (None if the host
    refused the hello). Every frame is appended to ``wire``."""
    wire = wire if wire is not None else []
    hello = guest.hello()
    wire.append(hello)
    welcome = host.receive(hello, now)
    assert welcome.send is not None
    wire.append(welcome.send)
    g = guest.receive(welcome.send)
    if welcome.error is not None:
        return g, None
    assert g.send is not None
    wire.append(g.send)
    return g, host.receive(g.send, now)


def host_for(passphrase: str | None = PASS, tokens: TokenBook | None = None,
             limiter: AttemptLimiter | None = None, ip: str = "192.0.2.7") -> HostHandshake:
    return HostHandshake(NAME, passphrase, tokens or TokenBook(), limiter or AttemptLimiter(),
                         ip, f"{ip}:40000")


def test_the_right_passphrase_gives_both_sides_one_channel():
    g, h = run(GuestHandshake(PASS), host_for())
    assert g.error is None and h is not None and h.error is None
    assert g.channel is not None and h.channel is not None
    frame = g.channel.seal({"t": "ready", "ready": True})
    assert h.channel.open(frame) == {"t": "ready", "ready": True}
    assert g.channel.open(h.channel.seal({"t": "x"})) == {"t": "x"}


def test_a_wrong_passphrase_fails_on_both_sides_with_a_clear_error():
    g, h = run(GuestHandshake("plum tree at dusk"), host_for())
    assert isinstance(g.error, WrongPassphrase) and g.channel is None
    assert h is not None and isinstance(h.error, WrongPassphrase) and h.channel is None
    assert "wrong table passphrase" in str(g.error) and "wrong table passphrase" in str(h.error)
    assert "192.0.2.7:40000" in str(h.error)  # the host names the peer
    assert h.send is not None and b"wrong-passphrase" in h.send  # and tells it why


def test_the_passphrase_never_travels():
    for guess in (PASS, "wrong guess"):
        wire: list[bytes] = []
        g, h = run(GuestHandshake(guess), host_for(), wire=wire)
        if g.channel is not None:
            assert h is not None and h.channel is not None
            wire.append(g.channel.seal({"t": "join", "name": "Ann"}))
        blob = b"".join(wire)
        for secret in (PASS, guess):
            for form in (secret.encode(), secret.encode("utf-16-le"),
                         hashlib.sha256(secret.encode()).digest(), secret.encode().hex().encode()):
                assert form not in blob


def test_the_passphrase_is_compared_in_unicode_normal_form():
    composed, decomposed = "caf\u00e9 noir", "cafe\u0301 noir"
    g, h = run(GuestHandshake(decomposed), host_for(composed))
    assert g.channel is not None and h is not None and h.channel is not None


def test_no_passphrase_runs_the_same_three_frames():
    wire: list[bytes] = []
    g, h = run(GuestHandshake(None), host_for(None), wire=wire)
    assert len(wire) == 3 and g.channel is not None and h is not None and h.channel is not None
    assert h.channel.open(g.channel.seal({"t": "leave"})) == {"t": "leave"}


def test_passphrase_required_and_unexpected_passphrase_are_refused_by_name():
    g, h = run(GuestHandshake(None), host_for(PASS))
    assert h is None and isinstance(g.error, PassphraseRequired)
    assert "needs a passphrase" in str(g.error)
    g, h = run(GuestHandshake(PASS), host_for(None))
    assert h is None and isinstance(g.error, UnexpectedPassphrase)


def test_guesses_are_limited_per_address_with_the_clock():
    clock = Clock()
    limiter = AttemptLimiter(limit=5, window=60.0)
    for _ in range(5):
        _, h = run(GuestHandshake("nope"), host_for(limiter=limiter), clock.seconds())
        assert h is not None and isinstance(h.error, WrongPassphrase)
        clock.advance(1)
    # The sixth try from that address is refused before any key exchange, even with the
    # right passphrase; another address is not affected.
    hello = GuestHandshake(PASS).hello()
    step = host_for(limiter=limiter).receive(hello, clock.seconds())
    assert isinstance(step.error, TooManyAttempts)
    assert b"pake" not in (step.send or b"")
    g, h = run(GuestHandshake(PASS), host_for(limiter=limiter, ip="192.0.2.8"), clock.seconds())
    assert h is not None and h.channel is not None
    clock.advance(56.5)  # the first failure is now more than a minute old
    g, h = run(GuestHandshake(PASS), host_for(limiter=limiter), clock.seconds())
    assert h is not None and h.channel is not None


def test_a_guess_counts_even_if_the_guest_never_confirms_and_successes_are_refunded():
    limiter = AttemptLimiter(limit=5)
    for _ in range(20):  # many honest players behind one address
        _, h = run(GuestHandshake(PASS), host_for(limiter=limiter))
        assert h is not None and h.channel is not None
    for _ in range(5):  # an attacker reads the host's confirmation and walks away
        host = host_for(limiter=limiter)
        assert host.receive(GuestHandshake("guess").hello(), 0.0).error is None
        host.abort()
    step = host_for(limiter=limiter).receive(GuestHandshake(PASS).hello(), 0.0)
    assert isinstance(step.error, TooManyAttempts)


def test_a_seat_token_is_accepted_once_and_refused_the_second_time():
    clock = Clock()
    book = TokenBook()
    (token,) = book.issue([2], clock.seconds())
    g, h = run(GuestHandshake(token=token), host_for(tokens=book), clock.seconds())
    assert h is not None and h.channel is not None and g.channel is not None
    # The token proves a seat even on a table with a passphrase, and the host knows which.
    assert token_id(token) in book
    g, h = run(GuestHandshake(token=token), host_for(tokens=book), clock.seconds())
    assert h is None and isinstance(g.error, BadToken)


def test_a_wrong_secret_under_a_real_token_id_frees_the_token_again():
    book = TokenBook()
    (token,) = book.issue([1], 0.0)
    forged = GuestHandshake(token=os.urandom(32))
    forged.tid = token_id(token)  # the id travels in clear; the secret does not
    g, h = run(forged, host_for(tokens=book))
    assert h is not None and isinstance(h.error, BadToken) and isinstance(g.error, BadToken)
    g, h = run(GuestHandshake(token=token), host_for(tokens=book))
    assert h is not None and h.channel is not None


def test_a_token_expires_unused_and_is_used_once_whoever_holds_a_handshake_open():
    book = TokenBook()
    (token,) = book.issue([3], 0.0)
    # A sniffer saw the token id in clear and keeps handshakes with it open: it never
    # knows the token, and the AI that does still takes its seat (this failed when a
    # pending handshake held the token).
    sniffer = GuestHandshake(token=bytes(32))
    hello = msgpack.unpackb(sniffer.hello(), raw=False)
    hello["tid"] = token_id(token)
    stuck = host_for(tokens=book, ip="192.0.2.66")
    assert stuck.receive(msgpack.packb(hello), 0.0).error is None
    g, h = run(GuestHandshake(token=token), host_for(tokens=book))
    assert h is not None and h.channel is not None and g.channel is not None
    # Used once: a second handshake with the same token is refused, and so is the
    # sniffer's when it tries to finish.
    g, h = run(GuestHandshake(token=token), host_for(tokens=book))
    assert h is None and isinstance(g.error, BadToken)
    assert isinstance(stuck.receive(msgpack.packb({"confirm": bytes(32)}), 0.0).error,
                      BadToken)
    (late,) = book.issue([2], 0.0)
    g, h = run(GuestHandshake(token=late), host_for(tokens=book), now=TOKEN_TTL + 1)
    assert h is None and isinstance(g.error, BadToken)


def test_hostile_handshake_frames_are_refused_and_change_nothing():
    rng = random.Random(4)
    book = TokenBook()
    (token,) = book.issue([1], 0.0)
    good = msgpack.unpackb(GuestHandshake(PASS).hello(), raw=False)
    zero = b"A" + bytes(32)
    cases = [b"", b"\xc1", rng.randbytes(40), msgpack.packb([1, 2]), msgpack.packb({"v": 1}),
             msgpack.packb({**good, "auth": "root"}), msgpack.packb({**good, "pake": zero}),
             msgpack.packb({**good, "pake": b"B" + bytes(32)}),
             msgpack.packb({**good, "pake": b"A" + b"\xff" * 32}),
             msgpack.packb({**good, "pake": b"A" * 5}), msgpack.packb({**good, "extra": 1}),
             msgpack.packb({**good, "nonce": "x" * 16}), msgpack.packb({**good, "v": "old/0"}),
             msgpack.packb({**good, "auth": "token", "tid": b"\x00" * 8}),
             msgpack.packb({**good, "auth": "token", "tid": b"\x00" * 500}),
             b"\x91" * 5000]
    for frame in cases:
        limiter = AttemptLimiter()
        host = host_for(tokens=book, limiter=limiter)
        step = host.receive(frame, 0.0)
        assert isinstance(step.error, LobbyError), frame
        assert step.channel is None and host.state == "failed"
        assert step.send is not None and b"refused" in step.send
        # A dead host never answers again.
        assert host.receive(GuestHandshake(PASS).hello(), 0.0).channel is None
    g, h = run(GuestHandshake(token=token), host_for(tokens=book))  # token still usable
    assert h is not None and h.channel is not None



def test_a_hello_of_another_version_is_refused_in_words_on_both_sides():
    """An older tractor's guest (lobby protocol 1) at this host, and this guest at an older
    host: refused at the hello, saying why, not later at a field one side lacks."""
    old_hello = msgpack.unpackb(GuestHandshake(None).hello(), raw=False) | {
        "v": "tractor-lobby/1"}
    step = host_for(None).receive(msgpack.packb(old_hello), 0.0)
    assert isinstance(step.error, LobbyError) and step.send is not None
    assert "the guest's tractor speaks tractor-lobby/1, this one tractor-lobby/2" in str(
        step.error)
    guest = GuestHandshake(None)
    guest.hello()
    welcome = msgpack.unpackb(host_for(None).receive(GuestHandshake(None).hello(), 0.0).send,
                              raw=False) | {"v": "tractor-lobby/1"}
    step = guest.receive(msgpack.packb(welcome))
    assert isinstance(step.error, LobbyError)
    assert "the host's tractor speaks tractor-lobby/1" in str(step.error)

def refused_key_messages(other: bytes, same: bytes) -> list[tuple[str, bytes]]:
    """SPAKE2 messages ``finish`` refuses, one of each kind (`pake.KEY_EXCHANGE_REFUSALS`),
    with the name of what it raises: from the other side (``other``) a point not on the
    curve, the zero point, a point outside the group; and a message from the same side."""
    return [("NotOnCurve", other + bytes([2]) + bytes(31)),
            ("ValueError", other + bytes([1]) + bytes(31)),
            ("ValueError", other + bytes(32)),
            ("OffSides", same + bytes(32))]


def test_every_kind_of_key_exchange_message_spake2_refuses_is_a_refusal_on_both_sides():
    hello = msgpack.unpackb(GuestHandshake(PASS).hello(), raw=False)
    for kind, message in refused_key_messages(b"A", b"B"):  # the host is SPAKE2's side B
        step = host_for().receive(msgpack.packb({**hello, "pake": message}), 0.0)
        assert isinstance(step.error, BadLobbyMessage), kind
        assert f"bad key exchange message: {kind}" in str(step.error)
    for kind, message in refused_key_messages(b"B", b"A"):
        guest = GuestHandshake(PASS)
        welcome = host_for().receive(guest.hello(), 0.0).send
        assert welcome is not None
        step = guest.receive(msgpack.packb({**msgpack.unpackb(welcome, raw=False),
                                            "pake": message}))
        assert isinstance(step.error, BadLobbyMessage), kind
        assert f"bad key exchange message: {kind}" in str(step.error)
        assert step.channel is None and step.send is None


def test_a_reflected_confirmation_is_refused():
    host = host_for()
    welcome = host.receive(GuestHandshake(PASS).hello(), 0.0)
    confirm = msgpack.unpackb(welcome.send, raw=False)["confirm"]
    step = host.receive(msgpack.packb({"confirm": confirm}), 0.0)
    assert isinstance(step.error, WrongPassphrase)


def test_forged_replayed_and_reordered_frames_are_refused_without_consuming():
    g, h = run(GuestHandshake(PASS), host_for())
    assert g.channel is not None and h is not None and h.channel is not None
    send, recv = g.channel, h.channel
    first, second = send.seal({"t": "ready", "ready": True}), send.seal({"t": "leave"})
    body, tag = msgpack.unpackb(first)
    flipped = msgpack.packb([body.replace(b"\xc3", b"\xc2"), tag])
    other = Channel(os.urandom(32), os.urandom(32), "x").seal({"t": "leave"})
    for bad in (second, flipped, other, b"junk", msgpack.packb([b"", b""]),
                msgpack.packb([body, tag, b""]), b"\xff" * 9000):
        with pytest.raises(BadLobbyMessage):
            recv.open(bad)
    assert recv.open(first) == {"t": "ready", "ready": True}
    with pytest.raises(BadLobbyMessage, match="replayed"):
        recv.open(first)
    assert recv.open(second) == {"t": "leave"}


# --- the same over the Twisted protocols ---------------------------------------------------


class Recording(FakeTransport):
    """An in-memory transport that keeps every byte it carries."""

    sent: list[bytes]

    def write(self, data: bytes) -> None:
        self.sent.append(data)
        super().write(data)


def wire_pair(host: LobbyHost, guest: LobbyGuest, ip: str, port: int, clock: Clock,
              sent: list[bytes]):
    client, server = guest.protocol(), host.protocol()
    ct = Recording(client, False, IPv4Address("TCP", ip, port),
                   IPv4Address("TCP", "192.0.2.1", 5000))
    st = Recording(server, True, IPv4Address("TCP", "192.0.2.1", 5000),
                   IPv4Address("TCP", ip, port))
    ct.sent = st.sent = sent
    pump = connect(server, st, client, ct, greet=False, clock=clock)
    for _ in range(10):
        pump.pump()
    return pump


def participant(i: int) -> Participant:
    return Participant(f"player {i}", bytes([i + 1]) * 32, 41000 + i)


def test_over_the_wire_a_wrong_passphrase_is_a_typed_error_and_a_log_line_on_both_sides():
    clock = Clock()
    host = LobbyHost(clock, NAME, Rules(), participant(0), PASS, clock=clock)
    sent: list[bytes] = []
    with capturedLogs() as events:
        wrong = LobbyGuest(clock, participant(1), "plum tree at noon", clock=clock)
        wire_pair(host, wrong, "192.0.2.44", 51000, clock, sent)
        right = LobbyGuest(clock, participant(2), PASS, clock=clock)
        wire_pair(host, right, "192.0.2.45", 51001, clock, sent)
    failures: list[LobbyError] = []
    wrong.joined.addErrback(lambda f: failures.append(f.value))
    assert len(failures) == 1 and isinstance(failures[0], WrongPassphrase)
    assert "192.0.2.1:5000" in str(failures[0])  # the guest names the host
    assert [type(e) for e in host.errors] == [WrongPassphrase]
    assert "192.0.2.44:51000" in str(host.errors[0])
    warnings = [e for e in events if e["log_level"] == LogLevel.warn]
    texts = [e["log_format"].format(**e) for e in warnings]
    assert any("192.0.2.44:51000" in t and "wrong table passphrase" in t for t in texts)
    assert any("192.0.2.1:5000" in t and "wrong table passphrase" in t for t in texts)
    # The right passphrase took a seat; the wrong one none.
    assert right.joined.called and host.roster().seats[1] is not None
    assert host.roster().seats[2] is None
    blob = b"".join(sent)
    assert PASS.encode() not in blob and b"plum tree at noon" not in blob
