"""A watcher's connection on a seat's game port, on the seat's side: `watch_over` takes over
a `link.PeerLink` whose first message was a watch hello and gives it to the node's
`watchers.Watchers`, with its network's pace (`WatchPacing`) so that a watcher that stops
reading has its frames queued, never the table's, and an empty message every few seconds
while the game is quiet, so that it can tell a quiet table from a seat gone.
"""

from __future__ import annotations

from typing import Protocol

from twisted.internet.interfaces import IPushProducer, IReactorTime, ITransport
from twisted.internet.task import LoopingCall
from zope.interface import implementer

from tractor.net.mesh.gate import source_of
from tractor.net.mesh.watch_gate import GATE_TIMEOUT
from tractor.net.mesh.watchers import Watchers

#: Seconds between empty messages to a watcher (the game may be quiet for minutes while a
#: person thinks): a watcher that hears nothing for `watching.SILENCE` takes the seat for
#: gone. A seat's links beat as often (`wire.HEARTBEAT`).
HEARTBEAT = 3.0


class Watched(Protocol):
    """The link a watcher came on (`link.PeerLink`), as its watcher side uses it."""

    @property
    def transport(self) -> ITransport | None: ...

    @property
    def closing(self) -> bool: ...

    def sendString(self, string: bytes) -> None: ...

    def close(self) -> None: ...


class WatcherConnection:
    """One watcher's link, as `Watchers` sees it (`watchers.WatcherLink`)."""

    def __init__(self, link: Watched) -> None:
        self.link = link
        peer = link.transport.getPeer() if link.transport is not None else None
        self.source = source_of(str(getattr(peer, "host", "?")))  #: (`Watchers` bounds it)

    def write_frame(self, frame: bytes) -> None:
        self.link.sendString(frame)

    def close(self) -> None:
        """(One that never reads what it was sent is cut off: `linger.Linger`.)"""
        self.link.close()


@implementer(IPushProducer)
class WatchPacing:
    """The watcher's transport tells when its buffer is full and when it drained."""

    def __init__(self, watchers: Watchers, connection: WatcherConnection) -> None:
        self.watchers = watchers
        self.connection = connection

    def pauseProducing(self) -> None:
        self.watchers.paused(self.connection, True)

    def resumeProducing(self) -> None:
        self.watchers.paused(self.connection, False)

    def stopProducing(self) -> None:
        self.watchers.left(self.connection)


def watch_over(link: Watched, watchers: Watchers, hello: bytes,
               clock: IReactorTime) -> WatcherConnection:
    """Serve the watcher that sent ``hello`` on ``link`` (or refuse it, closing the link),
    with a heartbeat while the game is quiet; one proving the passphrase has
    `GATE_TIMEOUT` seconds to finish."""
    connection = WatcherConnection(link)
    transport = link.transport
    if transport is not None and hasattr(transport, "registerProducer"):
        # Before the transcript is written: the transport pauses it as its buffer fills.
        transport.registerProducer(WatchPacing(watchers, connection), True)
    # A table with a passphrase bounds arrivals by the lobby's guess limits instead (each
    # arrival there is a guess: five a minute from one address, one each 15 s from all).
    too_often = None if watchers.desk is not None else \
        watchers.arrivals.refusal(connection.source, clock.seconds())
    if too_often is not None:  # (refused before the game so far is read: for nothing)
        watchers.refuse(connection, too_often)
    elif watchers.arrived(connection, hello, connection.source, clock.seconds()):
        if connection in watchers.checking:  # proving the passphrase: not for ever
            clock.callLater(GATE_TIMEOUT, watchers.too_slow, connection)
        beats = LoopingCall(lambda: beats.stop() if link.closing else link.sendString(b""))
        beats.clock = clock
        beats.start(HEARTBEAT, now=False)
    return connection
