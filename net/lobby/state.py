"""The lobby before a game, as plain state machines: who sits where, who is ready, and the
final `Seating` every peer starts its game mesh from.

No sockets and no Twisted here: `HostLobby` (the table's host) and `GuestLobby` (every
other participant) are fed decoded messages and return the messages to send, so every rule
is tested without a network. `net/lobby/pake.py` authenticates a connection before any lobby
message, `net/lobby/protocols.py` moves the bytes and the time.

Every message from a peer is hostile until checked: each reader checks exact types and
sizes and raises a `LobbyError` subclass naming the peer *before* it changes anything, so a
bad message never leaves a half-changed lobby behind.

The table id in `Seating.table` is SHA-256 over a canonical encoding of everything the
seats must agree on (name, rules, keys, game addresses, names, kinds and a host nonce). The
game hello (`net/mesh/wire.py`) already refuses a peer with another table id, so two peers only
talk if they started from the same roster.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tractor.cards import RANKS
from tractor.net.codec import CodecError, Limits, decode, encode
from tractor.net.internet.rendezvous import (
    RendezvousError,
    is_internet_address,
    read_internet_address,
)
from tractor.net.lobby.guess_line import Attempt, AttemptLimiter
from tractor.net.lobby.seat_names import ai_seat_name
from tractor.rules import MAX_PLAYERS, Rules, RulesError

SEATING_VERSION = "tractor-seating/1"
FILL_VERSION = "tractor-fill/2"  #: 2: the greeting is signed by the server's identity key
#: Prefix of what an AI server's identity key signs in its greeting (its box key).
GREETING_CONTEXT = b"tractor-fill/2 greeting\x00"
MAX_LOBBY_FRAME = 8 * 1024  #: a start message for 12 seats is about 2 KiB
MAX_NAME = 32  #: characters in a display name
MAX_TABLE_NAME = 48
MAX_WHY = 200  #: characters of a refusal reason we keep
KINDS = ("human", "ai")
KEY_SIZE = 32  #: raw Ed25519 public key
NONCE_SIZE = 16
TOKEN_SIZE = 32
TOKEN_ID_SIZE = 8
TOKEN_TTL = 120.0  #: seconds an unused AI seat token keeps its seat reserved
FINGERPRINT_SIZE = 8
HOST = -1  #: the connection id of the host's own participant in `HostLobby`


# --- errors ---------------------------------------------------------------------------------


class LobbyError(ValueError):
    """Something in the lobby went wrong with one peer. ``code`` travels in refusals so the
    other side raises the same type; ``peer`` names the other end (address or seat)."""

    code: ClassVar[str] = "lobby-error"

    def __init__(self, why: str, peer: str = "?") -> None:
        self.why = why[:MAX_WHY]
        self.peer = peer
        super().__init__(f"{self.why} ({peer})")


class BadLobbyMessage(LobbyError):
    """A malformed, oversized, forged or out-of-place message."""

    code = "bad-message"


class BadStart(BadLobbyMessage):
    """A start message that does not check out: wrong sizes, our key not at our seat,
    duplicate keys, or a table id that is not the hash of the roster it came with."""

    code = "bad-start"


class WrongPassphrase(LobbyError):
    """The two ends of a lobby connection do not share the table passphrase."""

    code = "wrong-passphrase"


class PassphraseRequired(LobbyError):
    """The table has a passphrase and the joiner gave none."""

    code = "passphrase-required"


class UnexpectedPassphrase(LobbyError):
    """The joiner gave a passphrase but the table has none: refused rather than silently
    joining an unauthenticated table the user thought was protected."""

    code = "no-passphrase"


class BadToken(LobbyError):
    """An AI seat token that is unknown, expired, already used or wrong."""

    code = "bad-token"


class TooManyAttempts(LobbyError):
    """Too many failed passphrase (or token) attempts from one address: wait a minute."""

    code = "too-many-attempts"


class TableFull(LobbyError):
    """Every seat is taken (or reserved for an AI that was asked for)."""

    code = "table-full"


class LobbyClosed(LobbyError):
    """The lobby went away before the game started."""

    code = "closed"


class NoAiServer(LobbyError):
    """No AI provider: no local callback and no AI server found or reachable."""

    code = "no-ai-server"


class AiServerBusy(NoAiServer):
    """The AI server has no players to spare for this host now (the reason says how many
    are taken and when to try again: `tractor.net.lobby.ai_pool`)."""

    code = "ai-server-busy"


class WrongServerKey(LobbyError):
    """The AI server that answered is not the one the host chose: its identity key differs
    from the fingerprint chosen (or pinned). No seat token was sent."""

    code = "wrong-server-key"


class WrongCode(LobbyError):
    """A seat code that opened no table: typed wrong (the wormhole's key agreement failed,
    and the host's code is spent: it shows a new one), or nobody waits at it."""

    code = "wrong-code"


_ERROR_CODES: dict[str, type[LobbyError]] = {
    c.code: c for c in (LobbyError, BadLobbyMessage, BadStart, WrongPassphrase,
                        PassphraseRequired, UnexpectedPassphrase, BadToken, TooManyAttempts,
                        TableFull, LobbyClosed, NoAiServer, AiServerBusy, WrongServerKey,
                        WrongCode)}


def error_for(code: Any, why: Any, peer: str) -> LobbyError:
    """The typed error a refusal from ``peer`` stands for (unknown codes: `LobbyError`)."""
    cls = _ERROR_CODES.get(code, LobbyError) if type(code) is str else LobbyError
    text = why[:MAX_WHY] if type(why) is str else "refused"
    return cls(f"refused: {_printable(text)}", peer)


def refusal(exc: LobbyError) -> dict[str, Any]:
    """The message telling a peer why we drop it."""
    return {"t": "refused", "code": exc.code, "why": exc.why}


# --- bounded decoding -----------------------------------------------------------------------


#: A lobby message's bounds besides the lengths each call names: a start message for 12
#: seats (the largest) holds about a hundred values, nested three deep.
LOBBY_LIMITS = Limits(max_bytes=MAX_LOBBY_FRAME, max_depth=6, max_elements=1024,
                      max_memory=256 * 1024)


def unpack(data: bytes, who: str, *, max_bin: int = 64, max_str: int = 1024,
           max_array: int = MAX_PLAYERS + 4, max_map: int = 16) -> Any:
    """One msgpack value from a peer, with every size bounded; `BadLobbyMessage` otherwise."""
    limits = replace(LOBBY_LIMITS, max_bin=max_bin, max_str=max_str, max_array=max_array,
                     max_map=max_map)
    try:
        return decode(data, limits, who)
    except CodecError as exc:
        raise BadLobbyMessage(f"unreadable message: {exc.reason}", who) from None


def pack(value: Any) -> bytes:
    return encode(value)


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in text)


