"""Asking an AI server for players, as plain state: the host's sealed fill request and
the server's side of one fill connection (`AiServerMachine`).

The server greets with a fresh X25519 box key signed by its long-lived identity key (what
hosts pin); the host checks the signature against the server it chose and seals its
request, with one seat token per AI asked for, to the box key, so the tokens never cross
the LAN in clear. A server with a passphrase adds a SPAKE2 message to its greeting and the
host proves the passphrase in the request (`_fill_confirm`). The network side is
`net/lobby/ai_server.py`.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from nacl.exceptions import CryptoError
from nacl.public import PrivateKey, PublicKey, SealedBox
from spake2 import SPAKE2_A, SPAKE2_B

from tractor.errors import TractorError
from tractor.net.lobby.addresses import parse_endpoint
from tractor.net.lobby.errors import (
    MAX_WHY,
    BadLobbyMessage,
    PassphraseRequired,
    TooManyAttempts,
    UnexpectedPassphrase,
    WrongPassphrase,
    WrongServerKey,
    error_for,
)
from tractor.net.lobby.guess_line import Attempt, AttemptLimiter
from tractor.net.lobby.messages import (
    MAX_LOBBY_FRAME,
    MAX_TABLE_NAME,
    TOKEN_SIZE,
    FieldReader,
    pack,
    unpack,
)
from tractor.net.lobby.pake import KEY_EXCHANGE_REFUSALS, passphrase_bytes
from tractor.net.lobby.seating import fingerprint
from tractor.net.mesh.endpoints import endpoint_string
from tractor.rules import MAX_PLAYERS

FILL_VERSION = "tractor-fill/2"  #: 2: the greeting is signed by the server's identity key
#: Prefix of what an AI server's identity key signs in its greeting (its box key).
GREETING_CONTEXT = b"tractor-fill/2 greeting\x00"
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
    r = FieldReader(msg, who, _FILL_FIELDS)
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


#: ``spawn(lobby_address, token, table_name)``: the AI layer starts one player, or raises
#: one of `SPAWN_FAILURES`: the process could not start (`OSError`), no player for it now
#: (`RuntimeError`, `tractor.ai.hosting.runner.AiPlayers.spawn`), or its own refusal.
SpawnFn = Callable[[str, bytes, str], None]
SPAWN_FAILURES = (OSError, RuntimeError, TractorError)
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
        if self.box_key is None:
            self.box_key = PrivateKey.generate()

    def greeting(self) -> bytes:
        """The fresh box key (and PAKE message), signed by the identity key: only a host
        that checked the signature against the key it chose seals its seat tokens to the
        box key."""
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
            except SPAWN_FAILURES as exc:  # told to the host as fewer players; logged
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
        except KEY_EXCHANGE_REFUSALS as exc:
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
    r = FieldReader(msg, who, fields)
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
        except KEY_EXCHANGE_REFUSALS as exc:
            raise BadLobbyMessage(f"bad key exchange message: {type(exc).__name__}",
                                  who) from exc
        request["pake"] = host_msg
        request["confirm"] = _fill_confirm(key, box, server_msg, host_msg, identity)
    return SealedBox(PublicKey(box)).encrypt(pack(request)), identity


def read_fill_reply(frame: bytes, who: str) -> int:
    msg = unpack(frame, who)
    if isinstance(msg, dict) and msg.get("t") == "refused":
        r = FieldReader(msg, who, ("t", "code", "why"))
        raise error_for(r.get("code", str), r.get("why", str), who)
    r = FieldReader(msg, who, ("ok",))
    n = r.integer("ok", 0, MAX_FILL)
    assert n is not None
    return n
