"""The lobby's message encoding: the sizes of its fields, bounded decoding of a frame, and
exact-type reading of a message's fields.

Every message from a peer is hostile until checked: `unpack` bounds every size before
anything is allocated, and a `FieldReader` checks each field's exact type and size, raising
a `LobbyError` (by default `BadLobbyMessage`) naming the peer, so a reader refuses a bad
message before its caller changes anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from tractor.net.codec import CodecError, Limits, decode, encode
from tractor.net.lobby.errors import BadLobbyMessage, LobbyError, printable
from tractor.rules import MAX_PLAYERS, Rules

MAX_LOBBY_FRAME = 8 * 1024  #: a start message for 12 seats is about 2 KiB
MAX_NAME = 32  #: characters in a display name
MAX_TABLE_NAME = 48
KINDS = ("human", "ai")
KEY_SIZE = 32  #: raw Ed25519 public key
NONCE_SIZE = 16
TOKEN_SIZE = 32
TOKEN_ID_SIZE = 8
FINGERPRINT_SIZE = 8

#: A lobby message's bounds besides the lengths each call names: a start message for 12
#: seats (the largest) holds about a hundred values, nested three deep.
LOBBY_LIMITS = Limits(max_bytes=MAX_LOBBY_FRAME, max_depth=6, max_elements=1024,
                      max_memory=256 * 1024)
#: Keys in a lobby message's largest map: the rules, one key per option when none is at its
#: default (`Rules.to_data` leaves those out), with room for a few options to come. (It was
#: 16: three house rules away from their defaults made a start message every guest and AI
#: refused.)
MAX_MAP = len(Rules.option_names()) + 8


def unpack(data: bytes, who: str, *, max_bin: int = 64, max_str: int = 1024,
           max_array: int = MAX_PLAYERS + 4, max_map: int = MAX_MAP) -> Any:
    """One msgpack value from a peer, with every size bounded; `BadLobbyMessage` otherwise."""
    limits = replace(LOBBY_LIMITS, max_bin=max_bin, max_str=max_str, max_array=max_array,
                     max_map=max_map)
    try:
        return decode(data, limits, who)
    except CodecError as exc:
        raise BadLobbyMessage(f"unreadable message: {exc.reason}", who) from None


def pack(value: Any) -> bytes:
    return encode(value)


class FieldReader:
    """Exact-type field access on a message map from ``who``: a message that is not a map,
    or holds a field not in ``fields``, is refused at once; every later miss (a field
    missing, of the wrong type or size) raises ``exc`` too."""

    def __init__(self, msg: Any, who: str, fields: Iterable[str], exc: type[LobbyError]
                 = BadLobbyMessage) -> None:
        self.who = who
        self.exc = exc
        if not isinstance(msg, dict):
            raise exc("a message is a map", who)
        extra = set(msg) - set(fields)
        if extra:
            raise exc(f"unexpected field(s) {printable(', '.join(sorted(extra)))[:60]}", who)
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
        value: str = self.get(key, str)
        if not 1 <= len(value) <= limit or not value.isprintable() or value != value.strip():
            raise self.exc(f"field {key} must be 1 to {limit} printable characters", self.who)
        return value

    def blob(self, key: str, size: int) -> bytes:
        value: bytes = self.get(key, bytes)
        if len(value) != size:
            raise self.exc(f"field {key} must be {size} bytes", self.who)
        return value

    def integer(self, key: str, low: int, high: int, optional: bool = False) -> int | None:
        value: int | None = self.get(key, int, type(None)) if optional else self.get(key, int)
        if value is not None and not low <= value <= high:
            raise self.exc(f"field {key} out of range", self.who)
        return value