class _Reader:
    """Exact-type field access on a message map; every miss is a `BadLobbyMessage`."""

    def __init__(self, msg: Any, who: str, fields: Iterable[str], exc: type[LobbyError]
                 = BadLobbyMessage) -> None:
        self.who = who
        self.exc = exc
        if not isinstance(msg, dict):
            raise exc("a message is a map", who)
        extra = set(msg) - set(fields)
        if extra:
            raise exc(f"unexpected field(s) {_printable(', '.join(sorted(extra)))[:60]}", who)
        self.msg = msg

    def get(self, key: str, *types: type, optional: bool = False) -> Any:
        if key not in self.msg:
            if optional:
                return None
            raise self.exc(f"missing field {key}", self.who)
        value = self.msg[key]
        if not any(type(value) is t for t in types):
            raise self.exc(f"field {key} has the wrong type", self.who)
        return value

    def text(self, key: str, limit: int) -> str:
        value = self.get(key, str)
        if not 1 <= len(value) <= limit or not value.isprintable() or value != value.strip():
            raise self.exc(f"field {key} must be 1 to {limit} printable characters", self.who)
        return value

    def blob(self, key: str, size: int) -> bytes:
        value = self.get(key, bytes)
        if len(value) != size:
            raise self.exc(f"field {key} must be {size} bytes", self.who)
        return value

    def integer(self, key: str, low: int, high: int, optional: bool = False) -> int | None:
        value = self.get(key, int, type(None)) if optional else self.get(key, int)
        if value is not None and not low <= value <= high:
            raise self.exc(f"field {key} out of range", self.who)
        return value


# --- addresses ------------------------------------------------------------------------------


def endpoint_string(ip: str, port: int) -> str:
    """A Twisted client endpoint string for an IP literal: ``tcp:192.0.2.5:40123``; an IPv6
    literal gets its colons escaped, and an IPv4-mapped IPv6 address becomes IPv4."""
    addr = ipaddress.ip_address(ip)
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    host = str(addr).replace(":", "\\:")
    return f"tcp:{host}:{port}"


def parse_endpoint(text: Any, who: str = "?") -> tuple[str, int]:
    """The (ip, port) of an endpoint string `endpoint_string` writes; anything else (host
    names, other endpoint types, options) raises `BadLobbyMessage`, so a peer cannot make us
    dial a Unix socket or a TLS endpoint with files."""
    if type(text) is not str or len(text) > 80 or not text.startswith("tcp:"):
        raise BadLobbyMessage("an address is tcp:IP:PORT", who)
    host, sep, port = text[4:].rpartition(":")
    if not sep or not port.isdigit() or len(port) > 5 or not 1 <= int(port) <= 65535:
        raise BadLobbyMessage("an address is tcp:IP:PORT", who)
    try:
        ip = ipaddress.ip_address(host.replace("\\:", ":"))
    except ValueError as exc:
        raise BadLobbyMessage("an address is tcp:IP:PORT with an IP literal", who) from exc
    if endpoint_string(str(ip), int(port)) != text:
        raise BadLobbyMessage("address not in canonical form", who)
    return str(ip), int(port)


