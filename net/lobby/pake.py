"""Authenticating a lobby connection with the table passphrase (or an AI seat token),
without the passphrase ever crossing the network: SPAKE2, then key confirmation, then every
lobby message under an HMAC keyed from the shared secret.

The exchange, three frames, the same with or without a passphrase:

1. guest -> host, hello: ``{"v", "auth": "none"|"pass"|"token", "nonce", "pake"?, "tid"?}``
   (``pake``: the guest's SPAKE2 message; ``tid``: the public id of a seat token);
2. host -> guest, welcome: ``{"v", "name", "nonce", "pake"?, "confirm"}`` or a refusal;
   with a passphrase, when the table has no turn free for a guess, first ``{"wait": s}``:
   the hello waits in the table's line (`tractor.net.lobby.guess_line`), at most ``s`` seconds,
   for its welcome;
3. guest -> host: ``{"confirm"}``.

Both sides hash a transcript (version, table name, mode, token id, both nonces, both SPAKE2
messages) and derive four keys from the SPAKE2 key: one confirmation key per side and one
MAC key per direction. A wrong passphrase shows up as a confirmation that does not match:
`WrongPassphrase` on both sides, and the only thing learned is whether that one guess was
right (SPAKE2 gives an attacker one online guess per run; `AttemptLimiter` allows five a
minute per address and 240 an hour per table). Without a passphrase the same frames run
with an empty secret: the MACs then only check integrity, not who sent them.

After the handshake, every frame is ``[body, tag]`` with ``tag = HMAC(direction key,
sequence number || body)``; the body is only unpacked once the tag checks, so an injected,
replayed or reordered frame is refused before it is even parsed.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from spake2 import SPAKE2_A, SPAKE2_B, SPAKEError
from spake2.ed25519_basic import NotOnCurve

from tractor.net.lobby.errors import (
    BadLobbyMessage,
    BadToken,
    LobbyError,
    PassphraseRequired,
    TooManyAttempts,
    UnexpectedPassphrase,
    WrongPassphrase,
    error_for,
    printable,
)
from tractor.net.lobby.guess_line import Attempt, AttemptLimiter, Place
from tractor.net.lobby.messages import (
    MAX_LOBBY_FRAME,
    MAX_TABLE_NAME,
    NONCE_SIZE,
    TOKEN_ID_SIZE,
    TOKEN_SIZE,
    FieldReader,
    pack,
    unpack,
)
from tractor.net.lobby.tokens import TokenBook, token_id

#: The lobby's protocol, said in the first message each way. /2: a `ready` names the settings
#: it was said to, an AI says its level, a start carries the AI seats' levels (issue 32). A
#: different version is refused at the hello, in words, rather than at a field it lacks.
LOBBY_VERSION = "tractor-lobby/2"
PAKE_MESSAGE_SIZE = 33  #: side byte + an Ed25519 group element
MAX_PASSPHRASE = 256
ID_GUEST = b"tractor-lobby/1 guest"
ID_HOST = b"tractor-lobby/1 host"
TAG_SIZE = 32
MODES = ("none", "pass", "token")
MAX_WAIT = 3600  #: seconds a guest agrees to wait for its turn
#: What SPAKE2's ``finish`` raises for the other side's message when it refuses it: its own
#: errors (a message of the same side, a reflected one), a point not on the curve, a point
#: outside the group or the zero point (plain `ValueError`). Anything else is a bug.
KEY_EXCHANGE_REFUSALS = (SPAKEError, NotOnCurve, ValueError)



def other_version(theirs: str, side: str) -> str:
    """The refusal of a hello in another version of the lobby's protocol.

    >>> other_version("tractor-lobby/1", "guest")[:48]
