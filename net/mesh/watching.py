"""A watcher's side of its connection to a seat's game port (`WatchClient`): it says it
watches (`watchers.watch_hello`), reads the welcome (the seating it replays the game from),
then hands every signed frame to a `Spectator`, which checks it as a seat would. It sends
nothing else: nothing it could say would be read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.protocols.basic import Int32StringReceiver
from twisted.protocols.policies import TimeoutMixin
from twisted.python.failure import Failure

from tractor.errors import TractorError
from tractor.net.codec import CodecError, Limits, decode
from tractor.net.deck.envelope import MAX_FRAME
from tractor.net.errors import NetError
from tractor.net.lobby.errors import BadLobbyMessage, LobbyError, WrongPassphrase, printable
from tractor.net.lobby.messages import KEY_SIZE, KINDS, MAX_NAME, MAX_TABLE_NAME, NONCE_SIZE
from tractor.net.lobby.pake import Channel, GuestHandshake
from tractor.net.lobby.seating import TableBinding, read_carry
from tractor.net.mesh.watchers import MAX_TABLE_ID, NEEDS_PASSPHRASE, watch_hello
from tractor.net.table.spectator import Spectator, WatchRefused
from tractor.rules import MAX_PLAYERS, Rules

#: A welcome (or a refusal): a map of five fields; twelve keys and names at most.
WELCOME_LIMITS = Limits(max_bytes=8192, max_depth=4, max_elements=256, max_str=256,
                        max_bin=KEY_SIZE, max_array=MAX_PLAYERS + 3, max_map=64)


#: Seconds without a message (the seat beats every `watch_link.HEARTBEAT`) after which a
#: watcher takes the seat for gone.
SILENCE = 20.0
#: Frames a watcher takes that change nothing (copies, frames of settled hands) before it
#: takes the seat for hostile: an honest seat sends each frame once, and a few again (the
#: evidence of a halt); one that sends the game again and again would spend the watcher's
#: time on signatures for ever (a seat's links have the same bound per hand).
MAX_COPIES = 4096


class WatchError(NetError, ValueError):
    """Why watching a table could not begin or go on, in words for the person."""


class PassphraseRefused(WatchError):
    """The table has a passphrase and the watcher gave none, or a wrong one: asking the
    person (again) may help."""


@dataclass(frozen=True)
class Welcome:
    """The seating a watcher replays the game from, as the seat it watches through says."""

    table: bytes
    rules: Rules
    keys: tuple[bytes, ...]
    names: tuple[str, ...]
    carry: tuple[Any, ...] | None
    binding: TableBinding  #: the rest the table id binds (checked: `read_welcome`)


def read_welcome(value: Any) -> Welcome:
    """A decoded welcome, each field checked, and the table id it names recomputed from
    the rest (the other seats sign every frame over that id, so a seat that gave other
    names, rules or keys than its table's is caught here, or by the first frame of
    another seat); `WatchError` otherwise."""
    if not isinstance(value, dict) or value.get("t") != "welcome" or set(value) != {
            "t", "table", "rules", "keys", "names", "carry", "seating"}:
        raise WatchError("the seat sent no welcome a watcher can read")
    try:
        rules = Rules.from_data(value["rules"])
    except (TractorError, TypeError, ValueError) as exc:
        raise WatchError(f"the table's rules cannot be read here: {exc}") from None
    table, keys, names = value["table"], value["keys"], value["names"]
    if type(table) is not bytes or not 1 <= len(table) <= MAX_TABLE_ID:
        raise WatchError("the welcome names no table")
    if not isinstance(keys, list) or len(keys) != rules.players or not all(
            type(k) is bytes and len(k) == KEY_SIZE for k in keys):
        raise WatchError("the welcome does not give every seat's key")
    if not isinstance(names, list) or len(names) != rules.players or not all(
            type(n) is str and 1 <= len(n) <= MAX_NAME and n.isprintable() for n in names):
        raise WatchError("the welcome's names of the seats cannot be read")
    carry = None
    if value["carry"] is not None:
        try:
            carry = read_carry(value["carry"], rules, "the seat", BadLobbyMessage)
        except BadLobbyMessage as exc:
            raise WatchError(f"the welcome's game going on cannot be read: {exc}") from None
    binding = _read_binding(value["seating"], rules.players)
    if binding.table_id(rules, keys, names, carry) != table:
        raise WatchError("the seat's welcome does not make its table id: it gives other "
                         "names, rules or keys than its table's; watch through another seat")
    return Welcome(table, rules, tuple(keys), tuple(names), carry, binding)


def _read_binding(value: Any, players: int) -> TableBinding:
    """The welcome's rest of the table id (`TableBinding.to_data`), each field checked."""
    if not (isinstance(value, list) and len(value) in (4, 5) and value[4:] in ([], [False])):
        raise WatchError("the welcome does not show what its table id binds")
    name, addresses, kinds, nonce = value[:4]
    # Printable: a seat may make up a whole table (its id binds what it says, not that
    # seats agreed to it), and the name is shown (`watch_opening`).
    if not (type(name) is str and len(name) <= MAX_TABLE_NAME and name.isprintable()
            and isinstance(addresses, list) and len(addresses) == players
            and all(type(a) is str and a.isprintable() for a in addresses)
            and isinstance(kinds, list) and len(kinds) == players
            and all(k in KINDS for k in kinds)
            and type(nonce) is bytes and len(nonce) == NONCE_SIZE):
        raise WatchError("the welcome's table name, addresses, kinds or nonce cannot be read")
    return TableBinding(name, tuple(addresses), tuple(kinds), nonce, len(value) == 4)