def is_loopback(ip: str) -> bool:
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return addr.is_loopback


def out_of_scope(ip: str, lobby_ip: str | None) -> str:
    """Why a seat's address in a start message is not one to dial ("" if it is), for a
    guest that reached the lobby at ``lobby_ip``. The host names the address each seat
    connected from; a lying host could name any, and every guest would redial it for the
    game. So: never an address nobody can be at (unspecified, multicast, broadcast);
    from a lobby on the LAN, no address on the internet; from a lobby elsewhere than this
    machine, never this machine's loopback (the honest host names a LAN address instead).

        >>> out_of_scope("198.18.0.7", "198.18.0.2"), out_of_scope("127.0.0.1", "127.0.0.1")
        ('', '')
        >>> out_of_scope("8.8.8.8", "192.168.1.4")
        'an internet address, for a table on the LAN'
    """
    addr = ipaddress.ip_address(ip)
    if not _usable(ip) or str(addr) == "255.255.255.255":
        return "an address no seat can be at"
    if lobby_ip is None:
        return ""
    try:
        lobby = ipaddress.ip_address(lobby_ip)
    except ValueError:
        return ""
    if isinstance(lobby, ipaddress.IPv6Address) and lobby.ipv4_mapped is not None:
        lobby = lobby.ipv4_mapped
    if addr.is_loopback and not lobby.is_loopback:
        return "this machine's loopback, for a table on another machine"
    if addr.is_global and not lobby.is_global:
        return "an internet address, for a table on the LAN"
    return ""


def _usable(ip: str) -> bool:
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return False
    return not addr.is_unspecified and not addr.is_multicast


# --- participants, roster, seating ----------------------------------------------------------


def fingerprint(key: bytes) -> str:
    """A short human-comparable name for a public key (16 hex digits)."""
    return hashlib.sha256(key).digest()[:FINGERPRINT_SIZE].hex()


@dataclass(frozen=True)
class Participant:
    """One would-be seat: a display name, the raw Ed25519 public key it will sign game
    frames with, the port its game mesh already listens on, and whether it is a human or
    an AI. ``wanted_seat`` is honoured when that seat is free."""

    name: str
    public_key: bytes
    game_port: int
    kind: str = "human"
    wanted_seat: int | None = None

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
    #: 1, declaring team, starter, first drawer] from the hands played so far; None for a
    #: new game. It is part of the table id, so every seat starts from the same place.
    carry: tuple[Any, ...] | None = None


def read_carry(value: Any, players: int, who: str, exc: type[LobbyError]) -> tuple[Any, ...]:
    """A carry as sent: five fields, each checked exactly."""
    if not isinstance(value, list) or len(value) != 5:
        raise exc("a carry is [level, level, declarers, starter, first]", who)
    lv0, lv1, declarers, starter, first = value
    if lv0 not in RANKS or lv1 not in RANKS:
        raise exc("a carry names two levels", who)
    if not (declarers is None or (type(declarers) is int and declarers in (0, 1))):
        raise exc("a carry's declaring team is 0 or 1", who)
    for seat in (starter, first):
        if seat is not None and not (type(seat) is int and 0 <= seat < players):
            raise exc("a carry's seats are seat numbers", who)
    if type(first) is not int:
        raise exc("a carry names the first drawer", who)
    return (lv0, lv1, declarers, starter, first)


def seating_id(name: str, rules: Rules, keys: Iterable[bytes], addresses: dict[int, str],
               names: Iterable[str], kinds: Iterable[str], nonce: bytes,
               carry: tuple[Any, ...] | None = None) -> bytes:
    """The table id: SHA-256 of a canonical msgpack array. Rules go in as sorted
    (option, value) pairs and addresses in seat order, so the encoding does not depend on
    map order. The host nonce makes every table id new even for the same roster."""
    data = [SEATING_VERSION, name, sorted([k, v] for k, v in rules.to_data().items()),
            list(keys), [addresses[s] for s in sorted(addresses)], list(names), list(kinds),
            nonce, list(carry) if carry is not None else None]
    return hashlib.sha256(pack(data)).digest()


# --- AI seat tokens -------------------------------------------------------------------------


def token_id(token: bytes) -> bytes:
    """The public handle of a seat token, sent in clear so the host knows which secret to
    run the PAKE with; the token itself never travels (32 random bytes, so the hash gives
    nothing to guess from)."""
    return hashlib.sha256(b"tractor-token-id" + token).digest()[:TOKEN_ID_SIZE]


@dataclass
class _Token:
    secret: bytes
    seat: int
    expires: float
    used: bool = False  # proven (until its holder joins or leaves)


