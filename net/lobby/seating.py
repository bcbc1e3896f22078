"""What the lobby seats: a would-be seat (`Participant`), the lobby as one participant sees
it (`Roster`), and the final `Seating` every peer starts its game mesh from.

The table id in `Seating.table` is SHA-256 over a canonical encoding of everything the
seats must agree on (name, rules, keys, game addresses, names, kinds and a host nonce, and
where a game going on stands: `read_carry`). The game hello (`net/mesh/wire.py`) already
refuses a peer with another table id, so two peers only talk if they started from the same
roster.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tractor.cards import RANKS
from tractor.net.lobby.errors import LobbyError
from tractor.net.lobby.messages import (
    FINGERPRINT_SIZE,
    KEY_SIZE,
    KINDS,
    MAX_NAME,
    ai_level,
    pack,
)
from tractor.rules import MAX_PLAYERS, Rules

SEATING_VERSION = "tractor-seating/1"
SETTINGS_VERSION = "tractor-ready/1"
SETTINGS_DIGEST = 16  #: bytes of the settings a ``ready`` names (`Roster.digest`)

#: What a person says ready to: the rules, and who sits where (each seat's key fingerprint,
#: None for an empty seat).
Settings = tuple[Rules, tuple[str | None, ...]]


def fingerprint(key: bytes) -> str:
    """A short human-comparable name for a public key (16 hex digits)."""
    return hashlib.sha256(key).digest()[:FINGERPRINT_SIZE].hex()


@dataclass(frozen=True)
class Participant:
    """One would-be seat: a display name, the raw Ed25519 public key it will sign game
    frames with, the port its game mesh already listens on, and whether it is a human or
    an AI. ``wanted_seat`` is honoured when that seat is free; ``level``: an AI's level, as
    it says it (None: not said)."""

    name: str
    public_key: bytes
    game_port: int
    kind: str = "human"
    wanted_seat: int | None = None
    level: str | None = None

    def __post_init__(self) -> None:
        if type(self.name) is not str or not 1 <= len(self.name) <= MAX_NAME \
                or not self.name.isprintable() or self.name != self.name.strip():
            raise ValueError(f"a name is 1 to {MAX_NAME} printable characters")
        if type(self.public_key) is not bytes or len(self.public_key) != KEY_SIZE:
            raise ValueError("a public key is 32 raw bytes")
        if type(self.game_port) is not int or not 1 <= self.game_port <= 65535:
            raise ValueError("a game port is 1 to 65535")
        if self.kind not in KINDS:
            raise ValueError("kind is 'human' or 'ai'")
        if self.wanted_seat is not None and (type(self.wanted_seat) is not int
                                             or not 0 <= self.wanted_seat < MAX_PLAYERS):
            raise ValueError("a wanted seat is a seat number")
        if self.level is not None and (self.kind != "ai" or ai_level(self.level) is None):
            raise ValueError("only an AI has a level: a short lowercase word")


@dataclass(frozen=True)
class SeatInfo:
    """One taken seat as every participant sees it."""

    name: str
    kind: str
    fingerprint: str
    ready: bool


@dataclass(frozen=True)
class Roster:
    """The lobby as one participant sees it: ``you`` is its own seat (None for a host that
    does not play), ``reserved`` the empty seats an AI was asked for."""

    name: str
    rules: Rules
    seats: tuple[SeatInfo | None, ...]
    reserved: tuple[int, ...] = ()
    you: int | None = None

    @property
    def full(self) -> bool:
        return all(s is not None for s in self.seats)

    @property
    def all_ready(self) -> bool:
        return self.full and all(s is not None and s.ready for s in self.seats)

    def empty_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s is None]

    def settings(self) -> Settings:
        """What a person says ``ready`` to at this roster (readiness and reservations
        aside)."""
        return self.rules, tuple(None if s is None else s.fingerprint for s in self.seats)

    def digest(self) -> bytes:
        """`settings` in `SETTINGS_DIGEST` bytes: a guest's ``ready`` names them, so the host
        takes no ``ready`` for settings it changed since."""
        rules, seats = self.settings()
        data = [SETTINGS_VERSION, sorted([k, v] for k, v in rules.to_data().items()),
                list(seats)]
        return hashlib.sha256(pack(data)).digest()[:SETTINGS_DIGEST]

    def moved(self, before: Roster) -> bool:
        """Whether the host changed the settings between ``before`` and this roster, the
        next one: other rules, or someone seated in both at another seat (what un-readies
        every person, `HostLobby._rearranged`; someone joining or leaving does not)."""
        if self.rules != before.rules or len(self.seats) != len(before.seats):
            return True
        was = {s.fingerprint: i for i, s in enumerate(before.seats) if s is not None}
        return any(s is not None and was.get(s.fingerprint, i) != i
                   for i, s in enumerate(self.seats))


@dataclass(frozen=True)
class Seating:
    """Everything a peer needs to start its game mesh: its seat, every seat's key, game
    address (a Twisted client endpoint string, for `PeerNode.dial`), name and kind. ``table``
    is the table id for `GameSession` and the game hello; it is the hash of the rest, so
    peers that disagree on anything never connect. A host that does not play gets seat -1.
    """

    table: bytes
    name: str
    rules: Rules
    seat: int
    keys: tuple[bytes, ...]
    addresses: dict[int, str]
    names: tuple[str, ...]
    kinds: tuple[str, ...]
    #: A game going on at a new table (a seat was replaced): [level of team 0, level of team
    #: 1, declaring team, starter, first drawer] from the hands played so far (find-a-friend:
    #: every player's level, then None, starter, first drawer); None for a new game. It is
    #: part of the table id, so every seat starts from the same place.
    carry: tuple[Any, ...] | None = None
    #: Whether the seats serve watchers (`net.mesh.watchers`): the host's choice
    #: (`tractor host --no-watchers`), part of the table id when it refuses them.
    watchers: bool = True
    #: The host's nonce (`seating_id`): with the rest, a watcher recomputes the table id
    #: (`net.mesh.watching.read_welcome`), so the seat it watches through cannot give it
    #: other names, rules or keys than the table's. Empty: not known (a test's seating).
    nonce: bytes = b""
    #: Each seat's AI level as the start said it (None: a person, or a level not said; ()
    #: none said at all). Not part of the table id: it labels the seats in `tractor stats`
    #: and changes nothing in the game.
    levels: tuple[str | None, ...] = ()

    def level_of(self, seat: int) -> str | None:
        """The AI level the start gave ``seat`` (None: a person, or not known)."""
        return self.levels[seat] if 0 <= seat < len(self.levels) else None

    def binding(self) -> TableBinding | None:
        """What a watcher needs, besides the rules, keys, names and carry, to recompute the
        table id (None: the nonce is not known here)."""
        if not self.nonce:
            return None
        return TableBinding(self.name, tuple(self.addresses[s] for s in sorted(self.addresses)),
                            self.kinds, self.nonce, self.watchers)


@dataclass(frozen=True)
class TableBinding:
    """The parts of a table id a watcher is not otherwise given: the table's name, every
    seat's game address (in seat order) and kind, the host's nonce, and whether the seats
    serve watchers (False at a table with a passphrase, whose host's seat alone serves them
    once they prove it: `mesh.watch_gate`)."""

    name: str
    addresses: tuple[str, ...]
    kinds: tuple[str, ...]
    nonce: bytes
    watchers: bool = True

    def to_data(self) -> list[Any]:
        """Four fields, and a fifth, False, when the seats serve no watcher (a welcome of a
        table that serves them reads as it always did)."""
        return [self.name, list(self.addresses), list(self.kinds), self.nonce,
                *([] if self.watchers else [False])]

    def table_id(self, rules: Rules, keys: Iterable[bytes], names: Iterable[str],
                 carry: tuple[Any, ...] | None) -> bytes:
        """The id of the table these parts and the rest make."""
        return seating_id(self.name, rules, keys, dict(enumerate(self.addresses)), names,
                          self.kinds, self.nonce, carry, self.watchers)


def read_carry(value: Any, rules: Rules, who: str, exc: type[LobbyError]) -> tuple[Any, ...]:
    """A carry as sent, each field checked exactly: the game's levels (`Rules.level_count`:
    two teams', or in find-a-friend one per player), the declaring team, the starter and
    the first drawer."""
    count, players = rules.level_count, rules.players
    if not isinstance(value, list) or len(value) != count + 3:
        raise exc(f"a carry is [{count} levels, declarers, starter, first]", who)
    *levels, declarers, starter, first = value
    if not all(type(lv) is str and lv in RANKS for lv in levels):
        raise exc(f"a carry names {count} levels", who)
    if rules.mode == "friends":
        if declarers is not None:
            raise exc("a carry of find-a-friend names no declaring team", who)
    elif not (declarers is None or (type(declarers) is int and declarers in (0, 1))):
        raise exc("a carry's declaring team is 0 or 1", who)
    for seat in (starter, first):
        if seat is not None and not (type(seat) is int and 0 <= seat < players):
            raise exc("a carry's seats are seat numbers", who)
    if type(first) is not int:
        raise exc("a carry names the first drawer", who)
    return (*levels, declarers, starter, first)


def seating_id(name: str, rules: Rules, keys: Iterable[bytes], addresses: dict[int, str],
               names: Iterable[str], kinds: Iterable[str], nonce: bytes,
               carry: tuple[Any, ...] | None = None, watchers: bool = True) -> bytes:
    """The table id: SHA-256 of a canonical msgpack array. Rules go in as sorted
    (option, value) pairs and addresses in seat order, so the encoding does not depend on
    map order. The host nonce makes every table id new even for the same roster. A table
    that takes no watchers says so at the end (one that takes them, as tables always did,
    adds nothing: its id is what it was)."""
    data = [SEATING_VERSION, name, sorted([k, v] for k, v in rules.to_data().items()),
            list(keys), [addresses[s] for s in sorted(addresses)], list(names), list(kinds),
            nonce, list(carry) if carry is not None else None,
            *([] if watchers else ["no watchers"])]
    return hashlib.sha256(pack(data)).digest()
