"""The lobby of an internet table: seat codes read out to friends, and joining by one.

The host opens a magic-wormhole per free seat (`SeatCodes`): the mailbox allocates its
short code (``7-guitarist-revenge-bodyguard``), which the host reads out. A friend's
``tractor join 7-guitarist-revenge-bodyguard`` opens the same wormhole (`join_by_code`);
SPAKE2 confirms both sides typed the same code (a wrong guess spends the code: the host
gets a new one, within the budget of `seat_code_limits`), Dilation connects them (directly
or through the relay), and the ordinary lobby protocol (`net.lobby`: passphrase, roster,
ready, start) runs on a subchannel. AI seats of the host's machine join on loopback, as on
a LAN. After the start, the game's links are each pair's own wormholes (`net.internet.mesh`);
these lobby wormholes close.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from twisted.internet.defer import Deferred, DeferredList, FirstError, ensureDeferred
from twisted.internet.protocol import Factory, Protocol
from twisted.internet.task import LoopingCall
from twisted.logger import Logger
from twisted.protocols.basic import Int32StringReceiver

from tractor.net.internet.dilation import dilate_only
from tractor.net.internet.mesh import prefer_direct_connections
from tractor.net.internet.rendezvous import APPID, LOBBY_SUBPROTOCOL, SEAT_CODE, CodeKind
from tractor.net.internet.seat_code_limits import (
    CODE_WORDS,
    GuessBudget,
    MailboxBackoff,
    code_problem,
)
from tractor.net.lobby.errors import LobbyClosed, WrongCode
from tractor.net.lobby.guest_protocol import LobbyGuest, join_table
from tractor.net.lobby.host_protocol import HostLink, LobbyHost
from tractor.net.lobby.messages import pack
from tractor.net.lobby.seating import Participant

#: Seconds a joiner waits for the host at a code before giving up.
JOIN_WAIT = 90.0
#: Seconds a code typed right keeps its seat for the person taking it (no second code
#: opens for that seat meanwhile), unless they sit down or leave first.
JOIN_HOLD = 120.0
#: Seconds between a guesser's key and their confirmation after which the code counts as
#: spent: a guesser learns whether they were right from the host's answer alone, and may
#: never send theirs (a friend's program sends it at once).
GUESS_SILENCE = 60.0


def _create(create: Callable[..., Any] | None) -> Callable[..., Any]:
    if create is not None:
        return create
    import wormhole  # only internet tables need the package

    prefer_direct_connections()
    return wormhole.create  # type: ignore[no-any-return]


@dataclass
class _Used:
    """A code someone typed right: its joiner's lobby connections."""

    at: float
    links: list[HostLink] = field(default_factory=list)
    sat: bool = False  #: its joiner took a seat (once they leave it, the code is done)


#: What a joiner hears who comes back through the wormhole of a code they sat with and
#: left: each seating takes a code the host gives out (else one joiner leaving and coming
#: back again and again would open a fresh code for strangers to guess each time).
CODE_DONE = ("this seat code was used to sit at the table and leave it: ask the host for a "
             "new code")


class _CodeDone(Int32StringReceiver):
    """A lobby connection on a code that is done: refused in the lobby's own words."""

    def connectionMade(self) -> None:
        refusal = pack({"refused": WrongCode.code, "why": CODE_DONE})
        self.sendString(refusal)  # type: ignore[no-untyped-call]  # (Twisted: unannotated)
        assert self.transport is not None  # (connected)
        self.transport.loseConnection()

    def stringReceived(self, data: bytes) -> None:
        pass  # the hello, already answered