class TokenBook:
    """One-time AI seat tokens of one table. A token reserves its seat until it expires
    unused or its holder has joined (or dropped).

    Any number of handshakes may run with one token at once, and the first to prove it
    takes it: the token id travels in clear, so a sniffer on the LAN could otherwise keep
    a token busy with handshakes it can never finish and lock the AI out of its seat (the
    connection gate bounds how many such handshakes a source may hold)."""

    def __init__(self, entropy: Callable[[int], bytes] = os.urandom) -> None:
        self._tokens: dict[bytes, _Token] = {}
        self._entropy = entropy

    def issue(self, seats: Iterable[int], now: float) -> list[bytes]:
        out = []
        for seat in seats:
            token = self._entropy(TOKEN_SIZE)
            self._tokens[token_id(token)] = _Token(token, seat, now + TOKEN_TTL)
            out.append(token)
        return out

    def _purge(self, now: float) -> None:
        for tid in [t for t, tok in self._tokens.items() if not tok.used and tok.expires <= now]:
            del self._tokens[tid]

    def begin(self, tid: bytes, now: float, who: str) -> bytes:
        """The secret to run the PAKE with; `BadToken` if there is no usable token."""
        self._purge(now)
        tok = self._tokens.get(tid)
        if tok is None or tok.used:
            raise BadToken("unknown, expired or used seat token", who)
        return tok.secret

    def fail(self, tid: bytes) -> None:
        """A PAKE with this token failed or was cut: nothing changes (the real holder may
        be running its own at the same time)."""

    def succeed(self, tid: bytes, who: str = "?") -> int:
        """The token was proven: it is used now; returns its reserved seat. `BadToken` if
        another connection proved it first, or it expired meanwhile."""
        tok = self._tokens.get(tid)
        if tok is None or tok.used:
            raise BadToken("this seat token was used or expired meanwhile", who)
        tok.used = True
        return tok.seat

    def settle(self, tid: bytes) -> None:
        """Its holder joined or left: forget the token and the reservation."""
        self._tokens.pop(tid, None)

    def revoke(self, tokens: Iterable[bytes]) -> None:
        for token in tokens:
            tok = self._tokens.get(token_id(token))
            if tok is not None and not tok.used:
                del self._tokens[token_id(token)]

    def reserved(self, now: float) -> dict[int, bytes]:
        """Seat -> token id for every live reservation."""
        self._purge(now)
        return {tok.seat: tid for tid, tok in self._tokens.items()}

    def __contains__(self, tid: object) -> bool:
        return tid in self._tokens


# --- the host's state machine ---------------------------------------------------------------


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

_JOIN_FIELDS = ("t", "name", "key", "port", "kind", "seat")


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
        #: An internet table's game address (`rendezvous.internet_address`): every seat
        #: has it (their links are wormholes); None on a LAN.
        self.internet = internet
        self.host_ip = host_ip  #: our address when no connection tells a better one
        self.tokens = TokenBook(entropy)
        self.seats: list[_Member | None] = [None] * rules.players
        self.conns: dict[int, _Conn] = {}
        self.seating: Seating | None = None
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
                raise BadLobbyMessage(f"{_printable(kind)[:20]!r} before joining", who)
            return self._join(conn, c, msg, who, now)
        if kind == "ready":
            flag = _Reader(msg, who, ("t", "ready")).get("ready", bool)
            member = self.seats[c.seat]
            assert member is not None
            member.ready = flag
            return self._changed(now)
        if kind == "leave":
            _Reader(msg, who, ("t",))
            return self.drop(conn, now)
        raise BadLobbyMessage(f"unknown message type {_printable(kind)[:20]!r}", who)

    def _join(self, conn: int, c: _Conn, msg: Any, who: str, now: float) -> list[Send]:
        r = _Reader(msg, who, _JOIN_FIELDS)
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
        participant = Participant(name, key, port, kind, wanted)
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
                    and not is_loopback(m.peer_ip) and _usable(m.local_ip)), self.host_ip)
        out = {}
        for seat, m in enumerate(self.seats):
            assert m is not None
            ip = lan if m.conn == HOST or is_loopback(m.peer_ip) or not _usable(m.peer_ip) \
                else m.peer_ip
            out[seat] = endpoint_string(ip, m.participant.game_port)
        return out

    def _start(self) -> list[Send]:
        members = [m for m in self.seats if m is not None]
        keys = tuple(m.participant.public_key for m in members)
        names = tuple(m.participant.name for m in members)
        kinds = tuple(m.participant.kind for m in members)
        addresses = self.game_addresses()
        table = seating_id(self.name, self.rules, keys, addresses, names, kinds, self.nonce,
                           self.carry)
        seat = self.host_seat()
        self.seating = Seating(table, self.name, self.rules, -1 if seat is None else seat, keys,
                               addresses, names, kinds, self.carry)
        message = {"t": "start", "name": self.name, "rules": self.rules.to_data(),
                   "keys": list(keys), "addresses": [addresses[s] for s in range(len(keys))],
                   "names": list(names), "kinds": list(kinds), "nonce": self.nonce,
                   "table": table, "carry": list(self.carry) if self.carry else None}
        return [(c, message) for c in self.joined()]


