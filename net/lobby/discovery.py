"""Finding tables and AI servers on the LAN: UDP multicast announcements, about one a
second, TTL 1 (never routed off the LAN), loopback on so peers on one machine see each other.

An announcement is one bounded msgpack map::

    {"v": 1, "kind": "table"|"ai-server"|"game", "name": str, "address": "tcp:IP:PORT",
     "seats": int, "taken": int, "rules": str, "passphrase": bool, "id": str}

``address`` is the lobby (or AI fill) endpoint. A ``"game"`` is a LAN table whose game
is under way (its lobby closed at the start): ``address`` is the host seat's game port,
where `tractor watch` connects; ``seats`` the watchers it takes (0: the host refused
them), ``taken`` those it serves; ``passphrase`` whether a watcher must prove it.

A sender listening on every interface does not know which of its addresses a listener
can reach: it announces the wildcard address
(``tcp:0.0.0.0:PORT``) and a `Browser` then takes the IP from the datagram's source, an
address the listener just heard it from. A sender bound to one address announces that one.
Every datagram is hostile: malformed ones are dropped, counted and logged at debug level
(a noisy LAN must not flood the log), never raised. Anyone can announce anything from any
source address (UDP is spoofed at will), so a `Browser` keeps one entry per (id, source,
address): a second server claiming a real one's id is listed beside it, never instead of
it. Its memory is bounded (`MAX_PER_SOURCE`, `MAX_ENTRIES`); when full, a newcomer takes
the place of an entry not heard again since it was first heard (of the source holding the
most, the least recently heard), or else of a crowded source's, so a flood of
announcements sent once cannot push out a table announced every second, nor a crowded
source a host's table and AI server. What no bounded list can keep out: more sources than
`MAX_ENTRIES`, each announcing every second before the real table is first heard.
"""

from __future__ import annotations

import ipaddress
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from twisted.internet.defer import Deferred, maybeDeferred
from twisted.internet.error import CannotListenError
from twisted.internet.interfaces import IMulticastTransport, IReactorTime
from twisted.internet.protocol import DatagramProtocol
from twisted.internet.task import LoopingCall, deferLater
from twisted.logger import Logger

from tractor.net.codec import (
    Bool,
    CodecError,
    Int,
    Limits,
    OneOf,
    Record,
    ShapeError,
    Text,
    decode,
    encode,
)
from tractor.net.lobby.addresses import parse_endpoint
from tractor.net.lobby.errors import LobbyError
from tractor.net.mesh.endpoints import endpoint_string

GROUP = "239.255.42.99"  #: organisation-local scope (RFC 2365)
PORT = 42099
INTERVAL = 1.0  #: seconds between announcements
EXPIRY = 3.0  #: an entry not heard for this long is gone
MAX_DATAGRAM = 1024
MAX_ENTRIES = 256  #: a flood of made-up ids cannot grow the browser without bound
#: Entries one source address may hold: a host runs a table or two and an AI server, so
#: one host announcing hundreds of made-up tables cannot hide the others.
MAX_PER_SOURCE = 8
#: An entry heard again this long after it was first heard is established: a real
#: announcer says it once a second, a one-off flood never again.
ESTABLISHED_AFTER = INTERVAL / 2
#: Established entries of one source that newcomers from elsewhere never push out.
FAIR_SHARE = 3
EXPIRE_EVERY = 0.1  #: seconds between looks for expired entries
MAX_NAME = 48
MAX_RULES = 80
KINDS = ("table", "ai-server", "game")
VERSION = 1


class DiscoveryError(LobbyError):
    """Multicast refused by the OS, or an announcement that does not parse."""

    code = "discovery"


class BadAnnouncement(DiscoveryError):
    code = "bad-announcement"


@dataclass(frozen=True)
class Announcement:
    """One table or AI server heard on the LAN. ``address`` is dialable (a wildcard IP is
    replaced by the sender's); ``source`` is the sender's IP, ``seen`` the clock time it
    was last heard."""

    kind: str
    name: str
    address: str
    seats: int
    taken: int
    rules: str
    passphrase: bool
    id: str
    source: str
    seen: float


def instance_id() -> str:
    """A random id for one announcer, so restarts and two tables on one host differ."""
    return os.urandom(8).hex()


