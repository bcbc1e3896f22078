"""Watch codes of an internet table: how a watcher reaches the host's seat, whose game port
listens on loopback only.

Once the game starts, the host's seat opens one *watch code* (`WatchCodes`): a wormhole of
its own at the table's mailbox, with the watch codes' application id and four words
(`rendezvous.WATCH_CODE`), so a watch code never reaches a lobby and a seat code never
reaches the watchers. ``tractor watch CODE`` opens the same wormhole (`lobby.open_code`)
and the LAN's watcher protocol runs unchanged over a Dilation subchannel, into the host
seat's `Watchers` through an ordinary game link (`WatchLink`): the same welcome, the same
transcript, the same bounds, the same passphrase check at a table that has one.

One code serves one watcher: once it is typed right the next opens, as long as fewer than
the seat's watcher limit hold codes; the code closes when its watcher leaves. A wrong guess
spends the code (the key agreement fails on both sides); its replacement opens within a
`GuessBudget` of its own, as seat codes' do. The mailbox out of reach is tried again with
the seat codes' back-off.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from twisted.internet.defer import Deferred, DeferredList, ensureDeferred
from twisted.internet.interfaces import IAddress, ITransport
from twisted.internet.protocol import Factory, Protocol
from twisted.internet.task import LoopingCall
from twisted.logger import Logger
from twisted.protocols.basic import Int32StringReceiver
from twisted.python.failure import Failure
from zope.interface import implementer

from tractor.net.codec import encode
from tractor.net.internet.dilation import dilate_only
from tractor.net.internet.lobby import GUESS_SILENCE, _create, _reason, _root, _wrong_code_text
from tractor.net.internet.rendezvous import WATCH_CODE
from tractor.net.internet.seat_code_limits import GuessBudget, MailboxBackoff
from tractor.net.mesh.link import LinkNode, PeerLink

#: Seconds a code typed right stays open while no connection of its watcher is (the time
#: to type the table's passphrase again): then it closes, and its place with it.
WATCH_HOLD = 60.0
#: What a second connection on a code whose watcher watches is told.
ONE_WATCHER = "a watch code serves one watcher: ask the host for another"


@implementer(IAddress)
@dataclass(frozen=True)
class CodeAddress:
    """Where a watcher came from, as the port's gates and the watchers count it: its
    code (a Dilation subchannel names no host, and every watcher would count as one)."""

    host: str


class _FromCode:
    """A subchannel's transport that names the code its watcher came with (`CodeAddress`);
    everything else is the subchannel's."""

    def __init__(self, transport: ITransport, address: CodeAddress) -> None:
        self._transport = transport
        self._address = address

    def getPeer(self) -> CodeAddress:
        return self._address

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class WatchLink(PeerLink):
    """A connection on a watch code's subchannel: a game link that takes a watcher's hello
    only (a seat's hello is refused: seats meet through their own wormholes). ``lost`` is
    told when it closes, and whether its watcher was being served."""

    def __init__(self, node: LinkNode, address: CodeAddress,
                 lost: Callable[[WatchLink, bool], None]) -> None:
        super().__init__(node)
        self.address = address
        self.lost = lost

    def makeConnection(self, transport: ITransport) -> None:
        proxy = cast(ITransport, _FromCode(transport, self.address))
        super().makeConnection(proxy)  # type: ignore[no-untyped-call]  # (Twisted: unannotated)

    def _hello_received(self, data: bytes) -> None:
        self._drop("a watch code's connection is for a watcher, not a seat")

    def connectionLost(self, reason: Failure | None = None) -> None:
        served = self.watcher is not None and self.watcher in self.node.watchers.served
        super().connectionLost(reason)
        self.lost(self, served)


class _Refusing(Int32StringReceiver):
    """A connection refused in the watchers' own words (`watchers.Watchers.refuse`)."""

    def __init__(self, why: str) -> None:
        self.why = why

    def connectionMade(self) -> None:
        self.sendString(encode({"t": "refused", "why": self.why}))  # type: ignore[no-untyped-call]  # (Twisted)
        assert self.transport is not None  # (connected)
        self.transport.loseConnection()

    def stringReceived(self, data: bytes) -> None:
        pass  # its hello, already answered