# --- the guest's state machine --------------------------------------------------------------

_ROSTER_FIELDS = ("t", "name", "rules", "seats", "reserved", "you")
_START_FIELDS = ("t", "name", "rules", "keys", "addresses", "names", "kinds", "nonce", "table",
                 "carry")


def _read_rules(value: Any, who: str, exc: type[LobbyError] = BadLobbyMessage) -> Rules:
    try:
        return Rules.from_data(value)
    except (RulesError, TypeError) as e:
        raise exc(f"bad rules: {e}", who) from e


class GuestLobby:
    """A participant's view of the host's lobby. ``receive`` returns the new `Roster` or,
    once, the verified `Seating`; anything the host sends that does not check out raises
    (refusals raise the error type the host named)."""

    def __init__(self, me: Participant, who: str = "host",
                 expect_carry: tuple[Any, ...] | None = None) -> None:
        self.me = me
        self.who = who
        #: Rejoining a game at a new table: the start must carry exactly this.
        self.expect_carry = expect_carry
        self.roster: Roster | None = None
        self.seating: Seating | None = None
        #: The IP this guest reached the lobby at (the start's addresses are checked
        #: against its scope); None: not known (a test's in-memory lobby).
        self.lobby_ip: str | None = None
        #: The mailbox this guest reached the lobby through (a seat code), if it did: an
        #: internet table's start must name that mailbox.
        self.mailbox: str | None = None

    def join_message(self) -> dict[str, Any]:
        me = self.me
        return {"t": "join", "name": me.name, "key": me.public_key, "port": me.game_port,
                "kind": me.kind, "seat": me.wanted_seat}

    @staticmethod
    def ready_message(ready: bool) -> dict[str, Any]:
        return {"t": "ready", "ready": bool(ready)}

    @staticmethod
    def leave_message() -> dict[str, Any]:
        return {"t": "leave"}

    def receive(self, msg: Any) -> Roster | Seating:
        who = self.who
        if self.seating is not None:
            raise BadLobbyMessage("message after the start", who)
        if not isinstance(msg, dict) or type(msg.get("t")) is not str:
            raise BadLobbyMessage("a message is a map with a type", who)
        kind = msg["t"]
        if kind == "refused":
            r = _Reader(msg, who, ("t", "code", "why"))
            raise error_for(r.get("code", str), r.get("why", str), who)
        if kind == "roster":
            roster = self._read_roster(msg)
            self.roster = roster
            return roster
        if kind == "start":
            seating = self.verify_start(msg)
            self.seating = seating
            return seating
        raise BadLobbyMessage(f"unknown message type {_printable(kind)[:20]!r}", who)

    def _read_roster(self, msg: Any) -> Roster:
        who = self.who
        r = _Reader(msg, who, _ROSTER_FIELDS)
        name = r.text("name", MAX_TABLE_NAME)
        rules = _read_rules(r.get("rules", dict), who)
        raw_seats = r.get("seats", list)
        if len(raw_seats) != rules.players:
            raise BadLobbyMessage("roster size is not the number of players", who)
        seats: list[SeatInfo | None] = []
        for entry in raw_seats:
            if entry is None:
                seats.append(None)
                continue
            if type(entry) is not list or len(entry) != 4:
                raise BadLobbyMessage("a roster seat is [name, kind, fingerprint, ready]", who)
            s_name, s_kind, fp, ready = entry
            if type(s_name) is not str or not 1 <= len(s_name) <= MAX_NAME \
                    or not s_name.isprintable() or s_kind not in KINDS \
                    or type(fp) is not bytes or len(fp) != FINGERPRINT_SIZE \
                    or type(ready) is not bool:
                raise BadLobbyMessage("bad roster seat", who)
            seats.append(SeatInfo(s_name, s_kind, fp.hex(), ready))
        reserved = r.get("reserved", list)
        if any(type(s) is not int or not 0 <= s < rules.players for s in reserved) \
                or len(set(reserved)) != len(reserved):
            raise BadLobbyMessage("bad reserved seats", who)
        you = r.integer("you", 0, rules.players - 1)
        mine = seats[you] if you is not None else None
        if mine is None or mine.fingerprint != fingerprint(self.me.public_key):
            raise BadLobbyMessage("the roster does not show us at our seat", who)
        return Roster(name, rules, tuple(seats), tuple(sorted(reserved)), you)

    def verify_start(self, msg: Any) -> Seating:
        """Check a start message completely; raises `BadStart` naming the host."""
        who = self.who
        r = _Reader(msg, who, _START_FIELDS, BadStart)
        name = r.text("name", MAX_TABLE_NAME)
        rules = _read_rules(r.get("rules", dict), who, BadStart)
        n = rules.players
        keys, addrs, names, kinds = (r.get(k, list) for k in ("keys", "addresses", "names",
                                                               "kinds"))
        if not len(keys) == len(addrs) == len(names) == len(kinds) == n:
            raise BadStart(f"a start lists {n} seats of everything", who)
        if any(type(k) is not bytes or len(k) != KEY_SIZE for k in keys):
            raise BadStart("keys are 32 bytes", who)
        if len(set(keys)) != n:
            raise BadStart("the same key holds two seats", who)
        if any(type(s) is not str or not 1 <= len(s) <= MAX_NAME or not s.isprintable()
               for s in names):
            raise BadStart("bad name", who)
        if any(k not in KINDS for k in kinds):
            raise BadStart("bad kind", who)
        internet = self._internet_addresses(addrs)
        if internet:
            ports = [self.me.game_port] * n  # no ports: every link is a wormhole
        else:
            try:
                endpoints = [parse_endpoint(a, who) for a in addrs]
            except BadLobbyMessage as exc:
                raise BadStart(exc.why, who) from exc
            ports = [port for _, port in endpoints]
            for ip, _ in endpoints:
                why = out_of_scope(ip, self.lobby_ip)
                if why:
                    raise BadStart(f"the start names {ip}, {why}", who)
        nonce = r.blob("nonce", NONCE_SIZE)
        table = r.blob("table", 32)
        if self.me.public_key not in keys:
            raise BadStart("our key is not seated", who)
        seat = keys.index(self.me.public_key)
        # An AI sits under the name the host gave it (`ai_seat_name`); a person's is theirs.
        if ports[seat] != self.me.game_port or kinds[seat] != self.me.kind \
                or (names[seat] != self.me.name and self.me.kind != "ai"):
            raise BadStart("our seat does not carry our port, name and kind", who)
        if self.roster is not None and self.roster.you != seat:
            raise BadStart(f"we sat at seat {self.roster.you}, the start says {seat}", who)
        addresses = dict(enumerate(addrs))
        raw_carry = msg.get("carry")
        carry = None if raw_carry is None else read_carry(raw_carry, n, who, BadStart)
        if self.expect_carry is not None and carry != self.expect_carry:
            raise BadStart("the game would go on from another place than ours", who)
        if seating_id(name, rules, keys, addresses, names, kinds, nonce, carry) != table:
            raise BadStart("the table id is not the hash of this roster", who)
        return Seating(table, name, rules, seat, tuple(keys), addresses, tuple(names),
                       tuple(kinds), carry)


    def _internet_addresses(self, addrs: list[Any]) -> bool:
        """Whether the start is an internet table's (every seat the same internet address,
        which this guest may follow), else False; `BadStart` for a mix, or for a mailbox
        this guest did not come through. A guest on this machine (an AI peer the host
        started) follows the host's; a LAN guest is never sent to a server outside."""
        who = self.who
        if not any(is_internet_address(a) for a in addrs):
            return False
        if len(set(addrs)) != 1:
            raise BadStart("an internet table gives every seat the same address", who)
        try:
            mailbox, _relay = read_internet_address(addrs[0])
        except RendezvousError as exc:
            raise BadStart(str(exc), who) from exc
        if self.mailbox is not None:
            if mailbox != self.mailbox:
                raise BadStart(f"the start names the mailbox {mailbox}, not the one we came "
                               f"through ({self.mailbox})", who)
        elif self.lobby_ip is None or not is_loopback(self.lobby_ip):
            raise BadStart("an internet table's start, for a guest that came over the LAN",
                           who)
        return True


