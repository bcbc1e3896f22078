"""What can go wrong in the lobby, and how a refusal names it on the wire.

Every lobby failure is a `LobbyError` naming the peer it came from. Each type has a
``code`` that travels in refusals (`refusal`), so the other side raises the same type again
(`error_for`): a joiner told `WrongPassphrase` by the host gets a `WrongPassphrase`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from tractor.net.errors import NetError

MAX_WHY = 200  #: characters of a refusal reason we keep


def printable(text: str) -> str:
    """``text`` with every character a terminal would act on replaced by "?": for a
    peer's words that go into an error message."""
    return "".join(c if c.isprintable() else "?" for c in text)


class LobbyError(NetError, ValueError):
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
    return cls(f"refused: {printable(text)}", peer)


def refusal(exc: LobbyError) -> dict[str, Any]:
    """The message telling a peer why we drop it."""
    return {"t": "refused", "code": exc.code, "why": exc.why}

