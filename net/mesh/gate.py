"""Bounding what strangers can hold: connections (or AI processes) that have not proved
themselves yet, per source address and in total.

On a LAN anyone can open connections. Without bounds, a few hosts holding silent
connections (re-opened as they time out) refuse every genuine joiner, and at the
descriptor limit even the journal cannot open its file. A `Gate` admits a newcomer as
long as its source holds fewer than ``per_source`` unproven places; when all ``total``
places are taken it makes room by evicting the oldest unproven place of the source that
holds the most, so a host that floods from many addresses pushes out its own first and a
person with one connection gets in. Places that proved themselves (`settle`) are never
evicted and still count against ``total``. A place younger than ``min_age`` is not
evicted (a newcomer has time to say its first word), and a source turned away in the last
``noisy_for`` seconds (a few times), or that opened many places in that time, evicts
nobody: a flood that retries the moment it is refused, or closes its own connections
before they age, cannot churn the places to keep them all young.

    >>> gate = Gate(per_source=2, total=3)
    >>> gate.admit("a", "10.0.0.9", 0.0), gate.admit("b", "10.0.0.9", 1.0)
    ([], [])
    >>> gate.admit("c", "10.0.0.9", 2.0)
    Traceback (most recent call last):
    ...
    tractor.net.mesh.gate.Refused: 2 connections from 10.0.0.9 have not finished their handshake
    >>> gate.admit("d", "10.0.0.5", 3.0)
    []
    >>> gate.admit("e", "10.0.0.7", 4.0)  # full: the flooding source's oldest goes
    ['a']

This module is plain state: the Twisted protocols call it and close what it names.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Hashable
from dataclasses import dataclass
from typing import TypeVar

from tractor.net.errors import NetError

T = TypeVar("T")

#: A source turned away this many times within ``noisy_for`` evicts nobody (a person who
#: retries once is not caught by it; a flood retrying at once is).
NOISY_AFTER = 3


def source_of(ip: str) -> str:
    """What one stranger is counted as (a `Gate`'s source, an AI server's requester): its
    IPv4 address (an IPv4-mapped IPv6 address too), or the /64 of an IPv6 address.

        >>> source_of("2001:db8::1"), source_of("::ffff:198.18.0.7")
        ('2001:db8::/64', '198.18.0.7')
    """
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return ip
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.ipv4_mapped is not None:
            return str(addr.ipv4_mapped)
        return str(ipaddress.IPv6Network((addr, 64), strict=False))
    return str(addr)


class Refused(NetError):
    """No place for this newcomer (its source holds enough already)."""


@dataclass
class _Place:
    source: str
    since: float
    proven: bool = False


class Gate:
    """Places per source and in total; see the module's docstring."""

    def __init__(self, per_source: int, total: int, what: str = "connections",
                 unproven: str = "have not finished their handshake",
                 per_source_total: int | None = None, min_age: float = 0.0,
                 noisy_for: float = 5.0) -> None:
        if not 1 <= per_source <= total:
            raise ValueError("a gate needs 1 <= per_source <= total")
        self.per_source = per_source
        self.total = total
        #: Places of one source, proven or not (None: only ``total`` bounds them).
        self.per_source_total = per_source_total
        #: An unproven place younger than this is never evicted: a newcomer has the time
        #: to say its first word before a flood of newer strangers can push it out.
        self.min_age = min_age
        self.what = what
        self.unproven = unproven
        self._places: dict[Hashable, _Place] = {}
        #: How many newcomers were refused or evicted, by source (what a host is shown).
        self.turned_away: dict[str, int] = {}
        self._noisy = Recent(noisy_for)  #: sources turned away lately
        #: Sources that open more than this many places in ``noisy_for`` seconds evict
        #: nobody either (a flood that closes its own connections before they age).
        self.per_source_rate = max(2 * per_source, 4)
        self._opened = Recent(noisy_for)

    def __len__(self) -> int:
        return len(self._places)

    def __contains__(self, key: object) -> bool:
        return key in self._places

    def pending(self, source: str | None = None) -> int:
        """Unproven places (of ``source``, or in all)."""
        return sum(1 for p in self._places.values()
                   if not p.proven and (source is None or p.source == source))

    def admit(self, key: Hashable, source: str, now: float) -> list[Hashable]:
        """Take a place for ``key`` from ``source``; returns the keys evicted to make room
        (close them), or raises `Refused`."""
        if key in self._places:
            raise ValueError(f"{key!r} holds a place already")
        # One IPv6 host has a whole /64 to connect from: per address, it would hold
        # every place with connections younger than ``min_age``.
        source = source_of(source)
        if self.pending(source) >= self.per_source:
            self._turn_away(source, now)
            raise Refused(f"{self.per_source} {self.what} from {source} {self.unproven}")
        if self.per_source_total is not None and sum(
                1 for p in self._places.values() if p.source == source) >= self.per_source_total:
            self._turn_away(source, now)
            raise Refused(f"{self.per_source_total} {self.what} from {source} already")
        evicted: list[Hashable] = []
        opened = self._opened.hit(source, now)
        if len(self._places) >= self.total:
            noisy = (self._noisy.count(source, now) >= NOISY_AFTER
                     or opened > self.per_source_rate)
            victim = None if noisy else self._victim(source, now)
            if victim is None:
                self._turn_away(source, now)
                raise Refused(f"{self.total} {self.what} already, none of them evictable"
                              + (" by an address this busy" if noisy else ""))
            self._turn_away(self._places[victim].source, now)
            del self._places[victim]
            evicted.append(victim)
        self._places[key] = _Place(source, now)
        return evicted

    def _victim(self, newcomer: str, now: float) -> Hashable | None:
        """The oldest unproven place (older than ``min_age``) of the source holding the
        most; never one of a source holding no more than the newcomer's would (so two
        people do not evict each other)."""
        counts: dict[str, int] = {}
        for p in self._places.values():
            if not p.proven and now - p.since >= self.min_age:
                counts[p.source] = counts.get(p.source, 0) + 1
        if not counts:
            return None
        most = max(counts.values())
        if most <= counts.get(newcomer, 0):
            return None
        candidates = [(p.since, k) for k, p in self._places.items()
                      if not p.proven and now - p.since >= self.min_age
                      and counts[p.source] == most]
        return min(candidates, key=lambda c: c[0])[1]

    def settle(self, key: Hashable) -> None:
        """``key`` proved itself (or made the progress that costs a stranger something, such
        as a counted guess): it keeps its place and is never evicted."""
        place = self._places.get(key)
        if place is not None:
            place.proven = True

    def release(self, key: Hashable) -> None:
        """``key`` is gone: its place frees (a key without one is ignored)."""
        self._places.pop(key, None)

    def expired(self, now: float, deadline: float) -> list[Hashable]:
        """Unproven places older than ``deadline`` seconds (the caller closes and releases
        them)."""
        return [k for k, p in self._places.items()
                if not p.proven and now - p.since >= deadline]

    def _turn_away(self, source: str, now: float) -> None:
        if len(self.turned_away) >= 4096 and source not in self.turned_away:
            self.turned_away.clear()  # bounded: a flood from ever new addresses
        self.turned_away[source] = self.turned_away.get(source, 0) + 1
        self._noisy.hit(source, now)