# --- the AI server's state machine ----------------------------------------------------------

MAX_FILL = MAX_PLAYERS - 1
_FILL_FIELDS = ("fill", "lobby", "tokens", "table")
PAKE_SIZE = 33  #: a SPAKE2 message: side byte + an Ed25519 group element


@dataclass(frozen=True)
class FillRequest:
    """What a host asks an AI server: ``count`` AI players for the lobby at ``lobby``, one
    per token."""

    count: int
    lobby: str
    tokens: tuple[bytes, ...]
    table: str


def read_fill_request(msg: Any, who: str) -> FillRequest:
    r = _Reader(msg, who, _FILL_FIELDS)
    count = r.integer("fill", 1, MAX_FILL)
    lobby = r.get("lobby", str)
    parse_endpoint(lobby, who)
    tokens = r.get("tokens", list)
    if len(tokens) != count or any(type(t) is not bytes or len(t) != TOKEN_SIZE
                                   for t in tokens):
        raise BadLobbyMessage("one 32-byte token per AI asked for", who)
    table = r.text("table", MAX_TABLE_NAME)
    assert count is not None
    return FillRequest(count, lobby, tuple(tokens), table)


SpawnFn = Callable[[str, bytes, str], None]
#: ``admit(lobby_address, count)``: the AI layer grants the players of one request before
#: any is spawned, or raises `AiServerBusy` (the whole request is refused).
AdmitFn = Callable[[str, int], None]