class SeatCodes:
    """The host's open seat codes: one wormhole waiting per free seat. ``on_codes`` is
    called with the codes whenever they change (a code used, opened, or a seat freed),
    ``on_warning`` with a line for the host (a code spent by a wrong guess and what
    replaces it, the mailbox out of reach and back), ``on_open`` once, when the first
    codes are allocated (the table is open on the internet from then on)."""

    log = Logger()

    def __init__(self, reactor: Any, host: LobbyHost, mailbox: str, relay: str,
                 on_codes: Callable[[list[str]], None] | None = None,
                 create: Callable[..., Any] | None = None,
                 on_warning: Callable[[str], None] | None = None,
                 on_open: Callable[[], None] | None = None,
                 budget: GuessBudget | None = None) -> None:
        self.reactor, self.host, self.clock = reactor, host, host.clock
        self.mailbox, self.relay = mailbox, relay
        self.on_codes, self.on_warning, self.on_open = on_codes, on_warning, on_open
        self._create = create
        self.budget = budget or GuessBudget()
        self.reach = MailboxBackoff()
        self.waiting: dict[int, str | None] = {}  #: wormhole number -> its code (once known)
        self.wormholes: dict[int, Any] = {}  #: every wormhole opened and not closed
        self.used: dict[int, _Used] = {}  #: codes typed right whose joiner is not seated
        self.owed = 0  #: codes spent without seating anyone, not replaced yet
        self._replacing: dict[int, str | None] = {}  #: replacement -> the line it completes
        self._unsaid: list[str] = []  #: lines of spent codes whose replacement opens now
        self._next = 0
        self.is_open = False
        self.closed = False
        self.errors: list[str] = []
        self._loop = LoopingCall(self.refill)
        self._loop.clock = self.clock

    def start(self) -> None:
        self.refill()
        self._loop.start(1.0, now=False)

    def codes(self) -> list[str]:
        return sorted(c for c in self.waiting.values() if c is not None)

    def free_seats(self) -> int:
        """Seats a person may still take: empty and not reserved for an AI asked for."""
        roster = self.host.roster()
        return len([s for s in roster.empty_seats() if s not in roster.reserved])

    def _missing(self) -> int:
        """Free seats without a code (negative: more codes than free seats)."""
        return self.free_seats() - len(self.waiting) - self._joining()

    def _joining(self) -> int:
        """Codes typed right whose joiner may still take a seat (their seat is held)."""
        now, holding = self.clock.seconds(), 0
        for number, used in list(self.used.items()):
            if any(_seated(self.host, link) for link in used.links):
                used.sat = True  # seated: the roster counts the seat from now on
            elif used.sat:
                # Sat and left: the code is done (`CODE_DONE`). A joiner who sits and
                # leaves between two looks changes nothing a look sees: no code opens or
                # is forgiven for a seat that is free at every look.
                del self.used[number]
                self._close(number)
            elif now - used.at < JOIN_HOLD:
                holding += 1
        return holding

    # --- opening codes ----------------------------------------------------------------------

    def refill(self) -> None:
        """As many waiting codes as free seats (no more: a code per seat, read out); codes
        spent without seating anyone are replaced as the `GuessBudget` allows."""
        if self.closed or self.host.state.started:
            return
        missing = self._missing()
        self.owed = min(self.owed, max(0, missing))
        if len(self._unsaid) > self.owed:  # a seat was taken meanwhile: no replacement
            while len(self._unsaid) > self.owed:
                self._say(self._unsaid.pop(0))
            self._told()
        if missing < 0:
            self._close_surplus(-missing)
            return
        now = self.clock.seconds()
        if self.reach.down:  # one try at a time, as the back-off allows
            if self.reach.may_try(now) and None not in self.waiting.values():
                if missing > self.owed:
                    self._open_code()
                else:
                    self._replace(now)
            return
        for _ in range(missing - self.owed):
            self._open_code()
        while self.owed and self._replace(now) is not None:
            pass
        if not self.is_open:
            self._told()

    def _replace(self, now: float) -> int | None:
        """Open a replacement for a spent code if the budget allows it now."""
        at = self.budget.replacement_at(now)
        if not self.owed or at is None or at > now:
            return None
        self.budget.opened(now)
        self.owed -= 1
        return self._open_code(True, self._unsaid.pop(0) if self._unsaid else None)

    def _open_code(self, replacement: bool = False, note: str | None = None) -> int:
        """Open a wormhole for a code (``replacement``: of a spent one, counted in the
        budget, ``note`` the line its code completes)."""
        self._next += 1
        number = self._next
        self.waiting[number] = None
        if replacement:
            self._replacing[number] = note
        d = ensureDeferred(self._open(number))
        d.addErrback(self._failed, number)
        return number

    async def _open(self, number: int) -> None:
        w = _create(self._create)(APPID, self.mailbox, self.reactor, dilation=True)
        self.wormholes[number] = w
        w.allocate_code(CODE_WORDS)
        code = await w.get_code()
        if number not in self.waiting:
            return  # closed meanwhile
        self.waiting[number] = code
        self._allocated(number, code)
        verified = w.get_verifier()  # fails at once for a wrong code
        key = w.get_unverified_key()  # someone answered: right or wrong, the code is spent
        key.addCallback(lambda _k: self.clock.callLater(GUESS_SILENCE, self._silent, number,
                                                        verified))
        key.addErrback(lambda _f: None)
        dilated = dilate_only(w, [LOBBY_SUBPROTOCOL], transit_relay_location=self.relay)
        await DeferredList([verified, dilated.when_dilated()], fireOnOneErrback=True,
                           consumeErrors=True)
        if self.waiting.pop(number, None) is None:
            return  # counted as spent meanwhile
        # Someone typed the code: the seat it was for is theirs to take in the lobby.
        self.used[number] = _Used(self.clock.seconds())
        self._told()
        nameplate = code.split("-", 1)[0]
        self.log.info("seat code {nameplate}-... used: the lobby opens on it",
                      nameplate=nameplate)
        await dilated.listener_for(LOBBY_SUBPROTOCOL).listen(
            Factory.forProtocol(lambda: self._lobby_link(number, nameplate)))
        self.refill()

    def _lobby_link(self, number: int, nameplate: str) -> Protocol:
        if number not in self.used:
            return _CodeDone()  # its joiner sat and left (its wormhole is closing)
        link = self.host.protocol(source=f"code {nameplate}")
        used = self.used[number]
        # Only the connections still open: a joiner may open and drop many in turn.
        used.links = [old for old in used.links if self.host.links.get(old.conn) is old]
        used.links.append(link)
        return link

    def _allocated(self, number: int, code: str) -> None:
        if self.reach.reached():
            self._say(f"the mailbox {self.mailbox} can be reached now: opening seat codes")
            self.refill()  # the other seats' codes, held back while it was out of reach
        note = self._replacing.pop(number, None)
        if note is not None and self.is_open:
            self._say(f"{note}; its replacement: {code}")
        else:
            self._told()

    # --- codes that fail --------------------------------------------------------------------

    def _failed(self, failure: Any, number: int) -> None:
        """A wormhole that failed: before its code, the mailbox is out of reach (tried
        again with back-off); after it, the code is spent (a wrong guess)."""
        if self.closed or (number not in self.waiting and number not in self.wormholes):
            return  # closed, or already counted
        exc = _root(failure.value)
        if self.waiting.get(number) is not None:
            self._spent(number, "a wrong guess" if _wrong_code_text(exc) is not None
                        else f"an error ({_reason(exc)})")
        elif number in self.waiting:
            self._unreachable(number, exc)
        else:  # a code typed right whose lobby failed: its seat gets a new code
            self.log.warn("a seat code's lobby failed: {why}", why=_reason(exc))
            self._close(number)
            self.used.pop(number, None)
            self.refill()

    def _silent(self, number: int, verified: Deferred[Any]) -> None:
        if not self.closed and not verified.called and self.waiting.get(number) is not None:
            self._spent(number, "a guess that never finished")

    def _spent(self, number: int, how: str) -> None:
        """A code spent without seating anyone: told to the host, replaced within the
        budget (at once, after a wait, or when the host types `codes`)."""
        code = self.waiting.get(number)
        self._close(number)
        now = self.clock.seconds()
        count = self.budget.spend(now)
        self.owed += 1
        self.errors.append(f"{code}: {how}")
        self.log.warn("seat code {code} spent by {how}", code=code, how=how)
        text = f"the code {code} was spent by {how} ({count} in the last 24 hours)"
        at = self.budget.replacement_at(now, ahead=self.owed - 1)
        if at is None:
            self._say(f"the code {code} was spent by {how}. {count} wrong guesses at your "
                      "seat codes in the last 24 hours: new codes are paused; type `codes` "
                      "to open new ones")
        elif at > now:
            self._say(f"{text}; its replacement opens in {at - now:.0f} s (after a few "
                      "wrong guesses each new code waits longer)")
        else:
            self._unsaid.append(text)
        self.refill()

    def _unreachable(self, number: int, exc: BaseException) -> None:
        """A wormhole that got no code: said once per outage, tried again with back-off (a
        replacement that got no code was never guessed: it does not count)."""
        self._close(number)
        if number in self._replacing:
            note = self._replacing.pop(number)
            self.budget.returned()
            self.owed += 1
            if note is not None:
                self._say(note)
        why = _reason(exc)
        self.errors.append(why)
        self.log.warn("the mailbox {mailbox}: {why}", mailbox=self.mailbox, why=why)
        now = self.clock.seconds()
        if not self.reach.down:
            self.reach.failed(now)
            self._say(f"cannot reach the mailbox {self.mailbox} ({why}): no seat codes until "
                      "it answers; trying again in 1 s, then less and less often (up to once "
                      "a minute). If the address is wrong, quit and host again with "
                      "--mailbox URL")
        elif now >= self.reach.next_try:  # the try the back-off made (not one from before)
            self.reach.failed(now)
        self.clock.callLater(self.reach.wait, self.refill)

    def _close_surplus(self, count: int) -> None:
        """More codes than free seats (a seat taken by an AI or a joiner): the newest
        codes close, so none stays open that would only say the table is full."""
        for number in sorted(self.waiting, reverse=True)[:count]:
            self.waiting.pop(number)
            self._replacing.pop(number, None)
            self._close(number)
        self._told()

    # --- telling the host -------------------------------------------------------------------

    def _told(self) -> None:
        """The codes changed: say them (the first time, once every free seat has its code,
        with ``on_open``: only then is the table open on the internet)."""
        if self.closed:
            return
        if not self.is_open:
            if None in self.waiting.values() or self._missing() - self.owed > 0:
                return
            self.is_open = True
            if self.on_open is not None:
                self.on_open()
        if self.on_codes is not None:
            self.on_codes(self.codes())

    def _say(self, text: str) -> None:
        if self.on_warning is not None and not self.closed:
            self.on_warning(text)

    def ask(self) -> str | None:
        """The host typed `codes`: open new codes if they were paused (one per free seat
        without one; the next wrong guess pauses them again) and say so; None when there
        is nothing new to say (the codes as they are)."""
        now = self.clock.seconds()
        if self.reach.down:
            return (f"the mailbox {self.mailbox} cannot be reached yet: trying again in "
                    f"{max(0.0, self.reach.next_try - now):.0f} s")
        at = self.budget.replacement_at(now)
        if self.owed and at is None:
            count = self.owed
            self.budget.allow(count)
            self.refill()
            return (f"opening {count} new seat code(s); the next wrong guess pauses new "
                    "codes again")
        if self.owed and at is not None:
            return f"{self.owed} new seat code(s) open in {max(0.0, at - now):.0f} s"
        return None

    def _close(self, number: int) -> None:
        self.waiting.pop(number, None)
        w = self.wormholes.pop(number, None)
        if w is not None:
            w.close().addErrback(lambda _f: None)

    def close(self) -> None:
        """Close every wormhole of the lobby (the game's links are wormholes of their own)."""
        self.closed = True
        if self._loop.running:
            self._loop.stop()
        for w in list(self.wormholes.values()):
            w.close().addErrback(lambda _f: None)
        self.wormholes.clear()
        self.waiting.clear()


