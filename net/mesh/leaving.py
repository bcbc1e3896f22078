"""A node that leaves: its process goes only once what it wrote to its links has left.

Twisted sends what a link writes from the reactor's loop, and a reactor that stops drops
whatever it has not sent. A seat whose own vote completed a verdict writes that vote and
the verdict's evidence (`PeerNode.publish_and_halt`) in the same step as it halts: an AI
process that exited at once sent none of it, and the other seats, lacking its vote, could
not decide, waited for it and voted it gone (an honest AI seat blamed, seen at a LAN
table). `closed` gives a node's connections, asked to close (`PeerNode.stop`), the time to
take what was written to them: a TCP close waits until that is sent (and `linger` cuts off,
after `LINGER` seconds, a connection whose other end does not read).
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.internet.task import LoopingCall

from tractor.net.mesh.linger import LINGER

#: Seconds a node that leaves waits at most for its connections to close: a little more
#: than `LINGER` (a close the other end holds open is cut off by then).
LEAVE_WAIT = LINGER + 2.0
#: Seconds between two looks at the connections still open.
LOOK_EVERY = 0.05


def closed(clock: IReactorTime, connections: Callable[[], Collection[object]],
           bound: float = LEAVE_WAIT) -> Deferred[None]:
    """Fires once ``connections()`` is empty (every connection closed, what was written
    to it sent), or ``bound`` seconds from now, whichever comes first."""
    start = clock.seconds()

    def look() -> None:
        if not connections() or clock.seconds() - start >= bound:
            loop.stop()

    loop = LoopingCall(look)
    loop.clock = clock
    done: Deferred[None] = loop.start(LOOK_EVERY, now=True).addCallback(lambda _: None)
    return done