@dataclass
class _Used:
    """A code typed right: its wormhole, and the connections of its watcher."""

    code: str
    at: float
    wormhole: Any
    links: list[WatchLink] = field(default_factory=list)


class WatchCodes:
    """The host seat's watch codes (see the module docstring). ``on_code`` is called with
    each code as it opens, ``on_warning`` with a line for the host (a code spent by a
    wrong guess, the mailbox out of reach and back, the watchers' limit reached)."""

    log = Logger()

    def __init__(self, reactor: Any, node: LinkNode, mailbox: str, relay: str,
                 on_code: Callable[[str], None], on_warning: Callable[[str], None],
                 create: Callable[..., Any] | None = None,
                 budget: GuessBudget | None = None) -> None:
        self.reactor, self.node, self.clock = reactor, node, node.clock
        self.mailbox, self.relay = mailbox, relay
        self.on_code, self.on_warning = on_code, on_warning
        self._create = create
        self.budget = budget or GuessBudget()
        self.reach = MailboxBackoff()
        self.number = 0  #: the newest code's number (its wormhole's, once opened)
        self.waiting: Any = None  #: the wormhole of the code open for the next watcher
        self.code: str | None = None  #: its code, once the mailbox allocated it
        self.used: dict[int, _Used] = {}  #: codes typed right whose watcher may still come
        self.owed = False  #: the last code was spent by a guess and is not replaced yet
        self.full = False  #: the watchers' limit was said (and no code is open)
        self.closed = False
        self.errors: list[str] = []
        self._loop = LoopingCall(self.refill)
        self._loop.clock = self.clock

    def start(self) -> None:
        self.refill()
        self._loop.start(1.0, now=False)

    # --- opening codes ----------------------------------------------------------------------

    def refill(self) -> None:
        """A code open for the next watcher, if there is room for one and the budget and
        the mailbox allow it now; codes whose watcher never came (or left) close."""
        if self.closed:
            return
        now = self.clock.seconds()
        for number, used in list(self.used.items()):
            if not self._open_links(used) and now - used.at >= WATCH_HOLD:
                self._done(number)
        session = self.node.session
        if self.waiting is not None or session is None or session.over:
            return
        limit = self.node.watchers.limit
        if len(self.used) >= limit:
            if not self.full:
                self.full = True
                self._say(f"the watchers' limit ({limit}) is reached: the next watch code "
                          "opens when a watcher leaves")
            return
        self.full = False
        if not self.reach.may_try(now):
            return
        if self.owed:
            at = self.budget.replacement_at(now)
            if at is None or at > now:
                return
            self.budget.opened(now)
            self.owed = False
        self.number += 1
        d = ensureDeferred(self._open(self.number))
        d.addErrback(self._failed, self.number)

    async def _open(self, number: int) -> None:
        w = _create(self._create)(WATCH_CODE.appid, self.mailbox, self.reactor, dilation=True)
        self.waiting, self.code = w, None
        w.allocate_code(WATCH_CODE.words)
        code = await w.get_code()
        if number != self.number or self.closed:
            return  # closed meanwhile
        self.code = code
        if self.reach.reached():
            self._say(f"the mailbox {self.mailbox} can be reached now: opening a watch code")
        self.on_code(code)
        verified = w.get_verifier()  # fails at once for a wrong code
        key = w.get_unverified_key()  # someone answered: right or wrong, the code is spent
        key.addCallback(lambda _k: self.clock.callLater(GUESS_SILENCE, self._silent, number,
                                                        verified))
        key.addErrback(lambda _f: None)
        dilated = dilate_only(w, [WATCH_CODE.subprotocol],
                              transit_relay_location=self.relay)
        await DeferredList([verified, dilated.when_dilated()], fireOnOneErrback=True,
                           consumeErrors=True)
        if number != self.number or self.waiting is not w:
            return  # counted as spent meanwhile, or closed
        self.waiting, self.code = None, None
        self.used[number] = _Used(code, self.clock.seconds(), w)
        self.log.info("watch code {nameplate}-... used: a watcher comes on it",
                      nameplate=code.split("-", 1)[0])
        factory = Factory.forProtocol(lambda: self._link(number))
        await dilated.listener_for(WATCH_CODE.subprotocol).listen(factory)
        self.refill()  # the next watcher's code

    def _link(self, number: int) -> Protocol:
        used = self.used.get(number)
        if used is None:
            return _Refusing(ONE_WATCHER)  # (its wormhole is closing)
        if self._open_links(used):
            return _Refusing(ONE_WATCHER)
        link = WatchLink(self.node, CodeAddress(f"watch code #{number}"),
                         lambda _link, served: self._lost(number, served))
        used.links.append(link)
        return link

    def _open_links(self, used: _Used) -> list[WatchLink]:
        """The connections of a code still open (a watcher may open one after another, to
        type the passphrase again)."""
        used.links = [link for link in used.links
                      if link in self.node.connections and not link.closing]
        return used.links

    def _lost(self, number: int, served: bool) -> None:
        """A connection of code ``number`` closed: once its watcher was served, the code
        is done (and its place free for the next)."""
        if served and number in self.used:
            self._done(number)
        self.refill()

    def _done(self, number: int) -> None:
        used = self.used.pop(number)
        used.wormhole.close().addErrback(lambda _f: None)

    # --- codes that fail --------------------------------------------------------------------

    def _failed(self, failure: Failure, number: int) -> None:
        """A wormhole that failed: before its code, the mailbox is out of reach (tried
        again with back-off); after it, the code is spent (a wrong guess); once used, its
        watcher's place is free again."""
        if self.closed:
            return
        exc = _root(failure.value)
        if number in self.used:
            self.log.warn("a watch code's connection failed: {why}", why=_reason(exc))
            self._done(number)
        elif number != self.number or self.waiting is None:
            return  # closed or counted already
        elif self.code is not None:
            self._spent("a wrong guess" if _wrong_code_text(exc) is not None
                        else f"an error ({_reason(exc)})")
        else:
            self._unreachable(exc)
        self.refill()

    def _silent(self, number: int, verified: Deferred[Any]) -> None:
        if not self.closed and not verified.called and number == self.number \
                and self.waiting is not None:
            self._spent("a guess that never finished")
            self.refill()

    def _spent(self, how: str) -> None:
        """The waiting code was spent without a watcher: told to the host, replaced within
        the budget."""
        code = self.code
        self._close_waiting()
        now = self.clock.seconds()
        count = self.budget.spend(now)
        self.owed = True
        self.errors.append(f"{code}: {how}")
        self.log.warn("watch code {code} spent by {how}", code=code, how=how)
        at = self.budget.replacement_at(now)
        text = f"the watch code {code} was spent by {how} ({count} in the last 24 hours)"
        if at is None:
            self._say(f"{text}: new watch codes are paused for up to a day")
        elif at > now:
            self._say(f"{text}; the next opens in {at - now:.0f} s")
        else:
            self._say(f"{text}; a new one opens")

    def _unreachable(self, exc: BaseException) -> None:
        self._close_waiting()
        why = _reason(exc)
        self.errors.append(why)
        now = self.clock.seconds()
        if not self.reach.down:
            self._say(f"cannot reach the mailbox {self.mailbox} ({why}): no watch code until "
                      "it answers; trying again, less and less often")
        self.reach.failed(now)

    def _close_waiting(self) -> None:
        w, self.waiting, self.code = self.waiting, None, None
        if w is not None:
            w.close().addErrback(lambda _f: None)

    def _say(self, text: str) -> None:
        if not self.closed:
            self.on_warning(text)

    def close(self) -> None:
        """Close every watch code's wormhole (its watchers' connections with them)."""
        self.closed = True
        if self._loop.running:
            self._loop.stop()
        self._close_waiting()
        for number in list(self.used):
            self._done(number)