def pack_announcement(kind: str, name: str, address: str, seats: int = 0, taken: int = 0,
                      rules: str = "", passphrase: bool = False, id: str = "") -> bytes:
    """The datagram for one announcement (checked the same way a `Browser` reads it)."""
    data = encode({"v": VERSION, "kind": kind, "name": name, "address": address,
                   "seats": seats, "taken": taken, "rules": rules,
                   "passphrase": passphrase, "id": id or instance_id()})
    try:
        ip, _ = parse_endpoint(address, "this announcement")
        sender = "127.0.0.1" if ipaddress.ip_address(ip).is_unspecified else ip
    except (LobbyError, ValueError):
        sender = "127.0.0.1"  # parse_announcement says what is wrong with it
    parse_announcement(data, sender, 0.0)  # as the sender's own address would
    return data


#: One announcement: every field, each of its type and length (a name, the rules and the
#: id printable; every field but the rules not empty).
ANNOUNCEMENT: Record[dict[str, Any]] = Record({
    "v": OneOf(VERSION), "kind": OneOf(*KINDS), "name": Text(MAX_NAME, 1, printable=True),
    "address": Text(MAX_RULES), "seats": Int(0, 64), "taken": Int(0, 64),
    "rules": Text(MAX_RULES, printable=True), "passphrase": Bool(),
    "id": Text(32, 1, printable=True)})
#: A datagram's bounds: one flat map of the fields, no string longer than the rules.
ANNOUNCEMENT_LIMITS = Limits(max_bytes=MAX_DATAGRAM, max_depth=1, max_elements=19,
                             max_str=MAX_RULES, max_bin=0, max_array=0, max_map=9,
                             max_memory=8192)


def parse_announcement(data: bytes, source: str, now: float) -> Announcement:
    """Read one datagram from ``source`` (an IP); `BadAnnouncement` if anything is off."""
    who = f"announcement from {source}"
    try:
        msg = ANNOUNCEMENT.read(decode(data, ANNOUNCEMENT_LIMITS, who), who)
    except ShapeError as exc:
        raise BadAnnouncement(f"bad fields: {exc.reason}", who) from None
    except CodecError as exc:
        raise BadAnnouncement(f"unreadable: {exc.reason}", who) from None
    if not 0 <= msg["taken"] <= msg["seats"] <= 64:
        raise BadAnnouncement("bad seat counts", who)
    try:
        ip, port = parse_endpoint(msg["address"], who)
        named = ipaddress.ip_address(ip)
        address = endpoint_string(source, port) if named.is_unspecified else msg["address"]
        sender = ipaddress.ip_address(source)
    except (LobbyError, ValueError) as exc:
        raise BadAnnouncement("bad address", who) from exc
    if not named.is_unspecified and named != sender and not (
            named.is_loopback and sender.is_loopback):
        # A host may only announce itself: else one host could send every browser on the
        # LAN to dial a third (a victim, or a fake table on another machine).
        raise BadAnnouncement(f"it announces another host's address {ip}", who)
    return Announcement(msg["kind"], msg["name"], address, msg["seats"], msg["taken"],
                        msg["rules"], msg["passphrase"], msg["id"], source, now)


def _multicast(protocol: DatagramProtocol) -> IMulticastTransport:
    """The multicast socket of a started announcer or browser."""
    # Started by `reactor.listenMulticast` (`start_announcer`, `start_browser`), which
    # gives a multicast transport; `DatagramProtocol` only declares a UDP one.
    assert protocol.transport is not None  # makeConnection sets it before startProtocol
    return cast(IMulticastTransport, protocol.transport)


