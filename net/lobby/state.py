"""The lobby's plain state (no sockets, no Twisted), by the names callers have long imported
from here. Each piece now lives in a module of its own:

- `errors`: what can go wrong, and how a refusal names it on the wire;
- `messages`: field sizes, bounded decoding, exact-type field reading;
- `addresses`: which endpoint strings and game addresses the lobby takes from a peer;
- `seating`: `Participant`, `Roster`, `Seating` and the table id;
- `tokens`: one-time AI seat tokens;
- `host_state`: `HostLobby`, the host's seats, readiness and start;
- `guest_state`: `GuestLobby`, a guest's view and its check of the start;
- `ai_fill`: asking an AI server for players (`AiServerMachine` and the host's request).

New code imports from those modules; this one only keeps the old names working.
"""

from __future__ import annotations

from tractor.net.lobby.addresses import parse_endpoint
from tractor.net.lobby.ai_fill import (
    AdmitFn,
    AiServerMachine,
    SpawnFn,
    fill_request_frame,
    read_fill_reply,
    read_greeting,
)
from tractor.net.lobby.errors import (
    AiServerBusy,
    BadLobbyMessage,
    BadStart,
    BadToken,
    LobbyClosed,
    LobbyError,
    NoAiServer,
    PassphraseRequired,
    TableFull,
    TooManyAttempts,
    UnexpectedPassphrase,
    WrongCode,
    WrongPassphrase,
    WrongServerKey,
    error_for,
    refusal,
)
from tractor.net.lobby.guess_line import AttemptLimiter
from tractor.net.lobby.guest_state import GuestLobby
from tractor.net.lobby.host_state import HostLobby
from tractor.net.lobby.messages import (
    MAX_LOBBY_FRAME,
    MAX_NAME,
    MAX_TABLE_NAME,
    NONCE_SIZE,
    TOKEN_ID_SIZE,
    TOKEN_SIZE,
    pack,
    unpack,
)
from tractor.net.lobby.seating import Participant, Roster, Seating, fingerprint, seating_id
from tractor.net.lobby.tokens import TOKEN_TTL, TokenBook, token_id
from tractor.net.mesh.endpoints import endpoint_string

__all__ = [
    "MAX_LOBBY_FRAME", "MAX_NAME", "MAX_TABLE_NAME", "NONCE_SIZE", "TOKEN_ID_SIZE",
    "TOKEN_SIZE", "TOKEN_TTL", "AdmitFn", "AiServerBusy", "AiServerMachine",
    "AttemptLimiter", "BadLobbyMessage", "BadStart", "BadToken", "GuestLobby", "HostLobby",
    "LobbyClosed", "LobbyError", "NoAiServer", "Participant", "PassphraseRequired", "Roster",
    "Seating", "SpawnFn", "TableFull", "TokenBook", "TooManyAttempts", "UnexpectedPassphrase",
    "WrongCode", "WrongPassphrase", "WrongServerKey", "endpoint_string", "error_for",
    "fill_request_frame", "fingerprint", "pack", "parse_endpoint", "read_fill_reply",
    "read_greeting", "refusal", "seating_id", "token_id", "unpack",
]
