"""The lobby on the network, by the names callers have long imported from here: the public
API the client calls (`host_table`, `join_table`, `serve_ai`) and the protocols behind it.
Each side now lives in a module of its own:

- `framing`: what every lobby connection shares (frames, timeouts, logged refusals);
- `listening`: opening a port and the addresses to tell about it;
- `host_protocol`: `LobbyHost`, `HostLink`, `host_table`;
- `guest_protocol`: `LobbyGuest`, `GuestLink`, `join_table`;
- `ai_server`: `AiServer`, `serve_ai`, and the host's `FillClientLink`.

Typical use (the client's code)::

    host = await host_table(reactor, "Friday", Rules(), me, passphrase="plum tree")
    host.on_change = redraw
    host.ready(True)
    seating = await host.started          # a Seating: seat, keys, addresses, table id
    node = PeerNode(reactor, GameSession(rules, seating.table, seating.seat, ...), ...)

    guest = await join_table(reactor, "tcp:192.0.2.5:40123", me, passphrase="plum tree")
    guest.ready(True)
    seating = await guest.started

New code imports from those modules; this one only keeps the old names working.
"""

from __future__ import annotations

from tractor.net.lobby.ai_server import (
    GREETINGS_PER_MINUTE,
    AiServer,
    AiServerProtocol,
    FillClientLink,
    serve_ai,
)
from tractor.net.lobby.framing import (
    HANDSHAKE_TIMEOUT,
    LOGGED_PER_MINUTE,
    MAX_ERRORS,
    SILENT_GRACE,
)
from tractor.net.lobby.guest_protocol import GuestLink, LobbyGuest, join_table
from tractor.net.lobby.host_protocol import (
    FILL_BROWSE_SECONDS,
    JOIN_TIMEOUT,
    MAX_LINKS,
    MAX_PER_SOURCE,
    MAX_SILENT_PER_SOURCE,
    RATE_LIMIT,
    RATE_WINDOW,
    FillLocal,
    HostLink,
    LobbyHost,
    host_table,
)
from tractor.net.lobby.listening import guess_lan_ip

__all__ = [
    "FILL_BROWSE_SECONDS", "GREETINGS_PER_MINUTE", "HANDSHAKE_TIMEOUT", "JOIN_TIMEOUT",
    "LOGGED_PER_MINUTE", "MAX_ERRORS", "MAX_LINKS", "MAX_PER_SOURCE", "MAX_SILENT_PER_SOURCE",
    "RATE_LIMIT", "RATE_WINDOW", "SILENT_GRACE", "AiServer", "AiServerProtocol",
    "FillClientLink", "FillLocal", "GuestLink", "HostLink", "LobbyGuest", "LobbyHost",
    "guess_lan_ip", "host_table", "join_table", "serve_ai",
]