class Browser(DatagramProtocol):
    """Collects announcements; `list` gives those heard in the last `EXPIRY` seconds.
    ``joined`` fires once the multicast group is joined (or fails with `DiscoveryError`)."""

    log = Logger()

    def __init__(self, clock: IReactorTime, group: str = GROUP, expiry: float = EXPIRY,
                 on_change: Callable[[list[Announcement]], None] | None = None) -> None:
        self.clock = clock
        self.group = group
        self.expiry = expiry
        self.on_change = on_change
        #: (id, source, address) -> the last announcement heard.
        self.entries: dict[tuple[str, str, str], Announcement] = {}
        self._first: dict[tuple[str, str, str], float] = {}  #: when each was first heard
        self._crowd: dict[str, int] = {}  #: entries per source
        #: Sources whose entry was pushed out lately -> when: no newcomer from them for
        #: `EXPIRY` seconds (else a flood re-sent each second pushes out, in a chain, the
        #: real table heard once so far).
        self._pushed_out: dict[str, float] = {}
        self._expired_at = -math.inf
        self.malformed = 0
        self.overflow = 0  #: announcements not kept, or pushed out, for want of room
        self.joined: Deferred[None] = Deferred()

    def startProtocol(self) -> None:
        d = _multicast(self).joinGroup(self.group)
        d.addCallbacks(self._joined, self._join_failed)

    def _joined(self, _: Any) -> None:
        if not self.joined.called:
            self.joined.callback(None)

    def _join_failed(self, failure: Any) -> None:
        reason = failure.getErrorMessage()
        self.log.warn("cannot join multicast group {group}: {why}", group=self.group,
                      why=reason)
        if not self.joined.called:
            self.joined.errback(DiscoveryError(f"cannot join multicast group: {reason}",
                                               self.group))

    def datagramReceived(self, datagram: bytes, addr: Any) -> None:
        source = addr[0] if isinstance(addr, tuple) and addr and type(addr[0]) is str else "?"
        now = self.clock.seconds()
        try:
            ann = parse_announcement(datagram, source, now)
        except DiscoveryError as exc:
            self.malformed += 1
            self.log.debug("ignoring {why}", why=str(exc))
            return
        self._expire(now)
        key = (ann.id, ann.source, ann.address)
        old = self.entries.get(key)
        if old is None:
            if not self._make_room(ann.source, now):
                self.overflow += 1
                self.log.debug("ignoring {who}: too many entries", who=source)
                return
            self._first[key] = now
            self._crowd[ann.source] = self._crowd.get(ann.source, 0) + 1
        self.entries[key] = ann
        if self.on_change is not None and (old is None or _differs(old, ann)):
            self.on_change(self.list())

    def _established(self, key: tuple[str, str, str]) -> bool:
        return self.entries[key].seen - self._first[key] >= ESTABLISHED_AFTER

    def _make_room(self, source: str, now: float) -> bool:
        """Whether a new entry from ``source`` may be kept, pushing out the weakest if the
        browser (or that source's share) is full: one not established, of the source
        holding the most, the least recently heard. An established entry goes only from a
        source holding more than `FAIR_SHARE` and than the newcomer's would (so a flood of
        one-off announcements never pushes out a table announced every second, and many
        sources cannot push out a host's table and AI server)."""
        if self._pushed_out.get(source, -math.inf) > now - self.expiry:
            return False
        mine = self._crowd.get(source, 0)
        if mine >= MAX_PER_SOURCE:
            victim = min((k for k in self.entries if k[1] == source),
                         key=lambda k: (self._established(k), self.entries[k].seen))
            if self._established(victim):
                return False
        elif len(self.entries) >= MAX_ENTRIES:
            victim = min(self.entries, key=lambda k: (self._established(k), -self._crowd[k[1]],
                                                      self.entries[k].seen))
            if self._established(victim) and \
                    self._crowd[victim[1]] <= max(mine + 1, FAIR_SHARE):
                return False
        else:
            return True
        self.overflow += 1
        self._drop(victim)
        if victim[1] != source:
            self._pushed_out.pop(victim[1], None)
            self._pushed_out[victim[1]] = now
            while len(self._pushed_out) > MAX_ENTRIES:  # bounded: the oldest go
                del self._pushed_out[next(iter(self._pushed_out))]
        return True

    def _drop(self, key: tuple[str, str, str]) -> None:
        del self.entries[key], self._first[key]
        self._crowd[key[1]] -= 1
        if not self._crowd[key[1]]:
            del self._crowd[key[1]]

    def _expire(self, now: float) -> None:
        if now - self._expired_at < EXPIRE_EVERY and now >= self._expired_at:
            return  # a flood's datagrams come many a millisecond: look at most this often
        self._expired_at = now
        for key in [k for k, a in self.entries.items() if a.seen <= now - self.expiry]:
            self._drop(key)

    def list(self, kind: str | None = None) -> list[Announcement]:
        """Live entries (of one ``kind`` if given), by name then address; two with one
        id are two claimants of it (`claimed_twice`)."""
        self._expire(self.clock.seconds())
        return sorted((a for a in self.entries.values() if kind is None or a.kind == kind),
                      key=lambda a: (a.name, a.address, a.id))


