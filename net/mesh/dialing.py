"""Dialing the seats this peer reaches over TCP: one reconnecting service per seat, with a
backoff of its own, that tells why an attempt failed so a seat that cannot be reached is
named with its address and the reason within seconds.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from twisted.application.internet import ClientService
from twisted.internet.defer import Deferred
from twisted.internet.endpoints import clientFromString
from twisted.internet.interfaces import (
    IProtocol,
    IProtocolFactory,
    IReactorTime,
    IStreamClientEndpoint,
)
from twisted.python.failure import Failure
from zope.interface import implementer

#: Told of every failed attempt: (seat, address, the reason in words).
DialFailed = Callable[[int, str, str], None]


def redial_delay(attempt: int) -> float:
    """Seconds before dialing a seat again after ``attempt`` failures: 0.2 s growing by half
    each time up to 10 s, and up to a fifth more at random (so two seats do not retry in
    step). Twisted's `backoffPolicy` adds up to a whole second to every retry: a resumed
    table's links to AI seats that start a moment after the person's waited up to a second
    more each for nothing."""
    delay = min(0.2 * 1.5 ** min(attempt, 20), 10.0)
    return delay * (1.0 + random.random() / 5)


@implementer(IStreamClientEndpoint)
class _Remembering:
    """A client endpoint that tells ``failed`` why each attempt failed."""

    def __init__(self, inner: IStreamClientEndpoint, seat: int, address: str,
                 failed: DialFailed) -> None:
        self.inner, self.seat, self.address, self.failed = inner, seat, address, failed

    def connect(self, factory: IProtocolFactory) -> Deferred[IProtocol]:
        d = self.inner.connect(factory)

        def failed(failure: Failure) -> Failure:
            self.failed(self.seat, self.address, failure.getErrorMessage())
            return failure
        return d.addErrback(failed)


class Dialer:
    """The reconnecting TCP services of one peer: `dial` starts one per seat, `stop` ends
    them all (their connections close)."""

    def __init__(self, reactor: object, clock: IReactorTime, failed: DialFailed) -> None:
        self.reactor = reactor  #: what `clientFromString` builds the endpoints on
        self.clock = clock
        self.failed = failed
        self.services: list[ClientService] = []

    def dial(self, seat: int, address: str, factory: IProtocolFactory) -> None:
        """Keep a connection to ``seat`` at ``address`` (a client endpoint string)."""
        # Twisted leaves `clientFromString` unannotated; it returns an IStreamClientEndpoint.
        inner = clientFromString(self.reactor, address)  # type: ignore[no-untyped-call]
        endpoint = _Remembering(inner, seat, address, self.failed)
        service = ClientService(endpoint, factory, retryPolicy=redial_delay, clock=self.clock)
        service.startService()
        self.services.append(service)

    def stop(self) -> None:
        for service in self.services:
            service.stopService()