#: Descriptors kept free for what must never fail for want of one: the journal's SQLite
#: file and its rollback journal, a log line, a reconnect to a seat.
DESCRIPTOR_RESERVE = 48


def descriptors_left() -> int | None:
    """How many more files this process may open (None where it cannot be told)."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        used = len(os.listdir("/proc/self/fd"))
    except (ImportError, OSError, ValueError):
        return None
    if soft == resource.RLIM_INFINITY:
        return None
    return soft - used


def room_for_a_stranger() -> bool:
    """False when accepting one more unproven connection would eat into the reserve."""
    left = descriptors_left()
    return left is None or left > DESCRIPTOR_RESERVE


def raise_descriptor_limit(wanted: int = 4096) -> None:
    """Lift the soft limit on open files towards the hard one (many systems start at 1024,
    far below what they allow): more room before any bound is reached."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if soft != resource.RLIM_INFINITY and soft < target:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ImportError, OSError, ValueError):
        pass


class Recent:
    """Events per source in a sliding window, for what needs a rate rather than a count of
    open places (greetings that cost a key exchange, log lines of refusals). Holds at most
    ``max_sources`` sources: past that it starts over (a flood from ever new addresses
    must not grow it).

        >>> recent = Recent(window=10.0)
        >>> [recent.hit("10.0.0.9", t) for t in (0.0, 1.0, 2.0, 12.5)]
        [1, 2, 3, 1]
    """

    def __init__(self, window: float, max_sources: int = 4096) -> None:
        self.window = window
        self.max_sources = max_sources
        self._times: dict[str, list[float]] = {}

    def count(self, source: str, now: float) -> int:
        """Events of ``source`` in the window ending ``now`` (none counted)."""
        return sum(1 for t in self._times.get(source, ()) if t > now - self.window)

    def hit(self, source: str, now: float) -> int:
        """Count one event of ``source`` now; returns its events in the window."""
        if len(self._times) >= self.max_sources and source not in self._times:
            self._times.clear()
        times = [t for t in self._times.get(source, []) if t > now - self.window]
        times.append(now)
        self._times[source] = times[-1000:]
        return len(times)


class LastFew(list[T]):
    """A list that keeps only its last ``limit`` items as more are appended (errors a
    peer may cause again and again); it compares and prints as the list it is.

        >>> kept = LastFew(2)
        >>> for n in range(5):
        ...     kept.append(n)
        >>> kept == [3, 4]
        True
    """

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def append(self, item: T) -> None:
        super().append(item)
        if len(self) > self.limit:
            del self[: len(self) - self.limit]