class WatchClient(Int32StringReceiver, TimeoutMixin):
    """One watcher's connection. ``ended`` fires with the reason the watch ended (the seat
    closed it), or fails with a `WatchError` or `WatchRefused`; ``on_change`` is called
    after every frame that moved the game. ``clock``: the time for `SILENCE`."""

    MAX_LENGTH = MAX_FRAME

    def __init__(self, clock: IReactorTime, table: bytes = b"",
                 on_change: Callable[[], None] | None = None,
                 passphrase: str | None = None) -> None:
        self.clock = clock
        self.table = table  #: the table to watch (empty: whatever the seat plays)
        self.on_change = on_change
        #: At a table with a passphrase: the lobby's handshake proving it (`watch_gate`),
        #: then the key the welcome is sealed with.
        self.handshake = GuestHandshake(passphrase, who="the seat") if passphrase else None
        self.channel: Channel | None = None
        self.welcome: Welcome | None = None
        self.spectator: Spectator | None = None
        self.ended: Deferred[str] = Deferred()
        self.failure: Exception | None = None
        self.copies = 0  #: frames taken that changed nothing (`MAX_COPIES`)
        self._seat_hello = False  #: the seat's hello (to seats) came: nothing more before
        self._leaving: str | None = None  #: why this watcher ends the watch itself (`leave`)

    def callLater(self, period: float, func: Callable[[], object]) -> IDelayedCall:
        """(`TimeoutMixin`'s timer: on ``clock``.)"""
        return self.clock.callLater(period, func)

    def connectionMade(self) -> None:
        self.setTimeout(SILENCE)  # type: ignore[no-untyped-call]  # (Twisted: unannotated)
        proof = self.handshake.hello() if self.handshake is not None else b""
        self.sendString(watch_hello(self.table, proof))  # type: ignore[no-untyped-call]  # (Twisted)

    def timeoutConnection(self) -> None:
        self._end(WatchError(f"the seat sent nothing for {SILENCE:.0f} s: it may be gone, or "
                             "the network between you"))

    def stringReceived(self, data: bytes) -> None:
        self.resetTimeout()  # type: ignore[no-untyped-call]  # (Twisted: unannotated)
        if self.ended.called or not data:  # (empty: a heartbeat)
            return
        try:
            if self.spectator is None:
                self._before_game(data)
            elif self.spectator.take(data):
                if self.on_change is not None:
                    self.on_change()
            else:
                self._copy()
        except (WatchError, WatchRefused) as exc:
            self._end(exc)

    def _copy(self) -> None:
        self.copies += 1
        if self.copies > MAX_COPIES:
            raise WatchError(f"the seat sent more than {MAX_COPIES} frames it had sent "
                             "before: it is not to be trusted")

    def _before_game(self, data: bytes) -> None:
        if self.channel is not None:  # the passphrase proved: the welcome comes sealed
            try:
                value = self.channel.open(data)
            except LobbyError as exc:
                raise WatchError(f"the seat's welcome is not sealed with the passphrase: "
                                 f"{exc.why}") from None
            self._welcomed(value)
            return
        try:
            value = decode(data, WELCOME_LIMITS, "the seat")
        except CodecError as exc:
            if self.handshake is None:
                raise WatchError(f"the seat sent an unreadable message: {exc.reason}") from None
            value = None  # (the lobby's handshake carries longer fields)
        if isinstance(value, list) and not self._seat_hello:
            self._seat_hello = True
            return  # the hello a seat sends every connection first: for seats only
        if isinstance(value, dict) and value.get("t") == "refused":
            why = value.get("why")
            if why == NEEDS_PASSPHRASE:
                raise PassphraseRefused(why)
            # (The seat's own words: a terminal must not act on them.)
            raise WatchError(printable(why[:200]) if type(why) is str else "the seat refused")
        if self.handshake is not None:
            self._proving(data)
            return
        self._welcomed(value)

    def _proving(self, data: bytes) -> None:
        """The seat's answer to the passphrase hello: the confirmation goes back."""
        assert self.handshake is not None
        step = self.handshake.receive(data)
        if step.send is not None:
            self.sendString(step.send)  # type: ignore[no-untyped-call]  # (Twisted)
        if isinstance(step.error, WrongPassphrase):
            raise PassphraseRefused(f"the seat refused the passphrase: {step.error.why}")
        if step.error is not None:
            raise WatchError(f"the seat refused the passphrase: {step.error.why}")
        if step.channel is None:  # (a "wait": a seat never sends one to a watcher)
            raise WatchError("the seat's answer to the passphrase cannot be read")
        self.channel = step.channel

    def _welcomed(self, value: Any) -> None:
        welcome = read_welcome(value)
        if self.table and welcome.table != self.table:
            raise WatchError("the seat plays at another table")
        self.welcome = welcome
        keys = [Ed25519PublicKey.from_public_bytes(k) for k in welcome.keys]
        self.spectator = Spectator(welcome.rules, welcome.table, keys, welcome.carry)
        if self.on_change is not None:
            self.on_change()

    def lengthLimitExceeded(self, length: int) -> None:
        self._end(WatchError(f"the seat sent a message of {length} bytes, more than any "
                             f"frame may be ({MAX_FRAME}): it is not to be trusted"))

    def _end(self, exc: Exception) -> None:
        self.failure = exc
        if not self.ended.called:
            self.ended.errback(exc)
        if self.transport is not None:
            self.transport.loseConnection()

    def leave(self, why: str) -> None:
        """The watcher ends the watch itself (the game is over, the table halted): ``ended``
        fires with ``why`` once the connection is closed."""
        self._leaving = why
        if self.transport is not None:
            self.transport.loseConnection()

    def through(self) -> str | None:
        """The name of the seat this watcher watches through, when the welcome's game
        addresses show which (the address connected to, else its port alone if only one
        seat has it); None if they do not."""
        if self.welcome is None or self.transport is None:
            return None
        peer = self.transport.getPeer()
        host, port = getattr(peer, "host", None), getattr(peer, "port", None)
        ports = [a.rsplit(":", 1)[-1] for a in self.welcome.binding.addresses]
        for seat, address in enumerate(self.welcome.binding.addresses):
            if address in (f"tcp:{host}:{port}", f"tcp:[{host}]:{port}"):
                return self.welcome.names[seat]
        if ports.count(str(port)) == 1:
            return self.welcome.names[ports.index(str(port))]
        return None

    def connectionLost(self, reason: Failure | None = None) -> None:
        self.setTimeout(None)  # type: ignore[no-untyped-call]  # (Twisted: unannotated)
        if not self.ended.called:
            name = self.through()
            # A seat's program that stops closes its links: its person left (or it failed).
            self.ended.callback(self._leaving or (
                f"{name}, whose seat you watch through, left the table" if name is not None
                else "the seat you watch through left the table (it closed the connection)"))
