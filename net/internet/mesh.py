"""The game's links of an internet table: one magic-wormhole per pair of seats.

Each pair meets at the table's mailbox with its pair code (`rendezvous.pair_code`: only
the two seats know it), and Dilation gives it a durable connection: direct when one side
can reach the other, else through the transit relay, and re-established by Dilation the
same way when it drops. The game's `PeerLink` runs over a Dilation subchannel exactly as
over TCP (hello, signed proof of the seat, signed frames): the lower seat opens the
subchannel, the higher listens, and each link may only speak for the seat of its pair.
The mesh does not know about wormholes: whoever builds a `PeerNode` gives it `Wormholes`
(`net.mesh.pair_links`), and the node opens an `InternetMesh` when it dials internet
addresses.

A pair whose connection was up and stays down for `REWIRE` seconds starts again with a
new wormhole on the same code: after a peer restarted (``tractor resume``) its old wormhole
is gone, and its new one waits at the code's nameplate (claimed afresh: the old pair
released it once they had met). A wormhole that has not met its peer yet never starts
again: it is what the other side's new one looks for (two sides that both kept starting
again could miss each other for ever).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from twisted.application.internet import ClientService, backoffPolicy
from twisted.internet.defer import Deferred, ensureDeferred
from twisted.internet.task import LoopingCall
from twisted.logger import Logger
from twisted.python.failure import Failure

from tractor.net.internet.dilation import dilate_only
from tractor.net.internet.rendezvous import (
    APPID,
    MESH_SUBPROTOCOL,
    is_internet_address,
    pair_code,
    pair_secret,
    read_internet_address,
)
from tractor.net.mesh.closed_transport import closed_transport_errors
from tractor.net.mesh.pair_links import PairLinkHost

#: Seconds a pair's connection may stay down before both sides start a new wormhole.
REWIRE = 30.0


def prefer_direct_connections() -> bool:
    """Make Dilation wait its `RELAY_DELAY` before every relayed attempt of a side that
    offers direct connections, so a pair that can reach each other connects directly.

    magic-wormhole 0.24 means to ("an intentional delay for relayed connections so that
    non-relayed are definitely preferred"), but a side uses its own relay hint at once
    when it starts, and a peer's hints that come in a message of their own: on one
    machine or one LAN the relay then often won the race, and every move went the long
    way. A side that listens for nothing (``no_listen``) still uses the relay at once.
    Idempotent; False (nothing changed, the links work as the library makes them) if the
    library no longer has what this wraps."""
    try:
        from wormhole._dilation.connector import Connector
    except ImportError:
        return False
    schedule = getattr(Connector, "_schedule_connection", None)
    if schedule is None or not hasattr(Connector, "RELAY_DELAY"):
        return False
    if getattr(schedule, "prefers_direct", False):
        return True

    def scheduled(self: Any, delay: float, hint: Any, is_relay: bool) -> Any:
        if is_relay and not getattr(self, "_no_listen", True):
            delay = max(delay, self.RELAY_DELAY)
        return schedule(self, delay, hint, is_relay)

    scheduled.prefers_direct = True  # type: ignore[attr-defined]
    Connector._schedule_connection = scheduled
    return True


@dataclass
class PathReport:
    """How one pair's link goes now: "direct", "relay", or None (not connected), and
    what it said last ("waiting for seat 2 at the mailbox", ...)."""

    path: str | None = None
    state: str = "not started"


def path_of(hint_description: str) -> str:
    """"relay" or "direct" from Dilation's description of its connection
    ('->relay:tcp:198.18.0.1:4001', '<-tcp:198.18.1.5:41234').

    >>> path_of("->relay:tcp:198.18.0.1:4001"), path_of("<-tcp:198.18.1.5:41234")
    ('relay', 'direct')
    """
    return "relay" if "relay" in hint_description else "direct"


class PairLink:
    """This peer's wormhole with one other seat, and the game link over it."""

    log = Logger()

    def __init__(self, node: PairLinkHost, seat: int, mailbox: str, relay: str,
                 relay_only: bool = False,
                 create: Callable[..., Any] | None = None) -> None:
        self.node, self.seat = node, seat
        self.mailbox, self.relay, self.relay_only = mailbox, relay, relay_only
        self._create = create
        secret = pair_secret(node.signing_key.private_bytes_raw(), node.raw_keys[seat])
        self.code = pair_code(node.table, node.seat, seat, secret)
        self.report = PathReport()
        self.wormhole: Any = None
        self.service: ClientService | None = None
        self.listening: Any = None
        self.down_since: float | None = None
        self.met = False  #: this wormhole's connection was up once (`check`)
        self.absent_since: float | None = None  #: since when no game link is up
        self.stopped = False
        self.generation = 0  #: wormholes started so far (a rewire starts the next)

    def start(self) -> None:
        """Open the wormhole and, once it is dilated, the game link (a subchannel)."""
        self.generation += 1
        self.met = False
        self.absent_since = None
        self.down_since = self.node.clock.seconds()
        self.report = PathReport(None, "waiting for it at the mailbox")
        d = ensureDeferred(self._open(self.generation))
        d.addErrback(self._failed, self.generation)

    async def _open(self, generation: int) -> None:
        create = self._create
        if create is None:
            import wormhole  # the package is only needed for internet tables

            create = wormhole.create
            prefer_direct_connections()
        w = create(APPID, self.mailbox, self.node.reactor, dilation=True)
        self.wormhole = w
        w.set_code(self.code)
        # The higher seat listens for the link (see below); the lower one only opens it.
        dilated = dilate_only(w, [MESH_SUBPROTOCOL] if self.node.seat > self.seat else [],
                              transit_relay_location=self.relay, no_listen=self.relay_only,
                              on_status_update=lambda status: self._status(generation, status))
        await dilated.when_dilated()
        if self.stopped or generation != self.generation:
            return
        if self.node.seat < self.seat:  # lower seats open the link, as on a LAN
            endpoint = dilated.connector_for(MESH_SUBPROTOCOL)
            self.service = ClientService(endpoint, self.node.factory(self.seat),
                                         retryPolicy=backoffPolicy(initialDelay=0.2,
                                                                   maxDelay=10.0),
                                         clock=self.node.clock)
            self.service.startService()
        else:
            self.listening = await dilated.listener_for(MESH_SUBPROTOCOL).listen(
                self.node.factory(self.seat))

    def _status(self, generation: int, status: Any) -> None:
        if generation != self.generation:
            return
        peer = getattr(status, "peer_connection", None)
        kind = type(peer).__name__
        if kind == "ConnectedPeer" and peer is not None:
            path = path_of(peer.hint_description)
            self.report = PathReport(path, "connected directly" if path == "direct"
                                     else "connected through the relay")
            self.down_since = None
            self.met = True
        else:
            if self.down_since is None:
                self.down_since = self.node.clock.seconds()
            self.report = PathReport(None, {
                "NoPeer": "waiting for it at the mailbox",
                "ConnectingPeer": "connecting",
                "ReconnectingPeer": "reconnecting",
                "StoppedPeer": "stopped"}.get(kind, "waiting"))

    def _failed(self, failure: Failure, generation: int) -> None:
        if generation == self.generation and not self.stopped:
            why = failure.getErrorMessage()
            self.report = PathReport(None, f"wormhole failed: {why}")
            self.node.dial_failed(self.seat, "the mailbox " + self.mailbox, why)
            self.log.warn("seat {seat}: wormhole failed: {why}", seat=self.seat, why=why)

    def check(self, now: float) -> None:
        """Start again with a new wormhole when the pair met and has been apart `REWIRE`
        seconds (a side that restarted waits at the nameplate with a new one)."""
        # Down by Dilation's word, or by the game link's: behind a relay that keeps its
        # half open, only the side Dilation made leader pings, so the other learns that
        # the peer is gone from the game link's silence (`link.LINK_SILENCE`).
        if self.stopped or not self.met:
            return
        link = self.node.links.get(self.seat)
        if link is not None and not link.closing:
            self.absent_since = None
        elif self.absent_since is None:
            self.absent_since = now
        since = min(t for t in (self.down_since, self.absent_since, now) if t is not None)
        if now - since >= REWIRE:
            self.log.info("seat {seat}: no connection for {s:.0f} s, a new wormhole",
                          seat=self.seat, s=now - since)
            if link is not None:
                # A subchannel whose connection is gone hears of its close only when that
                # connection comes back, maybe never (a peer killed): down now, so the
                # grace period counts.
                self.node.seat_lost(self.seat)
            self._close()
            self.start()

    def _close(self) -> None:
        service, self.service = self.service, None
        listening, self.listening = self.listening, None
        w, self.wormhole = self.wormhole, None
        # Each step on its own: a subchannel whose connection went away refuses to be
        # closed again (`closed_transport`), which must not keep the wormhole open.
        for step in (service and service.stopService, listening and listening.stopListening):
            if step:
                try:
                    d = step()
                    if isinstance(d, Deferred):
                        d.addErrback(lambda _f: None)
                except closed_transport_errors() as exc:
                    self.log.info("seat {seat}: closing its link: {why}", seat=self.seat,
                                  why=exc)
        if w is not None:
            d2: Deferred[Any] = w.close()
            d2.addErrback(lambda _f: None)  # a wormhole that never met its peer complains

    def stop(self) -> None:
        self.stopped = True
        self._close()


class InternetMesh:
    """Every pair link of this peer at an internet table (`PeerNode.dial` starts it)."""

    def __init__(self, node: PairLinkHost, addresses: Mapping[int, str],
                 relay_only: bool = False, create: Callable[..., Any] | None = None) -> None:
        self.node = node
        self.pairs: dict[int, PairLink] = {}
        for seat, address in sorted(addresses.items()):
            mailbox, relay = read_internet_address(address)
            self.pairs[seat] = PairLink(node, seat, mailbox, relay, relay_only, create)
        self._loop: LoopingCall | None = None

    def start(self) -> None:
        for pair in self.pairs.values():
            pair.start()
        self._loop = LoopingCall(self._check)
        self._loop.clock = self.node.clock
        self._loop.start(1.0, now=False)

    def _check(self) -> None:
        now = self.node.clock.seconds()
        for pair in self.pairs.values():
            try:
                pair.check(now)
            except Exception:
                # Only a bug gets here (`check` raises nothing on purpose): logged with its
                # traceback, it must not end the loop (a LoopingCall that raises stops for
                # good), nor the other pairs' watch.
                pair.log.failure("seat {seat}: checking its wormhole", seat=pair.seat)

    def paths(self) -> dict[int, str | None]:
        """Seat -> "direct", "relay" or None (not connected now)."""
        return {seat: pair.report.path for seat, pair in self.pairs.items()}

    def states(self) -> dict[int, str]:
        return {seat: pair.report.state for seat, pair in self.pairs.items()}

    def stop(self) -> None:
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        for pair in self.pairs.values():
            pair.stop()


@dataclass(frozen=True)
class Wormholes:
    """The pair links of internet tables (`net.mesh.pair_links.PairLinkMaker`): what the
    layer that builds a `PeerNode` gives it, so the node reaches the seats whose addresses
    are internet addresses (`rendezvous.internet_address`) through magic-wormholes.
    ``relay_only``: never offer a direct connection (tests and benchmarks that measure the
    relay's path on one machine); ``create``: how a wormhole is made (tests)."""

    relay_only: bool = False
    create: Callable[..., Any] | None = None

    def takes(self, address: str) -> bool:
        return is_internet_address(address)

    def open(self, node: PairLinkHost, addresses: Mapping[int, str]) -> InternetMesh:
        return InternetMesh(node, addresses, self.relay_only, self.create)
