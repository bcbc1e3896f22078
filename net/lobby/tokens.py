"""One-time AI seat tokens: the secret an AI player proves instead of the table's
passphrase, reserving its seat until it joins or the token expires.

The host issues one token per seat it asks an AI for (`TokenBook.issue`) and hands it to
the AI (in-process, or sealed to an AI server: `net/lobby/ai_fill.py`); the AI proves it in
the handshake (`net/lobby/pake.py`) under its public `token_id`, so the token itself never
travels.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from tractor.net.lobby.errors import BadToken
from tractor.net.lobby.messages import TOKEN_ID_SIZE, TOKEN_SIZE

TOKEN_TTL = 120.0  #: seconds an unused AI seat token keeps its seat reserved


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