def claimed_twice(heard: list[Announcement]) -> set[str]:
    """The ids that more than one of ``heard`` announce (all but one of them are someone
    posing as another: for an AI server the id is its key's fingerprint, which only the
    real one can prove)."""
    seen: dict[str, int] = {}
    for ann in heard:
        seen[ann.id] = seen.get(ann.id, 0) + 1
    return {id for id, n in seen.items() if n > 1}


def _differs(a: Announcement, b: Announcement) -> bool:
    return (a.kind, a.name, a.address, a.seats, a.taken, a.rules, a.passphrase) != \
        (b.kind, b.name, b.address, b.seats, b.taken, b.rules, b.passphrase)


class Announcer(DatagramProtocol):
    """Sends ``payload()`` to the group every ``interval`` seconds on ``clock``. The payload
    is a function so a table's seat count is always current."""

    log = Logger()

    def __init__(self, clock: IReactorTime, payload: Callable[[], bytes], group: str = GROUP,
                 port: int = PORT, interval: float = INTERVAL) -> None:
        self.clock = clock
        self.payload = payload
        self.group = group
        self.port = port
        self.interval = interval
        self.sent = 0
        self.errors = 0
        self._loop: LoopingCall | None = None

    def startProtocol(self) -> None:
        _multicast(self).setTTL(1)
        _multicast(self).setLoopbackMode(True)
        self._loop = LoopingCall(self.send)
        self._loop.clock = self.clock
        self._loop.start(self.interval, now=True)

    def send(self) -> None:
        assert self.transport is not None  # the loop runs from startProtocol to stopProtocol
        try:
            self.transport.write(self.payload(), (self.group, self.port))
            self.sent += 1
        except OSError as exc:
            self.errors += 1
            if self.errors == 1:  # once: the reason does not change every second
                self.log.warn("cannot send announcements to {group}: {why}", group=self.group,
                              why=str(exc))

    def stopProtocol(self) -> None:
        if self._loop is not None and self._loop.running:
            self._loop.stop()


def start_announcer(reactor: Any, payload: Callable[[], bytes], clock: IReactorTime | None
                    = None, group: str = GROUP, port: int = PORT) -> Any:
    """Announce until the returned listening port is stopped (``stopListening()``).
    Raises `DiscoveryError` if the OS refuses a multicast socket."""
    proto = Announcer(clock or reactor, payload, group, port)
    try:
        return reactor.listenMulticast(0, proto, listenMultiple=True)
    except (CannotListenError, OSError, AttributeError) as exc:  # AttributeError: no UDP
        raise DiscoveryError(f"no multicast socket: {exc}", group) from exc


def start_browser(reactor: Any, clock: IReactorTime | None = None, group: str = GROUP,
                  port: int = PORT, on_change: Callable[[list[Announcement]], None] | None
                  = None) -> tuple[Browser, Any]:
    """Listen for announcements until the returned port is stopped; the UI reads
    ``browser.list()`` or gets ``on_change`` calls."""
    browser = Browser(clock or reactor, group, on_change=on_change)
    try:
        listening = reactor.listenMulticast(port, browser, listenMultiple=True)
    except (CannotListenError, OSError, AttributeError) as exc:  # AttributeError: no UDP
        raise DiscoveryError(f"cannot listen for announcements: {exc}", group) from exc
    return browser, listening


async def browse(reactor: Any, seconds: float = 2.0, kind: str | None = None,
                 clock: IReactorTime | None = None, group: str = GROUP,
                 port: int = PORT) -> list[Announcement]:
    """Listen ``seconds`` and return what was heard (for ``tractor join`` without an
    address). Raises `DiscoveryError` if the OS refuses multicast."""
    clock = clock or reactor
    browser, listening = start_browser(reactor, clock, group, port)
    try:
        await browser.joined
        await deferLater(clock, seconds, lambda: None)
        return browser.list(kind)
    finally:
        await maybeDeferred(listening.stopListening)