FILL_HOST_ID = b"tractor-fill/2 host"
FILL_SERVER_ID = b"tractor-fill/2 server"


def _fill_confirm(key: bytes, box: bytes, server_msg: bytes, host_msg: bytes,
                  identity: bytes) -> bytes:
    """What a host proves it knows the AI server's passphrase with: a MAC under the
    SPAKE2 key over everything both sides said (the box key, both PAKE messages, the
    server's identity), so it fits this connection only."""
    transcript = pack([FILL_VERSION, box, server_msg, host_msg, identity])
    return hmac.new(key, b"tractor-fill/2 confirm\x00" + transcript, hashlib.sha256).digest()


@dataclass
class AiServerMachine:
    """One connection to an AI server's fill endpoint.

    The server greets with an ephemeral X25519 key; the host answers with one request
    sealed to it (`nacl.public.SealedBox`), so seat tokens never cross the LAN in clear.
    The lobby address's IP is replaced by the IP the request came from: an AI server only
    ever dials back the machine that asked, never a third host named in a message.
    ``spawn(lobby_address, token, table_name)`` is called once per token, after ``admit``
    (the AI layer's share of its players, `AdmitFn`) granted them all.

    A server with a ``passphrase`` adds its SPAKE2 message to the greeting; the host's
    request carries its own and a confirmation (`_fill_confirm`), which the server checks
    before anything is spawned. Each request is one online guess, bounded by
    ``limiter``; the server never confirms first, so nothing can be checked offline.
    """

    spawn: SpawnFn
    peer_ip: str
    who: str
    limiter: AttemptLimiter
    #: The server's long-lived Ed25519 identity (what hosts pin), signing the box key.
    identity: Ed25519PrivateKey | None = None
    box_key: Any = None  # nacl.public.PrivateKey
    passphrase: str | None = None
    admit: AdmitFn | None = None
    done: bool = False
    requests: list[FillRequest] = field(default_factory=list)
    spawn_errors: list[str] = field(default_factory=list)
    _spake: Any = None
    _server_msg: bytes = b""

    def __post_init__(self) -> None:
        from nacl.public import PrivateKey
        if self.box_key is None:
            self.box_key = PrivateKey.generate()

    def greeting(self) -> bytes:
        """The fresh box key (and PAKE message), signed by the identity key: only a host
        that checked the signature against the key it chose seals its seat tokens to the
        box key."""
        from spake2 import SPAKE2_B

        from tractor.net.lobby.pake import passphrase_bytes
        if self.identity is None:
            self.identity = Ed25519PrivateKey.generate()
        box = bytes(self.box_key.public_key)
        if self.passphrase:
            self._spake = SPAKE2_B(passphrase_bytes(self.passphrase), idA=FILL_HOST_ID,
                                   idB=FILL_SERVER_ID)
            self._server_msg = self._spake.start()
        greeting = {"v": FILL_VERSION, "box": box,
                    "id": self.identity.public_key().public_bytes_raw(),
                    "sig": self.identity.sign(GREETING_CONTEXT + box + self._server_msg)}
        if self._server_msg:
            greeting["pake"] = self._server_msg
        return pack(greeting)

    def receive(self, frame: bytes, now: float) -> bytes:
        """The reply to send; raises `LobbyError` (nothing spawned) on a bad request."""
        from nacl.exceptions import CryptoError
        from nacl.public import SealedBox
        if self.done:
            raise BadLobbyMessage("one request per connection", self.who)
        if type(frame) is not bytes or len(frame) > MAX_LOBBY_FRAME:
            raise BadLobbyMessage("request too large", self.who)
        why = self.limiter.why_not(self.peer_ip, now)
        if why:
            raise TooManyAttempts(why, self.who)
        try:
            plain = SealedBox(self.box_key).decrypt(frame)
        except (CryptoError, ValueError, TypeError) as exc:
            raise BadLobbyMessage("request not sealed to this server", self.who) from exc
        msg = unpack(plain, self.who, max_bin=TOKEN_SIZE + 1)
        # Every request counts against the address (a host asks a few times an evening);
        # with a passphrase, a wrong one is a wrong guess.
        attempt = self.limiter.start(self.peer_ip, now)
        if self._spake is not None:
            self._check_passphrase(msg, attempt)
        elif isinstance(msg, dict) and ("pake" in msg or "confirm" in msg):
            raise UnexpectedPassphrase("this AI server has no passphrase", self.who)
        if isinstance(msg, dict):
            msg = {k: v for k, v in msg.items() if k not in ("pake", "confirm")}
        request = read_fill_request(msg, self.who)
        _, port = parse_endpoint(request.lobby, self.who)
        lobby = endpoint_string(self.peer_ip, port)
        self.done = True
        if self.admit is not None:
            self.admit(lobby, request.count)  # AiServerBusy: nothing spawned
        self.requests.append(request)
        spawned = 0
        for token in request.tokens:
            try:
                self.spawn(lobby, token, request.table)
            except Exception as exc:  # the AI layer's bug must not kill the server
                self.spawn_errors.append(f"{type(exc).__name__}: {exc}"[:MAX_WHY])
                break
            spawned += 1
        return pack({"ok": spawned})

    def _check_passphrase(self, msg: Any, attempt: Attempt) -> None:
        if not isinstance(msg, dict) or "pake" not in msg:
            self.limiter.fail(attempt)
            raise PassphraseRequired("this AI server needs a passphrase", self.who)
        host_msg, confirm = msg.get("pake"), msg.get("confirm")
        if type(host_msg) is not bytes or type(confirm) is not bytes or len(confirm) != 32:
            self.limiter.fail(attempt)
            raise BadLobbyMessage("a passphrase proof is a PAKE message and 32 bytes", self.who)
        assert self.identity is not None
        try:
            key = self._spake.finish(host_msg)
        except Exception as exc:  # spake2 raises plain ValueError/AssertionError too
            self.limiter.fail(attempt)
            raise BadLobbyMessage(f"bad key exchange message: {type(exc).__name__}",
                                  self.who) from exc
        expected = _fill_confirm(key, bytes(self.box_key.public_key), self._server_msg,
                                 host_msg, self.identity.public_key().public_bytes_raw())
        if not hmac.compare_digest(confirm, expected):
            self.limiter.fail(attempt)
            raise WrongPassphrase("wrong AI server passphrase", self.who)
        self.limiter.succeed(attempt)


