"""A guest's side of a lobby on the network: the `GuestLink` to the host, and the
`LobbyGuest` the client drives (`join_table` makes one).

All decisions live in the state machines (`GuestLobby`, `pake.GuestHandshake`); this
module runs the handshake and then the lobby messages over one connection, with timeouts,
and turns what happens into the guest's Deferreds: ``joined`` (the first roster, or the
typed reason the guest was refused) and ``started`` (the verified `Seating`).

Typical use (the client's code)::

    guest = await join_table(reactor, "tcp:192.0.2.5:40123", me, passphrase="plum tree")
    guest.ready(True)
    seating = await guest.started
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger

from tractor.net.lobby.errors import LobbyClosed, LobbyError
from tractor.net.lobby.framing import DIAL_FAILURES, HANDSHAKE_TIMEOUT, FramedLink, dial, ip_of
from tractor.net.lobby.guest_state import GuestLobby
from tractor.net.lobby.pake import Channel, GuestHandshake
from tractor.net.lobby.seating import Participant, Roster, Seating


class GuestLink(FramedLink):
    """A participant's connection to the host's lobby."""

    def __init__(self, guest: LobbyGuest) -> None:
        super().__init__(guest.clock)
        self.guest = guest
        self.channel: Channel | None = None

    def connectionMade(self) -> None:
        super().connectionMade()
        assert self.transport is not None  # makeConnection sets it before calling this
        self.guest.link = self
        self.guest.state.who = self.who
        self.guest.state.lobby_ip = ip_of(self.transport.getPeer())
        self.guest.handshake.who = self.who
        self.sendString(self.guest.handshake.hello())

    def stringReceived(self, data: bytes) -> None:
        if self.closing:
            return
        if self.channel is None:
            step = self.guest.handshake.receive(data)
            if step.send is not None:
                self.sendString(step.send)
            if step.error is not None:
                self.drop(step.error, refuse=False)
            elif step.wait is not None:
                # Strangers are guessing at this table: our hello waits for its turn.
                self.setTimeout(step.wait + HANDSHAKE_TIMEOUT)
                self.log.info("lobby {who}: the table is busy with guesses; waiting for a "
                              "turn (at most {s:.0f} s)", who=self.who, s=step.wait)
            elif step.channel is not None:
                self.channel = step.channel
                self.send_message(self.guest.state.join_message())
            return
        try:
            result = self.guest.state.receive(self.channel.open(data))
        except LobbyError as exc:
            self.drop(exc, refuse=False)
            return
        self.guest.update(result)
        if isinstance(result, Seating):
            self.close()
        else:
            self.setTimeout(None)

    def send_message(self, msg: dict[str, Any]) -> None:
        if self.channel is not None and not self.closing:
            self.sendString(self.channel.seal(msg))

    def failed(self, exc: LobbyError) -> None:
        self.guest.fail(exc)

    def connectionLost(self, reason: Any = None) -> None:
        super().connectionLost(reason)
        self.guest.fail(LobbyClosed("connection to the lobby lost", self.who))


class LobbyGuest:
    """A participant in someone's lobby. ``joined`` fires with the first `Roster` (or fails
    with the typed reason: `WrongPassphrase`, `TableFull`, ...); then ``ready``/``leave``;
    ``on_change`` gets every new roster; ``started`` fires with the verified `Seating`."""

    log = Logger()

    def __init__(self, reactor: Any, me: Participant, passphrase: str | None = None,
                 token: bytes | None = None, clock: IReactorTime | None = None,
                 expect_carry: tuple[Any, ...] | None = None) -> None:
        self.reactor = reactor
        self.clock: IReactorTime = clock or reactor
        self.me = me
        self.state = GuestLobby(me, expect_carry=expect_carry)
        self.handshake = GuestHandshake(passphrase or None, token)
        self.link: GuestLink | None = None
        self.joined: Deferred[Roster | None] = Deferred()
        self.started: Deferred[Seating] = Deferred()
        self.on_change: Callable[[Roster], None] | None = None
        self.error: LobbyError | None = None

    def protocol(self) -> GuestLink:
        return GuestLink(self)

    def roster(self) -> Roster | None:
        return self.state.roster

    def ready(self, ready: bool = True) -> None:
        if self.link is not None:
            self.link.send_message(self.state.ready_message(ready))

    def sit(self, seat: int) -> None:
        """Ask the host for the free seat ``seat`` (the next roster shows where we sit)."""
        if self.link is not None:
            self.link.send_message(GuestLobby.sit_message(seat))

    def leave(self) -> None:
        """Leave the table: the seat frees; ``started`` fails with `LobbyClosed`."""
        self.fail(LobbyClosed("you left the table", "you"))
        if self.link is not None:
            self.link.send_message(GuestLobby.leave_message())
            self.link.close()

    def update(self, result: Roster | Seating) -> None:
        if isinstance(result, Seating):
            if not self.joined.called:
                self.joined.callback(self.state.roster)
            if not self.started.called:
                self.log.info("lobby {who}: the game starts, seat {seat}",
                              who=self.state.who, seat=result.seat)
                self.started.callback(result)
            return
        if not self.joined.called:
            self.joined.callback(result)
        if self.on_change is not None:
            self.on_change(result)

    def fail(self, exc: LobbyError) -> None:
        """The lobby is over for us without a start: fail what is still pending (once)."""
        if self.started.called or self.error is not None:
            return
        self.error = exc
        if not self.joined.called:
            self.joined.errback(exc)
        elif not self.started.called:
            self.started.errback(exc)


async def join_table(reactor: Any, address: str, me: Participant,
                     passphrase: str | None = None, token: bytes | None = None,
                     clock: IReactorTime | None = None,
                     expect_carry: tuple[Any, ...] | None = None,
                     endpoint: Any = None, mailbox: str | None = None) -> LobbyGuest:
    """Join the lobby at ``address`` (a client endpoint string, e.g. from discovery) with a
    passphrase, a one-time AI seat ``token``, or neither. Returns once seated (the first
    roster is in); raises the typed `LobbyError` otherwise (`WrongPassphrase`,
    `PassphraseRequired`, `TableFull`, `TooManyAttempts`, `BadToken`, `LobbyClosed`, ...).
    ``endpoint``: connect there instead (a seat code's wormhole, ``address`` then names it
    in messages), through ``mailbox`` (an internet table's start must name it)."""
    guest = LobbyGuest(reactor, me, passphrase, token, clock, expect_carry)
    guest.state.mailbox = mailbox
    try:
        await dial(reactor, address, guest.protocol(), endpoint or None)
    except DIAL_FAILURES as exc:
        raise LobbyClosed(f"cannot reach the lobby: {exc}", address) from exc
    await guest.joined
    return guest
