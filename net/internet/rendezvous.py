"""Tables across the internet, the pure part: how seats find each other through a
magic-wormhole mailbox server, with no game server in between.

Friends in different homes sit behind NAT. A mailbox server (magic-wormhole's: the public
one by default) lets two programs that know the same short code meet; SPAKE2 turns the
code into a shared key, so the code cannot be guessed offline and the server never learns
it; Dilation then gives the pair a durable connection, direct when one side can reach the
other, else glued through a transit relay. Neither server sees a card: what crosses them
is encrypted, and every frame is signed and the deck committed as on a LAN.

Three kinds of code:

- A *seat code* (``7-guitarist-revenge-bodyguard``): allocated by the host's mailbox for
  one free seat, read out to a friend, who runs ``tractor join CODE``; the lobby runs over
  that wormhole.
- A *watch code* (four words, ``5-guitarist-revenge-bodyguard-tactics``): opened by the
  host's seat once the game started, for one watcher (``tractor watch CODE``); the LAN's
  watcher protocol runs over that wormhole (`net.internet.watch_codes`). Its own
  application id, subchannel and length (`CodeKind`): a watch code never reaches a
  lobby, and a seat code never reaches the watchers.
- A *pair code*, one for every pair of seats, for the game's links. Both seats of a pair
  work it out alone from an X25519 agreement between their two seat keys (the Ed25519 keys
  of the seating, converted by libsodium) and the table id, so only those two know it: a
  third seat cannot claim the pair's nameplate first and keep the pair apart. Its
  nameplate is an 18-digit number (the mailbox server takes any number a client claims).

Every seat of an internet table has the same game address, `internet_address` (the
mailbox and the relay the host chose); it is part of the table id like any address.

>>> address = internet_address("ws://198.18.0.1:4000/v1", "tcp:198.18.0.1:4001")
>>> address
'wormhole:ws://198.18.0.1:4000/v1 tcp:198.18.0.1:4001'
>>> read_internet_address(address)
('ws://198.18.0.1:4000/v1', 'tcp:198.18.0.1:4001')
>>> is_seat_code("7-guitarist-revenge"), is_seat_code("tcp:192.0.2.5:40123")
(True, False)
>>> is_watch_code("5-guitarist-revenge-bodyguard-tactics"), is_watch_code("7-a-b-c")
(True, False)
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from nacl import bindings as sodium
from nacl.exceptions import CryptoError

from tractor.net.errors import NetError
from tractor.net.internet.seat_code_limits import CODE_WORDS, WATCH_CODE_WORDS

#: The application id: it keeps this program's nameplates apart from file transfers on a
#: shared mailbox server (the same id on every seat).
APPID = "tuolaji.tractor/table/v1"
#: magic-wormhole's public servers (run by its community): the defaults.
DEFAULT_MAILBOX = "ws://relay.magic-wormhole.io:4000/v1"
DEFAULT_RELAY = "tcp:transit.magic-wormhole.io:4001"
PREFIX = "wormhole:"
#: The subchannel names (Dilation) of the lobby and of the game's links.
LOBBY_SUBPROTOCOL = "tractor-lobby"
MESH_SUBPROTOCOL = "tractor-mesh"
#: Watch codes' application id (their nameplates are apart from seat codes') and subchannel.
WATCH_APPID = "tuolaji.tractor/watch/v1"
WATCH_SUBPROTOCOL = "tractor-watch"
MAX_URL = 200

_URL = re.compile(r"wss?://[A-Za-z0-9.\-\[\]:]+(/[A-Za-z0-9._~/\-]*)?")
_RELAY = re.compile(r"tcp:([A-Za-z0-9.\-]+):(\d{1,5})")  # a host name or an IPv4 address
_SEAT_CODE = re.compile(r"\d{1,18}-[a-z]+(-[a-z]+)+")


@dataclass(frozen=True)
class CodeKind:
    """What sets one kind of code apart: its name for a person, its words after the
    number, the application id its wormholes use, the subchannel the host listens on, and
    the command that takes it."""

    name: str
    words: int
    appid: str
    subprotocol: str
    command: str

    @property
    def watch(self) -> bool:
        return self.subprotocol == WATCH_SUBPROTOCOL


SEAT_CODE = CodeKind("seat code", CODE_WORDS, APPID, LOBBY_SUBPROTOCOL, "tractor join")
WATCH_CODE = CodeKind("watch code", WATCH_CODE_WORDS, WATCH_APPID, WATCH_SUBPROTOCOL,
                      "tractor watch")


class RendezvousError(NetError, ValueError):
    """A mailbox URL, relay, code or internet address that does not parse."""


def check_mailbox(url: str) -> str:
    """``url`` if it is a websocket URL (ws:// or wss://, no spaces), else
    `RendezvousError` saying what one looks like."""
    if type(url) is not str or len(url) > MAX_URL or not _URL.fullmatch(url):
        raise RendezvousError(f"a mailbox is a websocket URL like {DEFAULT_MAILBOX}")
    return url


def check_relay(relay: str) -> str:
    """``relay`` if it is ``tcp:HOST:PORT``, else `RendezvousError`."""
    m = _RELAY.fullmatch(relay) if type(relay) is str and len(relay) <= MAX_URL else None
    if m is None or not 1 <= int(m.group(2)) <= 65535:
        raise RendezvousError(f"a relay is tcp:HOST:PORT, like {DEFAULT_RELAY}")
    return relay


def internet_address(mailbox: str, relay: str) -> str:
    """The game address of every seat of an internet table."""
    return f"{PREFIX}{check_mailbox(mailbox)} {check_relay(relay)}"


def is_internet_address(address: object) -> bool:
    return type(address) is str and address.startswith(PREFIX)


def read_internet_address(address: object) -> tuple[str, str]:
    """(mailbox, relay) of an internet address; `RendezvousError` if it is not one."""
    if not is_internet_address(address):
        raise RendezvousError("not an internet table's address")
    assert isinstance(address, str)
    mailbox, _, relay = address[len(PREFIX):].partition(" ")
    return check_mailbox(mailbox), check_relay(relay)


def is_seat_code(text: str) -> bool:
    """Whether ``text`` reads as a seat code (``7-guitarist-revenge``), not an address."""
    return bool(_SEAT_CODE.fullmatch(text.strip().lower()))


def is_watch_code(text: str) -> bool:
    """Whether ``text`` reads as a watch code: a number and `WATCH_CODE_WORDS` words."""
    return is_seat_code(text) and text.strip().count("-") == WATCH_CODE_WORDS


def pair_secret(my_seed: bytes, their_public: bytes) -> bytes:
    """The X25519 secret of two seats, from this seat's Ed25519 seed (32 bytes) and the
    other's raw Ed25519 public key. Raises `RendezvousError` for a key that gives none (a
    small-order point)."""
    _pk, secret_key = sodium.crypto_sign_seed_keypair(my_seed)
    try:
        mine = sodium.crypto_sign_ed25519_sk_to_curve25519(secret_key)
        theirs = sodium.crypto_sign_ed25519_pk_to_curve25519(their_public)
        shared = sodium.crypto_scalarmult(mine, theirs)
    except CryptoError as exc:  # libsodium refuses a key it cannot convert
        raise RendezvousError(f"no key agreement with that key: {exc}") from exc
    if shared == bytes(32):
        raise RendezvousError("no key agreement with that key: a small-order point")
    return shared


def pair_code(table: bytes, seat_a: int, seat_b: int, secret: bytes) -> str:
    """The wormhole code of the link between two seats of ``table``: the same for both
    (whichever asks), different for every pair and table, known to no third seat.

    >>> c = pair_code(bytes(32), 0, 2, bytes(range(32)))
    >>> c == pair_code(bytes(32), 2, 0, bytes(range(32))), c.split("-")[0].isdigit()
    (True, True)
    """
    low, high = sorted((seat_a, seat_b))
    digest = hashlib.sha256(b"tractor pair code\x00" + table + bytes([low, high])
                            + secret).digest()
    nameplate = 10**17 + int.from_bytes(digest[:8], "big") % (9 * 10**17)
    return f"{nameplate}-{digest[8:24].hex()}"


__all__ = ["APPID", "DEFAULT_MAILBOX", "DEFAULT_RELAY", "LOBBY_SUBPROTOCOL",
           "MESH_SUBPROTOCOL", "WATCH_APPID", "WATCH_SUBPROTOCOL", "CodeKind", "SEAT_CODE",
           "WATCH_CODE", "RendezvousError", "is_watch_code", "check_mailbox", "check_relay",
           "internet_address", "is_internet_address", "read_internet_address", "is_seat_code",
           "pair_secret", "pair_code"]
