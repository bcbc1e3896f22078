"""A bounded close for a connection this peer closes (`link.PeerLink`: a seat's link or a
watcher's on the game port).

A TCP close waits until the other end has read everything written to it: an end that stops
reading (a stalled peer, a watcher that never reads, a program that holds its socket open)
would keep the connection's descriptor and its unsent frames here for ever. `Linger` gives
such a close `LINGER` seconds, then aborts the connection.
"""

from __future__ import annotations

from twisted.internet.interfaces import IDelayedCall, IReactorTime

#: Seconds a connection closed by this peer (dropped, refused, replaced, or the peer stops)
#: has to take what was written to it before it is cut off.
LINGER = 10.0


class Linger:
    """The deadline of one connection's close: `closed` when this peer closes it, `lost`
    when the connection ends; if it has not ended `LINGER` seconds after the close, its
    transport is aborted. A transport without ``abortConnection`` (a Dilation subchannel,
    whose close needs no reading by the other end) is left to close as it does."""

    def __init__(self, clock: IReactorTime) -> None:
        self.clock = clock
        self._cut: IDelayedCall | None = None

    def closed(self, transport: object) -> None:
        """``transport`` was just asked to close (once is enough: later calls are kept)."""
        abort = getattr(transport, "abortConnection", None)
        if self._cut is None and abort is not None:
            self._cut = self.clock.callLater(LINGER, abort)

    def lost(self) -> None:
        """The connection ended: nothing to cut off."""
        if self._cut is not None and self._cut.active():
            self._cut.cancel()
