"""The lobby of an internet table: seat codes read out to friends, and joining by one.

The host opens a magic-wormhole per free seat (`SeatCodes`): the mailbox allocates its
short code (``7-guitarist-revenge``), which the host reads out. A friend's
``tractor join 7-guitarist-revenge`` opens the same wormhole (`join_by_code`); SPAKE2
confirms both sides typed the same code (a wrong guess spends the code: the host gets a
new one), Dilation connects them (directly or through the relay), and the ordinary lobby
protocol (`lobby_wire`: passphrase, roster, ready, start) runs on a subchannel. AI seats of
the host's machine join on loopback, as on a LAN. After the start, the game's links are
each pair's own wormholes (`wormhole_mesh`); these lobby wormholes close.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet.defer import Deferred, DeferredList, FirstError, ensureDeferred
from twisted.internet.protocol import Factory
from twisted.internet.task import LoopingCall
from twisted.logger import Logger

from .lobby import LobbyClosed, Participant, WrongCode
from .lobby_wire import LobbyGuest, LobbyHost, join_table
from .rendezvous import APPID, LOBBY_SUBPROTOCOL

#: Words in a seat code after its number: 2 (as magic-wormhole's own default), one try in
#: 65536 for a stranger who guesses, and a wrong guess spends the code.
CODE_WORDS = 2
#: Seconds a joiner waits for the host at a code before giving up.
JOIN_WAIT = 90.0


def _create(create: Callable[..., Any] | None) -> Callable[..., Any]:
    if create is not None:
        return create
    import wormhole  # only internet tables need the package

    from .wormhole_mesh import prefer_direct_connections

    prefer_direct_connections()
    return wormhole.create  # type: ignore[no-any-return]


class SeatCodes:
    """The host's open seat codes: one wormhole waiting per free seat. ``on_codes`` is
    called with the codes whenever they change (a code used, spent by a wrong guess, or a
    seat freed); `codes` lists them."""

    log = Logger()

    def __init__(self, reactor: Any, host: LobbyHost, mailbox: str, relay: str,
                 on_codes: Callable[[list[str]], None] | None = None,
                 create: Callable[..., Any] | None = None,
                 on_warning: Callable[[str], None] | None = None) -> None:
        self.reactor, self.host = reactor, host
        self.mailbox, self.relay = mailbox, relay
        self.on_codes = on_codes
        self.on_warning = on_warning  #: told why a code was spent (a wrong guess...)
        self._create = create
        self.waiting: dict[int, str | None] = {}  #: wormhole number -> its code (once known)
        self.wormholes: dict[int, Any] = {}  #: every wormhole opened and not closed
        self._next = 0
        self.closed = False
        self.errors: list[str] = []
        self._loop = LoopingCall(self.refill)
        self._loop.clock = host.clock

    def start(self) -> None:
        self.refill()
        self._loop.start(1.0, now=False)

    def codes(self) -> list[str]:
        return sorted(c for c in self.waiting.values() if c is not None)

    def free_seats(self) -> int:
        """Seats a person may still take: empty and not reserved for an AI asked for."""
        roster = self.host.roster()
        return len([s for s in roster.empty_seats() if s not in roster.reserved])

    def refill(self) -> None:
        """As many waiting codes as free seats (no more: a code per seat, read out)."""
        if self.closed or self.host.state.started:
            return
        missing = self.free_seats() - len(self.waiting)
        for _ in range(max(0, missing)):
            self._next += 1
            number = self._next
            self.waiting[number] = None
            d = ensureDeferred(self._open(number))
            d.addErrback(self._failed, number)

    async def _open(self, number: int) -> None:
        w = _create(self._create)(APPID, self.mailbox, self.reactor, dilation=True)
        self.wormholes[number] = w
        w.allocate_code(CODE_WORDS)
        code = await w.get_code()
        self.waiting[number] = code
        self._told()
        verified = w.get_verifier()  # fails at once for a wrong code
        dilated = w.dilate(transit_relay_location=self.relay)
        await DeferredList([verified, dilated.when_dilated()], fireOnOneErrback=True,
                           consumeErrors=True)
        # Someone typed the code: the seat it was for is theirs to take in the lobby.
        self.waiting.pop(number, None)
        self._told()
        nameplate = code.split("-", 1)[0]
        self.log.info("seat code {nameplate}-... used: the lobby opens on it",
                      nameplate=nameplate)
        await dilated.listener_for(LOBBY_SUBPROTOCOL).listen(
            Factory.forProtocol(lambda: self.host.protocol(source=f"code {nameplate}")))
        self.refill()

    def _failed(self, failure: Any, number: int) -> None:
        """A wormhole that failed (a wrong guess spends its code; the mailbox unreachable):
        it is closed, and `refill` opens another for the seat."""
        code = self.waiting.pop(number, None)
        w = self.wormholes.pop(number, None)
        if w is not None:
            w.close().addErrback(lambda _f: None)
        if self.closed:
            return
        exc = _root(failure.value)
        why = _wrong_code_text(exc) or f"the mailbox {self.mailbox}: {exc}"
        self.errors.append(why)
        self.log.warn("seat code {code}: {why}", code=code or "(not allocated)", why=why)
        if self.on_warning is not None:
            self.on_warning(f"seat code {code or '(not allocated)'}: {why}")
        self._told()
        # A mailbox that cannot be reached is tried again in a few seconds, not at once.
        self.reactor.callLater(0 if code else 5.0, self.refill)

    def _told(self) -> None:
        if self.on_codes is not None and not self.closed:
            self.on_codes(self.codes())

    def close(self) -> None:
        """Close every wormhole of the lobby (the game's links are wormholes of their own)."""
        self.closed = True
        if self._loop.running:
            self._loop.stop()
        for w in list(self.wormholes.values()):
            w.close().addErrback(lambda _f: None)
        self.wormholes.clear()
        self.waiting.clear()


def _root(exc: BaseException) -> BaseException:
    """The error under the `FirstError`s of Deferred lists."""
    while isinstance(exc, FirstError):
        exc = exc.subFailure.value
    return exc


def _wrong_code_text(exc: BaseException) -> str | None:
    if type(_root(exc)).__name__ == "WrongPasswordError":
        return "someone typed a wrong code (the code is spent; a new one replaces it)"
    return None


async def open_seat_code(reactor: Any, code: str, mailbox: str, relay: str,
                         wait: float = JOIN_WAIT,
                         create: Callable[..., Any] | None = None) -> tuple[Any, Any]:
    """Open the wormhole behind a seat code: (the wormhole: close it after the start, the
    client endpoint of the host's lobby on it: each connection a new subchannel, so a
    wrong passphrase can be typed again on the same code). Raises `WrongCode` (typed
    wrong, or nobody waits at it within ``wait`` seconds) or `LobbyClosed` (the mailbox
    cannot be reached)."""
    code = code.strip().lower()
    w = _create(create)(APPID, mailbox, reactor, dilation=True)
    try:
        w.set_code(code)
        verified = w.get_verifier()
        dilated = w.dilate(transit_relay_location=relay)
        timer: Deferred[None] = Deferred()
        call = reactor.callLater(wait, lambda: timer.called or timer.callback(None))
        both = DeferredList([verified, dilated.when_dilated()], fireOnOneErrback=True,
                            consumeErrors=True)
        first = await DeferredList([both, timer], fireOnOneCallback=True,
                                   fireOnOneErrback=True, consumeErrors=True)
        if call.active():
            call.cancel()
        if first[1] == 1:  # the timer
            raise WrongCode(f"nobody answered at {code} within {wait:.0f} s: check the "
                            "code with the host", "mailbox")
    except WrongCode:
        w.close().addErrback(lambda _f: None)
        raise
    except Exception as exc:
        w.close().addErrback(lambda _f: None)
        inner = _root(exc)
        if _wrong_code_text(inner) is not None:
            raise WrongCode(f"{code} is not the host's code: it was typed wrong, or "
                            "already used (ask the host for a new one)", "mailbox") from None
        raise LobbyClosed(f"cannot reach the mailbox {mailbox}: {inner}", "mailbox") from None
    return w, dilated.connector_for(LOBBY_SUBPROTOCOL)


async def join_by_code(reactor: Any, code: str, me: Participant, mailbox: str, relay: str,
                       passphrase: str | None = None, wait: float = JOIN_WAIT,
                       create: Callable[..., Any] | None = None) -> tuple[LobbyGuest, Any]:
    """Join the table behind a seat code: (the guest, its wormhole: close it after the
    start). Raises what `open_seat_code` and `join_table` raise."""
    w, endpoint = await open_seat_code(reactor, code, mailbox, relay, wait, create)
    try:
        guest = await join_table(reactor, f"code {code.strip().split('-')[0]}", me,
                                 passphrase, endpoint=endpoint, mailbox=mailbox)
    except BaseException:
        w.close().addErrback(lambda _f: None)
        raise
    return guest, w
