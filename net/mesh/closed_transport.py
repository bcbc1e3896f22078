"""What a transport raises when a link writes to it or closes it after its connection
closed: the one failure a link's write or close expects (`link.PeerLink`).

A TCP transport never raises there: it drops a late write and takes a second close. A
Dilation subchannel (the transport of an internet table's pair links, `net.mesh.pair_links`)
refuses both: magic-wormhole's ``AlreadyClosedError`` once this end closed it, automat's
`NoTransition` once the other end closed it (or before it was connected). Anything else a
write or a close raises is a bug, and goes up.

The mesh opens no wormhole: the library is imported only when a refusal is matched, so a
peer that only ever links over TCP never loads it.
"""

from __future__ import annotations

from functools import cache

from automat import NoTransition


@cache
def closed_transport_errors() -> tuple[type[Exception], ...]:
    """The exceptions of a transport that refuses a write or a close because its
    connection closed (for an ``except`` clause)."""
    try:
        from wormhole._dilation.subchannel import AlreadyClosedError
    except ImportError:  # moved by a later magic-wormhole: its state machine still says so
        return (NoTransition,)
    return (AlreadyClosedError, NoTransition)