"the guest's tractor speaks tractor-lobby/1, this"
    """
    return (f"the {side}'s tractor speaks {printable(theirs)[:24]}, this one {LOBBY_VERSION}: "
            "both need the same version")

def passphrase_bytes(passphrase: str) -> bytes:
    """The password SPAKE2 runs with: the passphrase in NFC, so the same words typed on two
    keyboards (composed or decomposed accents) are the same password."""
    if type(passphrase) is not str or not 1 <= len(passphrase) <= MAX_PASSPHRASE:
        raise ValueError(f"a passphrase is 1 to {MAX_PASSPHRASE} characters")
    return unicodedata.normalize("NFC", passphrase).encode("utf-8")


def _transcript(name: str, mode: str, tid: bytes, guest_nonce: bytes, host_nonce: bytes,
                guest_msg: bytes, host_msg: bytes) -> bytes:
    return hashlib.sha256(pack([LOBBY_VERSION, name, mode, tid, guest_nonce, host_nonce,
                                guest_msg, host_msg])).digest()


def _derive(secret: bytes, label: bytes, transcript: bytes) -> bytes:
    return hmac.new(secret, b"tractor-lobby/1 " + label + b"\x00" + transcript,
                    hashlib.sha256).digest()


@dataclass
class _Keys:
    host_confirm: bytes
    guest_confirm: bytes
    guest_to_host: bytes
    host_to_guest: bytes

    @classmethod
    def derive(cls, secret: bytes, transcript: bytes) -> _Keys:
        keys = [_derive(secret, label, transcript) for label in
                (b"host confirm", b"guest confirm", b"guest to host", b"host to guest")]
        return cls(*keys)


class Channel:
    """One authenticated lobby connection after the handshake: `seal` a message map into a
    frame, `open` a frame into a message map (or `BadLobbyMessage`, nothing consumed)."""

    def __init__(self, send_key: bytes, receive_key: bytes, who: str) -> None:
        self._send_key = send_key
        self._receive_key = receive_key
        self._sent = 0
        self._received = 0
        self.who = who

    def seal(self, msg: dict[str, Any]) -> bytes:
        body = pack(msg)
        tag = hmac.new(self._send_key, self._sent.to_bytes(8, "big") + body,
                       hashlib.sha256).digest()
        self._sent += 1
        return pack([body, tag])

    def open(self, frame: bytes) -> Any:
        outer = unpack(frame, self.who, max_bin=MAX_LOBBY_FRAME, max_array=2, max_map=0,
                       max_str=0)
        if type(outer) is not list or len(outer) != 2 or type(outer[0]) is not bytes \
                or type(outer[1]) is not bytes:
            raise BadLobbyMessage("a lobby frame is [body, tag]", self.who)
        body, tag = outer
        expected = hmac.new(self._receive_key, self._received.to_bytes(8, "big") + body,
                            hashlib.sha256).digest()
        if not hmac.compare_digest(tag, expected):
            raise BadLobbyMessage("message not authenticated (forged, replayed or reordered)",
                                  self.who)
        msg = unpack(body, self.who)
        self._received += 1
        return msg


@dataclass
class Step:
    """What a handshake machine wants after one frame: a frame to ``send`` (may be None),
    and then either the finished ``channel`` or the ``error`` to drop the connection with
    (a host error comes with a refusal frame in ``send``)."""

    send: bytes | None = None
    channel: Channel | None = None
    error: LobbyError | None = None
    wait: float | None = None  #: in the table's line: the welcome comes within this long


def _refusal_frame(exc: LobbyError) -> bytes:
    return pack({"refused": exc.code, "why": exc.why})


class GuestHandshake:
    """The joining side. ``passphrase``/``token``: what it proves (at most one of them)."""

    def __init__(self, passphrase: str | None = None, token: bytes | None = None,
                 who: str = "host", entropy: Callable[[int], bytes] = os.urandom) -> None:
        if passphrase is not None and token is not None:
            raise ValueError("a passphrase or a token, not both")
        self.who = who
        self.nonce = entropy(NONCE_SIZE)
        self._spake: SPAKE2_A | None = None
        self.tid = b""
        if token is not None:
            if type(token) is not bytes or len(token) != TOKEN_SIZE:
                raise ValueError("a seat token is 32 bytes")
            self.mode = "token"
            self.tid = token_id(token)
            self._spake = SPAKE2_A(token, idA=ID_GUEST, idB=ID_HOST, entropy_f=entropy)
        elif passphrase:
            self.mode = "pass"
            self._spake = SPAKE2_A(passphrase_bytes(passphrase), idA=ID_GUEST, idB=ID_HOST,
                                   entropy_f=entropy)
        else:
            self.mode = "none"
        self._message = self._spake.start() if self._spake is not None else b""
        self.table_name: str | None = None
        self.done = False
        self.waited = False  #: the host made us wait for a turn

    def hello(self) -> bytes:
        msg: dict[str, Any] = {"v": LOBBY_VERSION, "auth": self.mode, "nonce": self.nonce}
        if self._spake is not None:
            msg["pake"] = self._message
        if self.mode == "token":
            msg["tid"] = self.tid
        return pack(msg)

    def receive(self, frame: bytes) -> Step:
        who = self.who
        if self.done:
            return Step(error=BadLobbyMessage("handshake already over", who))
        self.done = True
        try:
            welcome = unpack(frame, who)
            if isinstance(welcome, dict) and "wait" in welcome:
                return self._wait(welcome)
            if isinstance(welcome, dict) and "refused" in welcome:
                r = FieldReader(welcome, who, ("refused", "why"))
                return Step(error=error_for(r.get("refused", str), r.get("why", str), who))
            fields = ("v", "name", "nonce", "confirm") + (("pake",) if self._spake else ())
            r = FieldReader(welcome, who, fields)
            if r.get("v", str) != LOBBY_VERSION:
                raise BadLobbyMessage(other_version(r.get("v", str), "host"), who)
            name = r.text("name", MAX_TABLE_NAME)
            host_nonce = r.blob("nonce", NONCE_SIZE)
            confirm = r.blob("confirm", 32)
            secret, host_msg = b"", b""
            if self._spake is not None:
                host_msg = r.blob("pake", PAKE_MESSAGE_SIZE)
                try:
                    secret = self._spake.finish(host_msg)
                except KEY_EXCHANGE_REFUSALS as exc:
                    raise BadLobbyMessage(f"bad key exchange message: {type(exc).__name__}",
                                          who) from exc
        except LobbyError as exc:
            return Step(error=exc)
        transcript = _transcript(name, self.mode, self.tid, self.nonce, host_nonce,
                                 self._message, host_msg)
        keys = _Keys.derive(secret, transcript)
        # Our confirmation goes out even if theirs is wrong: the host then sees the failure
        # itself (it never has to trust us about it).
        mine = pack({"confirm": hmac.new(keys.guest_confirm, transcript,
                                         hashlib.sha256).digest()})
        expected = hmac.new(keys.host_confirm, transcript, hashlib.sha256).digest()
        if not hmac.compare_digest(confirm, expected):
            if self.mode == "pass":
                return Step(mine, error=WrongPassphrase("wrong table passphrase", who))
            if self.mode == "token":
                return Step(mine, error=BadToken("the host does not accept this seat token",
                                                 who))
            return Step(mine, error=BadLobbyMessage("handshake confirmation does not match",
                                                    who))
        self.table_name = name
        return Step(mine, channel=Channel(keys.guest_to_host, keys.host_to_guest, who))

    def _wait(self, msg: dict[str, Any]) -> Step:
        """The host put our hello in its line: the welcome comes later (once: a host that
        says "wait" again is not believed)."""
        if self.mode != "pass" or self.waited:
            raise BadLobbyMessage("an unexpected wait", self.who)
        seconds = FieldReader(msg, self.who, ("wait",)).integer("wait", 1, MAX_WAIT)
        assert seconds is not None
        self.waited = True
        self.done = False
        return Step(wait=float(seconds))


class HostHandshake:
    """The host's side of one lobby connection from ``ip`` (``who`` names it in errors).
    ``tokens`` holds the AI seat tokens the table accepts instead of the passphrase.

    A passphrase hello that finds no turn free waits in the limiter's line: `receive`
    returns a ``wait`` step (state "waiting"); the owner sets the `Place`'s ``go`` to call
    `proceed` (the welcome) when the turn comes, and calls `give_up` if it never does."""

    def __init__(self, name: str, passphrase: str | None, tokens: TokenBook,
                 limiter: AttemptLimiter, ip: str, who: str,
                 entropy: Callable[[int], bytes] = os.urandom) -> None:
        self.name = name
        self._password = passphrase_bytes(passphrase) if passphrase else None
        self.tokens = tokens
        self.limiter = limiter
        self.ip = ip
        self.who = who
        self._entropy = entropy
        self.state = "hello"  # -> ("waiting" ->) "confirm" -> "done" | "failed"
        self.mode = ""
        self.token: bytes | None = None  #: the token id proven, once done
        self.place: Place | None = None  #: while waiting for a turn
        self._hello_fields = (b"", b"", b"")  #: the guest's nonce, SPAKE2 message, token id
        self._tid: bytes | None = None
        self._attempt: Attempt | None = None
        self._expect = b""
        self._keys: _Keys | None = None

    def receive(self, frame: bytes, now: float) -> Step:
        try:
            if self.state == "hello":
                return self._hello(frame, now)
            if self.state == "confirm":
                return self._confirm(frame)
            raise BadLobbyMessage("handshake already over", self.who)
        except LobbyError as exc:
            return self._failed(exc)

    def _failed(self, exc: LobbyError) -> Step:
        self.abort()
        self.state = "failed"
        return Step(_refusal_frame(exc), error=exc)

    def proceed(self, now: float) -> Step:
        """The waiting hello's turn came: the welcome (nothing if it is not waiting)."""
        if self.state != "waiting":
            return Step()
        self.place = None
        try:
            assert self._password is not None
            self._attempt = self.limiter.start(self.ip, now)
            return self._welcome(self._password)
        except LobbyError as exc:
            return self._failed(exc)

    def give_up(self, why: str) -> Step:
        """The waiting hello gets no turn (it waited too long, or was pushed out of the
        line): the refusal to send."""
        if self.state != "waiting":
            return Step()
        return self._failed(TooManyAttempts(why, self.who))

    def abort(self) -> None:
        """The connection went away during the handshake (or it failed): a token it held
        is free again, a place in the line too; a started attempt stays counted, as one
        more wrong guess."""
        if self.state == "done":
            return
        if self.place is not None:
            self.limiter.leave(self.place)
            self.place = None
        if self._tid is not None:
            self.tokens.fail(self._tid)
            self._tid = None
        if self._attempt is not None:
            self.limiter.fail(self._attempt)

    def _hello(self, frame: bytes, now: float) -> Step:
        who = self.who
        msg = unpack(frame, who)
        if not isinstance(msg, dict):
            raise BadLobbyMessage("a hello is a map", who)
        mode = msg.get("auth")
        if mode not in MODES:
            raise BadLobbyMessage("unknown authentication mode", who)
        fields = ("v", "auth", "nonce") + {"none": (), "pass": ("pake",),
                                           "token": ("pake", "tid")}[mode]
        r = FieldReader(msg, who, fields)
        if r.get("v", str) != LOBBY_VERSION:
            raise BadLobbyMessage(other_version(r.get("v", str), "guest"), who)
        guest_nonce = r.blob("nonce", NONCE_SIZE)
        guest_msg = r.blob("pake", PAKE_MESSAGE_SIZE) if mode != "none" else b""
        tid = r.blob("tid", TOKEN_ID_SIZE) if mode == "token" else b""
        if mode == "none" and self._password is not None:
            raise PassphraseRequired(f"table {self.name!r} needs a passphrase", who)
        if mode == "pass" and self._password is None:
            raise UnexpectedPassphrase(f"table {self.name!r} has no passphrase", who)
        self.mode = mode
        self._hello_fields = (guest_nonce, guest_msg, tid)
        if mode == "none":
            return self._welcome(None)
        if mode == "token":
            # A live token id or nothing (a cheap check): 32 random bytes are not
            # guessed online, so token handshakes are not counted as guesses, and an
            # AI player is never refused for someone else's guessing.
            password = self.tokens.begin(tid, now, who)
            if not self.limiter.token_ok(self.ip, now):
                raise TooManyAttempts("too many seat-token handshakes from this address; "
                                      "wait a minute", who)
            self._tid = tid
            return self._welcome(password)
        place = self.limiter.enter(self.ip, now)
        if isinstance(place, str):
            raise TooManyAttempts(place, who)
        if not self.limiter.take(place, now):
            self.place = place
            self.state = "waiting"
            return Step(pack({"wait": math.ceil(self.limiter.hold)}), wait=self.limiter.hold)
        assert self._password is not None
        self._attempt = self.limiter.start(self.ip, now)
        return self._welcome(self._password)

    def _welcome(self, password: bytes | None) -> Step:
        """The host's SPAKE2 message and confirmation (``password`` None: no secret)."""
        who = self.who
        guest_nonce, guest_msg, tid = self._hello_fields
        secret, host_msg = b"", b""
        if password is not None:
            spake = SPAKE2_B(password, idA=ID_GUEST, idB=ID_HOST, entropy_f=self._entropy)
            host_msg = spake.start()
            try:
                secret = spake.finish(guest_msg)
            except KEY_EXCHANGE_REFUSALS as exc:
                raise BadLobbyMessage(f"bad key exchange message: {type(exc).__name__}",
                                      who) from exc
        host_nonce = self._entropy(NONCE_SIZE)
        transcript = _transcript(self.name, self.mode, tid, guest_nonce, host_nonce,
                                 guest_msg, host_msg)
        self._keys = _Keys.derive(secret, transcript)
        self._expect = hmac.new(self._keys.guest_confirm, transcript, hashlib.sha256).digest()
        welcome: dict[str, Any] = {"v": LOBBY_VERSION, "name": self.name, "nonce": host_nonce,
                                   "confirm": hmac.new(self._keys.host_confirm, transcript,
                                                       hashlib.sha256).digest()}
        if password is not None:
            welcome["pake"] = host_msg
        self.state = "confirm"
        return Step(pack(welcome))

    def _confirm(self, frame: bytes) -> Step:
        who = self.who
        r = FieldReader(unpack(frame, who), who, ("confirm",))
        confirm = r.blob("confirm", 32)
        if not hmac.compare_digest(confirm, self._expect):
            if self.mode == "pass":
                raise WrongPassphrase("wrong table passphrase", who)
            if self.mode == "token":
                raise BadToken("wrong seat token", who)
            raise BadLobbyMessage("handshake confirmation does not match", who)
        if self._tid is not None:
            self.tokens.succeed(self._tid, who)
            self.token = self._tid
        if self._attempt is not None:
            self.limiter.succeed(self._attempt)
        self.state = "done"
        assert self._keys is not None
        return Step(channel=Channel(self._keys.host_to_guest, self._keys.guest_to_host, who))
