"""Discovery cannot be crowded out (issue 28): announcements from spoofed source addresses
no longer hide the real table, and an announcement reusing a real AI server's id (its key's
fingerprint) is listed beside the real server in `fill lan`, both marked, instead of taking
its place. `datagramReceived` is called directly (`MemoryReactor` has no multicast)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from twisted.internet.task import Clock

from tractor.cli.ai_servers import AiServerChooser
from tractor.net.journal.store import Journal
from tractor.net.lobby.discovery import (
    MAX_ENTRIES,
    MAX_PER_SOURCE,
    Announcement,
    Browser,
    claimed_twice,
    pack_announcement,
)
from tractor.net.lobby.errors import WrongServerKey
from tractor.net.lobby.seating import fingerprint

REAL = ("198.18.0.5", 42099)  #: the real table's host
FAKES = [(f"10.{i // 250}.{i % 250}.7", 42099) for i in range(MAX_ENTRIES)]


def table(id: str, name: str = "Friday") -> bytes:
    return pack_announcement("table", name, "tcp:0.0.0.0:40123", seats=4, taken=1,
                             rules="4 players, 2 decks, reveal", passphrase=True, id=id)


def real_listed(b: Browser) -> bool:
    return any(a.source == REAL[0] and a.id == "real-table" for a in b.list("table"))


def test_256_spoofed_sources_announcing_once_do_not_hide_the_real_table():
    clock = Clock()
    b = Browser(clock)
    for k, source in enumerate(FAKES):  # the browser's 256 entries, before the real one
        b.datagramReceived(table(f"fake{k}", "Friday"), source)
    for _ in range(3):  # the real table, once a second, as `tractor join` browses (2 s)
        clock.advance(0.5)
        b.datagramReceived(table("real-table"), REAL)
        clock.advance(0.5)
        assert real_listed(b)  # before: never (the browser was full)
    assert len(b.entries) <= MAX_ENTRIES


def test_256_spoofed_sources_announcing_every_second_do_not_hide_the_real_table():
    clock = Clock()
    b = Browser(clock)
    rng = random.Random(28)
    listed = []
    for _ in range(6):
        order = list(enumerate(FAKES))
        rng.shuffle(order)
        for k, source in order:  # the flood again each second, in any order
            b.datagramReceived(table(f"fake{k}"), source)
        listed.append(real_listed(b))
        clock.advance(0.3)
        b.datagramReceived(table("real-table"), REAL)
        listed.append(real_listed(b))
        clock.advance(0.7)
    assert listed[1:] == [True] * (len(listed) - 1), listed  # from its first hearing on
    assert len(b.entries) <= MAX_ENTRIES


def test_a_host_spoofed_with_made_up_tables_still_shows_its_real_one():
    clock = Clock()
    b = Browser(clock)
    b.datagramReceived(table("real-table"), REAL)
    clock.advance(1.0)
    b.datagramReceived(table("real-table"), REAL)  # heard twice: established
    for k in range(50):  # its own address, spoofed with 50 made-up tables
        b.datagramReceived(table(f"fake{k}"), REAL)
    assert real_listed(b)
    assert sum(a.source == REAL[0] for a in b.list()) == MAX_PER_SOURCE


def test_a_crowd_of_sources_cannot_push_out_a_hosts_table_and_ai_server():
    clock = Clock()
    b = Browser(clock)
    ai = pack_announcement("ai-server", "lab", "tcp:0.0.0.0:4100", id="f" * 16)
    steady = [(table(f"fake{i}"), (f"10.0.{i}.9", 1)) for i in range(MAX_ENTRIES - 2)]
    newcomers = [(table(f"new{i}"), (f"10.{1 + i // 250}.{i % 250}.9", 1)) for i in range(2000)]
    for second in range(4):  # the host, and every other place taken by a steady source
        for datagram, source in [(table("real-table"), REAL), (ai, REAL), *steady]:
            b.datagramReceived(datagram, source)
        if second >= 2:  # then two thousand more sources, each every second
            for datagram, source in newcomers:
                b.datagramReceived(datagram, source)
        clock.advance(1.0)
    # The host holds two entries, every other source one: the fewest share the host's
    # keeps (the newcomers are refused, or push out one another).
    assert real_listed(b) and any(a.kind == "ai-server" for a in b.list())
    assert len(b.entries) <= MAX_ENTRIES and len(b._pushed_out) <= MAX_ENTRIES


# --- two servers claim one AI server's key -----------------------------------------------------


KEY_REAL, KEY_OTHER = b"r" * 32, b"o" * 32


class FakeLobby:
    """The lobby as `fill lan` sees it: what the browser heard, and a fill that only the
    server holding KEY_REAL (at its real address) can prove."""

    def __init__(self, heard: list[Announcement]) -> None:
        self.heard = heard
        self.asked: list[tuple[str, str | None]] = []
        self.ai_servers: dict[str, bytes] = {}

    async def browse_ai_servers(self) -> list[Any]:
        return self.heard

    async def request_fill(self, ai_server: str, local: bool, expect: str | None,
                           passphrase: str | None = None) -> int:
        self.asked.append((ai_server, expect))
        proves = KEY_REAL if ai_server == "tcp:198.18.0.3:4100" else KEY_OTHER
        if expect is not None and expect != fingerprint(proves):
            raise WrongServerKey("it answered with another key: no seat token was sent")
        self.ai_servers[ai_server] = proves
        return 1


def test_an_impostor_reusing_a_real_ai_servers_id_is_listed_beside_it_both_marked(tmp_path):
    clock = Clock()
    b = Browser(clock)
    real_id = fingerprint(KEY_REAL)
    real = pack_announcement("ai-server", "lab", "tcp:0.0.0.0:4100", id=real_id)
    impostor = pack_announcement("ai-server", "lab", "tcp:0.0.0.0:4100", id=real_id)
    for _ in range(3):  # both announce every second, the impostor just after the real one
        b.datagramReceived(real, ("198.18.0.3", 42099))
        b.datagramReceived(impostor, ("198.18.0.66", 42099))
        clock.advance(1.0)
    heard = b.list("ai-server")
    # Before: one entry per id, the last heard (the impostor's) in place of the real one.
    assert sorted(a.address for a in heard) == ["tcp:198.18.0.3:4100", "tcp:198.18.0.66:4100"]
    assert claimed_twice(heard) == {real_id}
    said: list[str] = []
    lobby = FakeLobby(heard)
    chooser = AiServerChooser(lobby, Journal(str(tmp_path / "j.sqlite")), said.append)
    asyncio.run(chooser.command([]))
    listed = [line for line in said if line.startswith("  ")]
    assert any("1. lab at tcp:198.18.0.3:4100" in line for line in listed), said
    assert any("2. lab at tcp:198.18.0.66:4100" in line for line in listed), said
    marks = [line for line in said if "two servers claim key" in line]
    assert len(marks) == 2 and all(real_id in m for m in marks), said
    assert "AI server ready at ADDRESS" in marks[0]
    # The impostor, if picked, cannot prove the key: nothing is sent to it.
    asyncio.run(chooser.command(["2"]))
    assert lobby.ai_servers == {} and any("no AI:" in line for line in said)
    asyncio.run(chooser.command(["1"]))
    assert lobby.ai_servers == {"tcp:198.18.0.3:4100": KEY_REAL}