def _seated(host: LobbyHost, link: HostLink) -> bool:
    conn = host.state.conns.get(link.conn)
    return conn is not None and conn.seat is not None


def _wormhole_failures() -> tuple[type[Exception], ...]:
    """What opening a wormhole fails with when the mailbox or the peer lets it down: the
    library's own errors (the mailbox out of reach, a wrong code, nobody there), a wormhole
    closed under it, and the `FirstError` of a Deferred list around one of them (`_root`).
    Imported here, not at the top: only internet tables need the package."""
    from wormhole.errors import WormholeClosed, WormholeError

    return (WormholeError, WormholeClosed, FirstError)


def _root(exc: BaseException) -> BaseException:
    """The error under the `FirstError`s of Deferred lists."""
    while isinstance(exc, FirstError):
        exc = exc.subFailure.value
    return exc


def _reason(exc: BaseException) -> str:
    """A short reason for a person: the mailbox's own words (a refused connection, a name
    that does not resolve), not a class name."""
    exc = _root(exc)
    inner = getattr(exc, "reason", None)  # wormhole's ServerConnectionError wraps one
    text = str(inner if isinstance(inner, BaseException) else exc).strip()
    return text.rstrip(".") or type(exc).__name__


def _wrong_code_text(exc: BaseException) -> str | None:
    if type(_root(exc)).__name__ == "WrongPasswordError":
        return "someone typed a wrong code (the code is spent; a new one replaces it)"
    return None


