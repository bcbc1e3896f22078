"""The host's lobby as a plain state machine: who sits where, who is ready, the AI seats
reserved, and the start message once every seat is taken and ready.

No sockets and no Twisted here (`net/lobby/host_protocol.py` moves the bytes and the time):
`HostLobby` is fed decoded messages of authenticated connections and returns the messages
to send, so every rule is tested without a network. A message that does not fit raises a
`LobbyError` naming the peer *before* anything changes, so a bad message never leaves a
half-changed lobby behind.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tractor.net.lobby.addresses import is_loopback, usable
from tractor.net.lobby.errors import BadLobbyMessage, LobbyClosed, LobbyError, TableFull, printable
from tractor.net.lobby.messages import (
    KEY_SIZE,
    KINDS,
    MAX_NAME,
    MAX_TABLE_NAME,
    NONCE_SIZE,
    FieldReader,
    ai_level,
)
from tractor.net.lobby.seat_names import ai_seat_name
from tractor.net.lobby.seating import (
    SETTINGS_DIGEST,
    Participant,
    Roster,
    SeatInfo,
    Seating,
    fingerprint,
    seating_id,
)
from tractor.net.lobby.table_settings import SettingRefused, changed_rules, resized, swapped
from tractor.net.lobby.tokens import TokenBook
from tractor.net.mesh.endpoints import endpoint_string
from tractor.net.mesh.gate import LastFew
from tractor.rules import MAX_PLAYERS, Rules

HOST = -1  #: the connection id of the host's own participant in `HostLobby`


@dataclass
class _Member:
    conn: int  # HOST for the host's own participant
    who: str
    participant: Participant
    peer_ip: str
    local_ip: str
    ready: bool = False


@dataclass
class _Conn:
    who: str
    peer_ip: str
    local_ip: str
    token: bytes | None  # token id, if the connection proved a seat token
    seat: int | None = None


Send = tuple[int, dict[str, Any]]  #: (connection id, message)

_JOIN_FIELDS = ("t", "name", "key", "port", "kind", "seat", "level")
#: A guest may ask for another seat this many times a `MOVE_WINDOW`; more asks are
#: ignored, so a guest cannot keep the table busy un-readying everyone. Counted per
#: address: leaving and joining again (a new connection, a new key) starts no new count.
MOVE_LIMIT = 5
MOVE_WINDOW = 60.0
#: The settings shown since the last change (`Roster.digest`) that a ``ready`` may name: a
#: roster per join or leave, bounded (a ``ready`` that old is taken for a stale one).
MAX_SHOWN = 64


class HostLobby:
    """The host's lobby: seats, ready flags, AI tokens; decides the start.

    Connection ids are the wire layer's; a connection is `connect`-ed once its handshake
    succeeded. Every method returns the messages to send (``(conn, message)`` pairs) and
    raises a `LobbyError` *without changing anything* when a message does not fit. After the
    start, ``seating`` is the host's `Seating` and every further message is refused.
    """

    def __init__(self, name: str, rules: Rules, me: Participant | None,
                 nonce: bytes | None = None, host_ip: str = "127.0.0.1",
                 entropy: Callable[[int], bytes] = os.urandom,
                 carry: tuple[Any, ...] | None = None, internet: str | None = None) -> None:
        if type(name) is not str or not 1 <= len(name) <= MAX_TABLE_NAME \
                or not name.isprintable() or name != name.strip():
            raise ValueError(f"a table name is 1 to {MAX_TABLE_NAME} printable characters")
        self.name = name
        self.rules = rules
        self.nonce = nonce if nonce is not None else entropy(NONCE_SIZE)
        self.carry = carry
        self.watchers = True  #: whether the seats serve watchers (the start says so)
        #: An internet table's game address (`rendezvous.internet_address`): every seat
        #: has it (their links are wormholes); None on a LAN.
        self.internet = internet
        self.host_ip = host_ip  #: our address when no connection tells a better one
        self.tokens = TokenBook(entropy)
        self.seats: list[_Member | None] = [None] * rules.players
        self.conns: dict[int, _Conn] = {}
        #: Address -> when guests from there moved within the last `MOVE_WINDOW`.
        self._moves: dict[str, list[float]] = {}
        self.seating: Seating | None = None
        #: The settings every roster since the last change showed (`Roster.digest`): a
        #: guest's ``ready`` for any of them stands, one for older settings does not.
        self._shown: list[bytes] = LastFew(MAX_SHOWN)
        self.me = me
        if me is not None:
            seat = me.wanted_seat if me.wanted_seat is not None and \
                me.wanted_seat < rules.players else 0
            self.seats[seat] = _Member(HOST, "host", me, host_ip, host_ip)

    # --- reading ----------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self.seating is not None

    def host_seat(self) -> int | None:
        return self._seat_of(HOST)

    def _seat_of(self, conn: int) -> int | None:
        for i, m in enumerate(self.seats):
            if m is not None and m.conn == conn:
                return i
        return None

    def roster(self, now: float, conn: int = HOST) -> Roster:
        seats = tuple(None if m is None else SeatInfo(
            m.participant.name, m.participant.kind, fingerprint(m.participant.public_key),
            m.ready) for m in self.seats)
        reserved = tuple(sorted(s for s in self.tokens.reserved(now) if self.seats[s] is None))
        return Roster(self.name, self.rules, seats, reserved, self._seat_of(conn))

    def _roster_message(self, roster: Roster) -> dict[str, Any]:
        return {"t": "roster", "name": roster.name, "rules": roster.rules.to_data(),
                "seats": [None if s is None else [s.name, s.kind, bytes.fromhex(s.fingerprint),
                                                  s.ready] for s in roster.seats],
                "reserved": list(roster.reserved), "you": roster.you}

    def joined(self) -> list[int]:
        """Connections that hold a seat, in seat order."""
        return [m.conn for m in self.seats if m is not None and m.conn != HOST]

    def broadcast(self, now: float) -> list[Send]:
        """The roster for every seated connection (each with its own ``you``)."""
        digest = self.roster(now).digest()
        if not self._shown or self._shown[-1] != digest:
            self._shown.append(digest)
        return [(c, self._roster_message(self.roster(now, c))) for c in self.joined()]

    # --- connections ------------------------------------------------------------------------

    def connect(self, conn: int, who: str, peer_ip: str, local_ip: str,
                token: bytes | None = None) -> None:
        """A connection finished its handshake (``token``: the seat token id it proved)."""
        if conn == HOST or conn in self.conns:
            raise ValueError(f"connection {conn} already known")
        self.conns[conn] = _Conn(who, peer_ip, local_ip, token)

    def receive(self, conn: int, msg: Any, now: float) -> list[Send]:
        """One decoded message from an authenticated connection."""
        c = self.conns.get(conn)
        if c is None:
            raise BadLobbyMessage("message before the handshake", f"connection {conn}")
        who = c.who if c.seat is None else f"seat {c.seat} ({c.who})"
        if self.started:
            raise LobbyClosed("the game has started", who)
        if not isinstance(msg, dict) or type(msg.get("t")) is not str:
            raise BadLobbyMessage("a message is a map with a type", who)
        kind = msg["t"]
        if c.seat is None:
            if kind != "join":
                raise BadLobbyMessage(f"{printable(kind)[:20]!r} before joining", who)
            return self._join(conn, c, msg, who, now)
        if kind == "ready":
            r = FieldReader(msg, who, ("t", "ready", "for"))
            flag = r.get("ready", bool)
            seen = r.blob("for", SETTINGS_DIGEST) if "for" in msg else None
            member = self.seats[c.seat]
            assert member is not None
            if flag and seen is not None and seen not in self._shown \
                    and member.participant.kind != "ai":
                # Said to settings changed since (a change crossed it on the way): the
                # guest sees the change and says ready again. (An AI plays any.)
                return []
            member.ready = flag
            return self._changed(now)
        if kind == "leave":
            FieldReader(msg, who, ("t",))
            return self.drop(conn, now)
        if kind == "sit":
            seat = FieldReader(msg, who, ("t", "seat")).integer("seat", 0, MAX_PLAYERS - 1)
            assert seat is not None
            return self._guest_sit(c, seat, now)
        raise BadLobbyMessage(f"unknown message type {printable(kind)[:20]!r}", who)

    def _join(self, conn: int, c: _Conn, msg: Any, who: str, now: float) -> list[Send]:
        r = FieldReader(msg, who, _JOIN_FIELDS)
        name = r.text("name", MAX_NAME)
        key = r.blob("key", KEY_SIZE)
        port = r.integer("port", 1, 65535)
        kind = r.get("kind", str)
        if kind not in KINDS:
            raise BadLobbyMessage("kind is 'human' or 'ai'", who)
        wanted = r.integer("seat", 0, MAX_PLAYERS - 1, optional=True)
        assert port is not None
        if any(m is not None and m.participant.public_key == key for m in self.seats):
            raise BadLobbyMessage("this key already holds a seat", who)
        seat = self._choose_seat(c, wanted, now)
        if seat is None:
            raise TableFull(f"table {self.name!r} is full", who)
        # Checked: now change.
        if c.token is not None:
            self.tokens.settle(c.token)
            c.token = None
        if kind == "ai":  # the host names its AIs: distinct, numbered for this table
            name = ai_seat_name(name, [m.participant.name for m in self.seats if m is not None],
                                len(self.seats))
        # An AI says its level (`tractor ai --level`); an odd one is a level not known.
        level = ai_level(msg.get("level")) if kind == "ai" else None
        participant = Participant(name, key, port, kind, wanted, level)
        self.seats[seat] = _Member(conn, c.who, participant, c.peer_ip, c.local_ip)
        c.seat = seat
        return self._changed(now)

    def _choose_seat(self, c: _Conn, wanted: int | None, now: float) -> int | None:
        reserved = self.tokens.reserved(now)
        mine = next((s for s, tid in reserved.items() if tid == c.token), None)
        free = [s for s, m in enumerate(self.seats) if m is None]
        if mine is not None and mine in free:
            return mine
        open_seats = [s for s in free if s not in reserved]
        if wanted is not None and wanted in open_seats:
            return wanted
        if open_seats:
            return open_seats[0]
        return None

    def drop(self, conn: int, now: float) -> list[Send]:
        """The connection left (a ``leave`` message or a lost connection): its seat frees."""
        c = self.conns.pop(conn, None)
        if c is None or self.started:
            return []
        if c.token is not None:
            self.tokens.settle(c.token)
        if c.seat is None:
            return []
        self.seats[c.seat] = None
        return self._changed(now)

    def host_ready(self, ready: bool, now: float) -> list[Send]:
        if self.started:
            raise LobbyClosed("the game has started", "host")
        seat = self.host_seat()
        if seat is None:
            raise LobbyError("the host does not hold a seat", "host")
        member = self.seats[seat]
        assert member is not None
        member.ready = bool(ready)
        return self._changed(now)

    def issue_tokens(self, now: float, count: int | None = None,
                     seats: Sequence[int] | None = None) -> list[bytes]:
        """One-time tokens for the empty seats nobody was asked for yet (at most ``count``,
        the highest seats first, so the lowest stay open for people)."""
        if self.started:
            return []
        reserved = self.tokens.reserved(now)
        empty = [s for s, m in enumerate(self.seats) if m is None and s not in reserved]
        if seats is not None:  # these seats only (a game going on: the seats AI held)
            empty = [s for s in empty if s in seats]
        if count is not None:
            empty = empty[len(empty) - count:] if 0 < count < len(empty) else (
                empty if count > 0 else [])
        return self.tokens.issue(empty, now)

    # --- settings before the start (`net/lobby/table_settings.py`) -------------------------

    def change_rules(self, changes: dict[str, Any], now: float) -> list[Send]:
        """The host sets rules options (``changes``: option -> value, as `Rules.from_data`
        reads them); a new number of players resizes the table. Raises the core's
        `RulesError` or `SettingRefused` with nothing changed."""
        self._may_change()
        rules = changed_rules(self.rules, changes)
        if rules == self.rules:
            return []
        seats = resized(self.seats, rules.players, self.tokens.reserved(now))
        self.rules = rules
        return self._rearranged(seats, now)

    def host_sit(self, seat: int, now: float) -> list[Send]:
        """The host moves to the free seat ``seat``."""
        self._may_change()
        mine = self.host_seat()
        if mine is None:
            raise SettingRefused("the host does not hold a seat", "host")
        if 0 <= seat < len(self.seats) and self.seats[seat] is not None and seat != mine:
            raise SettingRefused(f"seat {seat} is taken: `swap {mine} {seat}` exchanges the "
                                 "two seats", "host")
        if seat == mine:
            return []
        return self._rearranged(swapped(self.seats, mine, seat, self._pending(now)), now)

    def swap(self, a: int, b: int, now: float) -> list[Send]:
        """The host exchanges two seats (people, AI players or an empty seat)."""
        self._may_change()
        return self._rearranged(swapped(self.seats, a, b, self._pending(now)), now)

    def _guest_sit(self, c: _Conn, seat: int, now: float) -> list[Send]:
        """A guest asks for a free seat. A seat taken meanwhile (or gone with a smaller
        table), a table going on, or a guest asking too often changes nothing: the guest
        sees in the next roster where it sits."""
        self._moves = {ip: kept for ip, times in self._moves.items()
                       if (kept := [t for t in times if t > now - MOVE_WINDOW])}
        moves = self._moves.setdefault(c.peer_ip, [])
        if len(moves) >= MOVE_LIMIT or self.carry is not None or c.seat is None \
                or seat == c.seat or seat >= len(self.seats) \
                or self.seats[seat] is not None or seat in self._pending(now):
            return []
        moves.append(now)
        return self._rearranged(swapped(self.seats, c.seat, seat, ()), now)

    def _may_change(self) -> None:
        if self.started:
            raise LobbyClosed("the game has started", "host")
        if self.carry is not None:
            raise SettingRefused("this table goes on with a game already under way: its "
                                 "rules and seats stay as they were", "host")

    def _pending(self, now: float) -> set[int]:
        """Empty seats an AI was asked for (its token promises the seat number)."""
        return {s for s in self.tokens.reserved(now) if self.seats[s] is None}

    def _rearranged(self, seats: list[_Member | None], now: float) -> list[Send]:
        """Take the new seats; every person must say ready again (an AI plays any rules
        and seat, and never asks: it stays ready)."""
        self.seats = seats
        self._shown.clear()
        for seat, member in enumerate(seats):
            if member is None:
                continue
            if member.conn != HOST:
                self.conns[member.conn].seat = seat
            if member.participant.kind != "ai":
                member.ready = False
        return self._changed(now)

    # --- the start --------------------------------------------------------------------------

    def _changed(self, now: float) -> list[Send]:
        out = self.broadcast(now)
        if all(m is not None and m.ready for m in self.seats):
            out += self._start()
        return out

    def game_addresses(self) -> dict[int, str]:
        """Seat -> game endpoint. A joiner's IP is the one its lobby connection came from.
        The host, and joiners on the host's own machine (loopback), get the host's address
        as the LAN sees it (the local side of a LAN connection), so remote seats never get
        told to dial 127.0.0.1; with nobody remote, everybody is on loopback."""
        if self.internet is not None:
            return dict.fromkeys(range(len(self.seats)), self.internet)
        lan = next((m.local_ip for m in self.seats if m is not None and m.conn != HOST
                    and not is_loopback(m.peer_ip) and usable(m.local_ip)), self.host_ip)
        out = {}
        for seat, m in enumerate(self.seats):
            assert m is not None
            ip = lan if m.conn == HOST or is_loopback(m.peer_ip) or not usable(m.peer_ip) \
                else m.peer_ip
            out[seat] = endpoint_string(ip, m.participant.game_port)
        return out

    def _start(self) -> list[Send]:
        members = [m for m in self.seats if m is not None]
        keys = tuple(m.participant.public_key for m in members)
        names = tuple(m.participant.name for m in members)
        kinds = tuple(m.participant.kind for m in members)
        levels = tuple(m.participant.level for m in members)
        addresses = self.game_addresses()
        table = seating_id(self.name, self.rules, keys, addresses, names, kinds, self.nonce,
                           self.carry, self.watchers)
        seat = self.host_seat()
        self.seating = Seating(table, self.name, self.rules, -1 if seat is None else seat, keys,
                               addresses, names, kinds, self.carry, self.watchers, self.nonce,
                               levels if any(levels) else ())
        message: dict[str, Any] = {
            "t": "start", "name": self.name, "rules": self.rules.to_data(),
            "keys": list(keys), "addresses": [addresses[s] for s in range(len(keys))],
            "names": list(names), "kinds": list(kinds), "nonce": self.nonce,
            "table": table, "carry": list(self.carry) if self.carry else None}
        if not self.watchers:  # (said only then: a start of today's tables is unchanged)
            message["watchers"] = False
        if any(levels):  # (a table of people only: its start is as it was)
            message["ai_levels"] = list(levels)
        return [(c, message) for c in self.joined()]
