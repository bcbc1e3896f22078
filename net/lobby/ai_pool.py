"""How an AI server shares its players among the hosts that ask, so that no host (or
group of addresses) holds them hostage while another waits with none.

The figures, and why:

- `CAPACITY` = 24 players at once: each is a process of about 50 MB (1.2 GB in all).
- `PER_SOURCE` = 11 for one source: a full table of 12 with one person. A source is the
  requester's IPv4 address, or its /64 for IPv6 (addresses within a /64 cost nothing to
  take). A fill request carries no host key to count instead: the server only ever dials
  back the address the request came from, so many lobbies or table names from one
  machine are still one source. There is no cap per IPv4 /24: on a LAN every genuine host
  shares the server's /24, so such a cap would be the capacity again.
- `RESERVE` = 5: a source that already holds players never takes the last 5 free places
  (a 6-seat table with one person, or a 4-seat table with one person with two to spare);
  they are kept for a host that has not been served yet.
- `RECLAIM_AFTER` = 120 s: a host holding no players that finds the server full takes the
  places of tables that have not moved on for this long (a lobby that has not started, a
  person who has not played for two minutes), the table idle the longest first, a whole
  table at a time. Tables that play on are never touched: a genuine game is not cut short.
- `RELEASE_AFTER` = 600 s: a player whose table has not moved on for this long is stopped
  whoever waits: a lobby that never started, or a table stalled past the game's own stall
  deadline (300 s for a decision, 120 s for a lost link) that did not end.

So addresses that start real tables with a stalling person can hold every player only
until a host with none asks and the stalled tables have not moved for two minutes. What
this does not stop: tables that really play on (a bot in the person's seat) hold their
players until their games end, 11 per source; give the server a passphrase for that.

Plain state (the AI layer stops the players it names), driven by the caller's clock.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass

from tractor.net.lobby.addresses import parse_endpoint
from tractor.net.lobby.errors import AiServerBusy
from tractor.net.mesh.gate import source_of

CAPACITY = 24
PER_SOURCE = 11
RESERVE = 5
RECLAIM_AFTER = 120.0
RELEASE_AFTER = 600.0


@dataclass
class _Player:
    source: str
    table: str  #: the lobby it dials (the requester's address and port): one table
    moved: float  #: when its table last moved on (or it was started)


class AiPool:
    """The players an AI server runs, by key: who may have more, and whose places a host
    not served yet may take (see the module's docstring for the figures)."""

    def __init__(self, capacity: int = CAPACITY, per_source: int = PER_SOURCE,
                 reserve: int = RESERVE, reclaim_after: float = RECLAIM_AFTER,
                 release_after: float = RELEASE_AFTER) -> None:
        if not 1 <= per_source <= capacity or not 0 <= reserve < capacity:
            raise ValueError("a pool needs 1 <= per_source <= capacity and a smaller reserve")
        self.capacity = capacity
        self.per_source = per_source
        self.reserve = reserve
        self.reclaim_after = reclaim_after
        self.release_after = release_after
        self._players: dict[Hashable, _Player] = {}
        #: Places granted by `admit` and not yet taken by `add`: (table, how many).
        self._granted: tuple[str, int] = ("", 0)

    def __len__(self) -> int:
        return len(self._players)

    def __contains__(self, key: object) -> bool:
        return key in self._players

    def held(self, source: str) -> int:
        return sum(1 for p in self._players.values() if p.source == source)

    def admit(self, lobby: str, count: int, now: float) -> list[Hashable]:
        """Grant ``count`` players to the table at ``lobby`` (the requester's address and
        port), or raise `AiServerBusy` with the reason to tell the host. Returns the keys
        of players taken back for it (stop them); the next ``count`` `add` calls for
        ``lobby`` take the places granted."""
        ip, _ = parse_endpoint(lobby)
        source = source_of(ip)
        mine = self.held(source)
        if mine + count > self.per_source:
            raise AiServerBusy(f"this AI server runs at most {self.per_source} players for one "
                               f"address, and {mine} are at your tables already", ip)
        free = self.capacity - len(self._players)
        busy = (f"this AI server is busy: {len(self._players)} of {self.capacity} players are "
                "at other tables")
        if mine:
            # Served already: the last places are kept for a host that has none.
            if free - count < self.reserve:
                raise AiServerBusy(f"{busy}, and the last {self.reserve} places are kept for "
                                   f"hosts it does not serve yet; try again in a minute", ip)
            taken: list[Hashable] = []
        elif free >= count:
            taken = []
        else:
            reclaimed = self._reclaim(count - free, now)
            if reclaimed is None:
                raise AiServerBusy(f"{busy}; try again in {self._wait(now)}", ip)
            taken = reclaimed
        for key in taken:
            del self._players[key]
        self._granted = (lobby, count)
        return taken

    def add(self, key: Hashable, lobby: str, now: float) -> list[Hashable]:
        """One player started for the table at ``lobby``: it takes a place `admit` granted,
        or is admitted alone (returns the keys taken back for it, as `admit` does)."""
        if key in self._players:
            raise ValueError(f"{key!r} holds a place already")
        table, left = self._granted
        taken: list[Hashable] = []
        if table == lobby and left > 0:
            self._granted = (table, left - 1)
        else:
            taken = self.admit(lobby, 1, now)
            self._granted = ("", 0)
        ip, _ = parse_endpoint(lobby)
        self._players[key] = _Player(source_of(ip), lobby, now)
        return taken

    def moved(self, key: Hashable, now: float) -> None:
        """``key``'s table moved on (it started, or a move was made)."""
        player = self._players.get(key)
        if player is not None:
            player.moved = now

    def release(self, key: Hashable) -> None:
        """``key`` is gone: its place frees (a key without one is ignored)."""
        self._players.pop(key, None)

    def expired(self, now: float) -> list[Hashable]:
        """Players whose table has not moved on for `release_after` (stop them)."""
        return [k for k, p in self._players.items() if now - p.moved >= self.release_after]

    def _tables(self) -> dict[str, list[Hashable]]:
        tables: dict[str, list[Hashable]] = {}
        for key, player in self._players.items():
            tables.setdefault(player.table, []).append(key)
        return tables

    def _idle_since(self, keys: list[Hashable]) -> float:
        """A table moved on when any of its players last saw it move."""
        return max(self._players[k].moved for k in keys)

    def _reclaim(self, needed: int, now: float) -> list[Hashable] | None:
        """Whole tables idle for `reclaim_after`, idle the longest first (then the source
        holding most), whose places make ``needed``; None if they do not."""
        idle = [(self._idle_since(keys), -self.held(self._players[keys[0]].source), keys)
                for keys in self._tables().values()]
        idle = [t for t in idle if now - t[0] >= self.reclaim_after]
        taken: list[Hashable] = []
        for _, _, keys in sorted(idle, key=lambda t: (t[0], t[1])):
            if len(taken) >= needed:
                break
            taken += keys
        return taken if len(taken) >= needed else None

    def _wait(self, now: float) -> str:
        """When a host with no players may find room: the soonest a table can be idle for
        `reclaim_after` (if every table moves on meanwhile, later)."""
        soonest = min((self._idle_since(keys) + self.reclaim_after - now
                       for keys in self._tables().values()), default=0.0)
        if soonest <= 60.0:
            return "a minute"
        return f"{math.ceil(soonest / 60.0)} minutes"