async def open_code(reactor: Any, code: str, mailbox: str, relay: str,
                    wait: float = JOIN_WAIT, create: Callable[..., Any] | None = None,
                    kind: CodeKind = SEAT_CODE) -> tuple[Any, Any]:
    """Open the wormhole behind a seat code (``kind``: a code of another kind, a watch
    code): (the wormhole: close it after the start, the client endpoint of the host's
    lobby on it (of its watchers, for a watch code): each connection a new subchannel, so
    a wrong passphrase can be typed again on the same code). Raises `WrongCode` (typed
    wrong, not a code of that kind at all, or nobody waits at it within ``wait`` seconds)
    or `LobbyClosed` (the mailbox cannot be reached)."""
    code = code.strip().lower()
    problem = code_problem(code, kind.watch)
    if problem is not None:
        raise WrongCode(problem, "mailbox")
    w = _create(create)(kind.appid, mailbox, reactor, dilation=True)
    opened = False
    try:
        w.set_code(code)
        verified = w.get_verifier()
        dilated = dilate_only(w, [], transit_relay_location=relay)  # (it only connects)
        timer: Deferred[None] = Deferred()

        def time_up() -> None:
            if not timer.called:
                timer.callback(None)
        call = reactor.callLater(wait, time_up)
        both = DeferredList([verified, dilated.when_dilated()], fireOnOneErrback=True,
                            consumeErrors=True)
        racing: list[Deferred[Any]] = [both, timer]
        first = await DeferredList(racing, fireOnOneCallback=True, fireOnOneErrback=True,
                                   consumeErrors=True)
        if call.active():
            call.cancel()
        if first[1] == 1:  # the timer
            raise WrongCode(f"nobody answered at {code} within {wait:.0f} s: check the "
                            "code with the host", "mailbox")
        opened = True
    except _wormhole_failures() as exc:
        inner = _root(exc)
        if not isinstance(inner, _wormhole_failures()):
            raise  # a bug under a Deferred list's wrapping: it goes up
        if _wrong_code_text(inner) is not None:
            again = ("each watch code serves one watcher: the host's log shows the next"
                     if kind.watch else "ask the host for a new one")
            name = kind.name if kind.watch else "code"
            raise WrongCode(f"{code} is not the host's {name}: it was typed wrong, or "
                            f"already used ({again})", "mailbox") from None
        raise LobbyClosed(f"cannot reach the mailbox {mailbox}: {inner}", "mailbox") from None
    finally:
        if not opened:  # refused, out of reach, or a bug: the wormhole is of no use
            w.close().addErrback(lambda _f: None)
    return w, dilated.connector_for(kind.subprotocol)


#: (Its first and most common use.)
open_seat_code = open_code


async def join_by_code(reactor: Any, code: str, me: Participant, mailbox: str, relay: str,
                       passphrase: str | None = None, wait: float = JOIN_WAIT,
                       create: Callable[..., Any] | None = None) -> tuple[LobbyGuest, Any]:
    """Join the table behind a seat code: (the guest, its wormhole: close it after the
    start). Raises what `open_seat_code` and `join_table` raise."""
    w, endpoint = await open_seat_code(reactor, code, mailbox, relay, wait, create)
    guest: LobbyGuest | None = None
    try:
        guest = await join_table(reactor, f"code {code.strip().split('-')[0]}", me,
                                 passphrase, endpoint=endpoint, mailbox=mailbox)
    finally:
        if guest is None:  # not seated, whatever stopped it: the wormhole is of no use
            w.close().addErrback(lambda _f: None)
    return guest, w