def read_greeting(greeting: bytes, who: str) -> tuple[bytes, bytes, bytes]:
    """(identity key, box key, PAKE message or b"") of an AI server's greeting, its
    signature checked."""
    msg = unpack(greeting, who)
    fields = ("v", "box", "id", "sig") + (("pake",) if isinstance(msg, dict)
                                          and "pake" in msg else ())
    r = _Reader(msg, who, fields)
    if r.get("v", str) != FILL_VERSION:
        raise BadLobbyMessage("not a tractor AI server of this version", who)
    box, identity, sig = r.blob("box", 32), r.blob("id", 32), r.blob("sig", 64)
    server_msg = r.blob("pake", PAKE_SIZE) if "pake" in fields else b""
    try:
        Ed25519PublicKey.from_public_bytes(identity).verify(
            sig, GREETING_CONTEXT + box + server_msg)
    except (InvalidSignature, ValueError) as exc:
        raise BadLobbyMessage("the AI server's greeting is not signed by its key", who) from exc
    return identity, box, server_msg


def fill_request_frame(greeting: bytes, count: int, lobby: str, tokens: list[bytes],
                       table: str, who: str, expect: str | None = None,
                       passphrase: str | None = None) -> tuple[bytes, bytes]:
    """The host's side: read an AI server's greeting and, if its identity key has the
    fingerprint ``expect`` (the server the host chose), seal the request to its box key,
    with the proof of ``passphrase`` if the server asks for one.
    Returns (the sealed request, the server's identity key)."""
    from nacl.public import PublicKey, SealedBox
    from spake2 import SPAKE2_A

    from tractor.net.lobby.pake import passphrase_bytes
    identity, box, server_msg = read_greeting(greeting, who)
    if expect is not None and fingerprint(identity) != expect:
        raise WrongServerKey(f"it answered with key {fingerprint(identity)}, not the key "
                             f"{expect} chosen: no seat token was sent", who)
    request: dict[str, Any] = {"fill": count, "lobby": lobby, "tokens": list(tokens),
                               "table": table}
    if server_msg:
        if not passphrase:
            raise PassphraseRequired("this AI server needs a passphrase: no seat token was "
                                     "sent", who)
        spake = SPAKE2_A(passphrase_bytes(passphrase), idA=FILL_HOST_ID, idB=FILL_SERVER_ID)
        host_msg = spake.start()
        try:
            key = spake.finish(server_msg)
        except Exception as exc:
            raise BadLobbyMessage(f"bad key exchange message: {type(exc).__name__}",
                                  who) from exc
        request["pake"] = host_msg
        request["confirm"] = _fill_confirm(key, box, server_msg, host_msg, identity)
    return SealedBox(PublicKey(box)).encrypt(pack(request)), identity


def read_fill_reply(frame: bytes, who: str) -> int:
    msg = unpack(frame, who)
    if isinstance(msg, dict) and msg.get("t") == "refused":
        r = _Reader(msg, who, ("t", "code", "why"))
        raise error_for(r.get("code", str), r.get("why", str), who)
    r = _Reader(msg, who, ("ok",))
    n = r.integer("ok", 0, MAX_FILL)
    assert n is not None
    return n
