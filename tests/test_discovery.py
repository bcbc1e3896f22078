"""LAN discovery: announcements parsed with bounds, malformed datagrams dropped and counted,
entries expiring on the clock, the announcer's timing; then one real multicast round trip
on this host (in a subprocess running the reactor), skipped if the OS refuses multicast."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from dataclasses import asdict
from typing import Any

import msgpack
import pytest
from twisted.internet.defer import fail, succeed
from twisted.internet.error import MulticastJoinError
from twisted.internet.task import Clock
from twisted.internet.testing import MemoryReactorClock
from twisted.logger import capturedLogs

from tractor.net.lobby.discovery import (
    EXPIRY,
    MAX_DATAGRAM,
    MAX_ENTRIES,
    MAX_PER_SOURCE,
    Announcer,
    BadAnnouncement,
    Browser,
    DiscoveryError,
    browse,
    pack_announcement,
    parse_announcement,
    start_browser,
)

SOURCE = ("192.0.2.9", 42099)


def table(name: str = "Friday", id: str = "a1b2c3d4", taken: int = 1, **kw: Any) -> bytes:
    args = dict(kind="table", name=name, address="tcp:0.0.0.0:40123", seats=4, taken=taken,
                rules="4 players, 2 decks, reveal", passphrase=True, id=id) | kw
    return pack_announcement(**args)


def raw(**changes: Any) -> bytes:
    good = msgpack.unpackb(table(), raw=False)
    good.update(changes)
    return msgpack.packb({k: v for k, v in good.items() if v is not Ellipsis},
                         use_bin_type=True)


def browser(clock: Clock | None = None, **kw: Any) -> Browser:
    b = Browser(clock or Clock(), **kw)
    return b


def test_an_announcement_round_trips_and_takes_the_senders_ip():
    ann = parse_announcement(table(), "192.0.2.9", 5.0)
    assert (ann.kind, ann.name, ann.seats, ann.taken, ann.passphrase) == ("table", "Friday", 4,
                                                                          1, True)
    # The sender listens on every interface: the listener dials the IP it heard from.
    assert ann.address == "tcp:192.0.2.9:40123" and ann.source == "192.0.2.9"
    assert ann.seen == 5.0
    # A sender bound to one address announces that one; it is kept.
    data = pack_announcement("ai-server", "AI box", "tcp:192.0.2.3:7000")
    ai = parse_announcement(data, "192.0.2.3", 0.0)
    assert ai.kind == "ai-server" and ai.seats == 0 and ai.address == "tcp:192.0.2.3:7000"
    # But only its own: one host may not send the LAN to dial a third.
    with pytest.raises(BadAnnouncement, match="another host's address"):
        parse_announcement(data, "192.0.2.44", 0.0)


def test_malformed_datagrams_are_dropped_counted_and_never_raise():
    rng = random.Random(3)
    b = browser()
    cases = [b"", b"\xc1", rng.randbytes(64), b"\x00" * (MAX_DATAGRAM + 1),
             msgpack.packb([1, 2, 3]), msgpack.packb("table"), raw(v=2), raw(kind="printer"),
             raw(name=""), raw(name="x" * 49), raw(name="bell\x07"), raw(taken=5),
             raw(seats=-1), raw(seats=1000, taken=0), raw(address="tcp:evil.example:80"),
             raw(address="unix:/tmp/x"), raw(passphrase=1), raw(seats=True), raw(id=""),
             raw(extra=1), raw(rules=...), raw(rules="r" * 81), raw(id=b"bytes"),
             msgpack.packb({"v": 1, **{str(i): i for i in range(40)}}),
             b"\x91" * 900]
    for data in cases:
        b.datagramReceived(data, SOURCE)
    assert b.malformed == len(cases) and b.list() == []
    b.datagramReceived(table(), SOURCE)
    assert len(b.list()) == 1
    b.datagramReceived(b"junk", "not a tuple")  # a strange address does not raise either
    assert b.malformed == len(cases) + 1
    with pytest.raises(BadAnnouncement):
        parse_announcement(raw(kind="printer"), "192.0.2.9", 0.0)


def test_entries_expire_when_not_heard_for_three_seconds():
    clock = Clock()
    b = browser(clock)
    b.datagramReceived(table(id="one"), SOURCE)
    b.datagramReceived(table(id="two", name="Other"), ("192.0.2.10", 1))
    clock.advance(2.0)
    b.datagramReceived(table(id="two", name="Other", taken=2), ("192.0.2.10", 1))
    assert [a.id for a in b.list()] == ["one", "two"]
    clock.advance(EXPIRY - 1.9)  # "one" last heard 3.1 s ago
    assert [(a.id, a.taken) for a in b.list()] == [("two", 2)]
    clock.advance(3.0)
    assert b.list() == []


def test_the_browser_filters_by_kind_and_reports_changes():
    changes: list[list[Any]] = []
    b = browser(on_change=changes.append)
    b.datagramReceived(table(), SOURCE)
    b.datagramReceived(table(), SOURCE)  # the same again: no change to report
    b.datagramReceived(pack_announcement("ai-server", "AI", "tcp:192.0.2.3:7000", id="ai1"),
                       ("192.0.2.3", 1))
    assert len(changes) == 2
    assert [a.kind for a in b.list("ai-server")] == ["ai-server"]
    assert [a.kind for a in b.list("table")] == ["table"]


def test_a_flood_of_made_up_ids_is_capped_per_source_and_in_all():
    b = browser()
    for i in range(50):  # one host announcing 50 tables keeps 8: the real ones stay seen
        b.datagramReceived(table(id=f"id{i}"), SOURCE)
    assert len(b.list()) == MAX_PER_SOURCE and b.overflow == 50 - MAX_PER_SOURCE
    b.datagramReceived(table(id="real"), ("192.0.2.77", 42099))
    assert any(a.source == "192.0.2.77" for a in b.list())
    b = browser()
    for i in range(MAX_ENTRIES + 50):  # many sources (spoofed): still bounded in all
        b.datagramReceived(table(id=f"id{i}"), (f"10.0.{i // 250}.{i % 250 + 1}", 42099))
    assert len(b.list()) == MAX_ENTRIES and b.overflow == 50


class FakeMulticast:
    """Just enough of a multicast port for the protocols."""

    def __init__(self, join_ok: bool = True, write_error: OSError | None = None) -> None:
        self.join_ok = join_ok
        self.write_error = write_error
        self.ttl: int | None = None
        self.loopback: bool | None = None
        self.groups: list[str] = []
        self.written: list[tuple[bytes, tuple[str, int]]] = []

    def setTTL(self, ttl: int) -> None:
        self.ttl = ttl

    def setLoopbackMode(self, mode: bool) -> None:
        self.loopback = mode

    def joinGroup(self, group: str) -> Any:
        self.groups.append(group)
        return succeed(None) if self.join_ok else fail(MulticastJoinError("no route"))

    def write(self, data: bytes, addr: tuple[str, int]) -> None:
        if self.write_error is not None:
            raise self.write_error
        self.written.append((data, addr))


def test_the_announcer_sends_the_current_payload_once_a_second_with_ttl_1():
    clock = Clock()
    taken = [1]
    announcer = Announcer(clock, lambda: table(taken=taken[0]), port=42100)
    transport = FakeMulticast()
    announcer.makeConnection(transport)
    assert transport.ttl == 1 and transport.loopback
    assert len(transport.written) == 1 and transport.written[0][1] == ("239.255.42.99", 42100)
    taken[0] = 3
    clock.advance(1.0)
    clock.advance(1.0)
    assert len(transport.written) == 3
    assert parse_announcement(transport.written[-1][0], "192.0.2.9", 0).taken == 3
    announcer.doStop()
    clock.advance(5.0)
    assert len(transport.written) == 3


def test_an_announcer_that_cannot_send_logs_once_and_goes_on():
    clock = Clock()
    announcer = Announcer(clock, table)
    with capturedLogs() as events:
        announcer.makeConnection(FakeMulticast(write_error=OSError(101, "unreachable")))
        for _ in range(3):
            clock.advance(1.0)
    assert announcer.errors == 4 and announcer.sent == 0
    assert len([e for e in events if "cannot send" in e["log_format"]]) == 1


def test_a_refused_group_join_is_a_discovery_error():
    b = browser()
    b.makeConnection(FakeMulticast(join_ok=False))
    errors: list[Any] = []
    b.joined.addErrback(lambda f: errors.append(f.value))
    assert isinstance(errors[0], DiscoveryError) and "no route" in str(errors[0])


def test_a_reactor_without_multicast_is_a_discovery_error():
    with pytest.raises(DiscoveryError):
        start_browser(MemoryReactorClock())
    from twisted.internet.defer import ensureDeferred
    failures: list[Any] = []
    ensureDeferred(browse(MemoryReactorClock(), 0.1)).addErrback(
        lambda f: failures.append(f.value))
    assert isinstance(failures[0], DiscoveryError)


# --- real multicast on this host -------------------------------------------------------------


def child(port: int, ident: str) -> None:
    """Announce and browse on the real reactor; print one JSON line."""
    from twisted.internet import task
    from twisted.internet.defer import ensureDeferred

    from tractor.net.lobby.discovery import start_announcer

    async def main(reactor: Any) -> None:
        out: dict[str, Any] = {}
        try:
            sender = start_announcer(reactor, lambda: table(name="mc test", id=ident), port=port)
            try:
                found = await browse(reactor, 2.5, port=port)
                out["found"] = [asdict(a) for a in found if a.id == ident]
            finally:
                out["send_errors"] = sender.protocol.errors
                await sender.stopListening()
        except DiscoveryError as exc:
            out["skip"] = str(exc)
        print(json.dumps(out))

    task.react(lambda r: ensureDeferred(main(r)))


@pytest.mark.e2e
def test_real_multicast_on_this_host():
    port = 42100 + os.getpid() % 800
    ident = os.urandom(6).hex()
    proc = subprocess.run([sys.executable, __file__, str(port), ident], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if "skip" in out:
        pytest.skip(f"the OS refuses multicast here: {out['skip']}")
    if not out["found"] and out["send_errors"]:
        pytest.skip("the OS refuses to send multicast here (no route to 239.255.42.99)")
    assert out["found"], "announced on loopback mode but heard nothing"
    ann = out["found"][0]
    assert ann["name"] == "mc test" and ann["address"] == f"tcp:{ann['source']}:40123"


if __name__ == "__main__":
    child(int(sys.argv[1]), sys.argv[2])
