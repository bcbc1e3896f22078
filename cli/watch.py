"""`tractor watch ADDRESS` (or `tractor watch CODE`): follow a table as a watcher, on the
full screen (`cli.screen.watch_screen`) or in plain lines (``--plain``, or when the output
is no terminal).

A watcher connects to one seat's game port (the host says where when the game starts), or
at an internet table opens the host's watch code (`tractor.net.internet.watch_codes`) and
speaks the same protocol over its wormhole;
gets the game's signed transcript so far and then every frame as it comes, and replays it
with the seats' own checks (`tractor.net.mesh.watching.WatchClient`). It sees what every
seat sees and never a hand; it sends nothing, so it can hold nobody up. The log is the one
a seat shows (`SeatLog`), with a line on the cards left and the points after each trick.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from twisted.internet.defer import Deferred
from twisted.internet.endpoints import HostnameEndpoint, connectProtocol
from twisted.internet.error import ConnectError
from twisted.internet.interfaces import IReactorTime

from tractor.cli.passphrase import Asking, ask_passphrase
from tractor.cli.prompts import GaveUp, LineReader, fit
from tractor.cli.screen.wrapping import wrap_words
from tractor.cli.seat.hand_log import trick_line
from tractor.cli.seat.seat_log import SeatLog
from tractor.cli.seat.watcher_client import CLOSES_AFTER, WatcherClient, watch_verdict
from tractor.net.internet.lobby import open_code
from tractor.net.internet.rendezvous import WATCH_CODE, is_seat_code
from tractor.net.internet.seat_code_limits import code_problem
from tractor.net.lobby.discovery import Announcement, DiscoveryError, browse
from tractor.net.lobby.errors import LobbyError
from tractor.net.mesh.endpoints import parse_endpoint
from tractor.net.mesh.watching import PassphraseRefused, WatchClient, WatchError
from tractor.net.table.hand import TableHand
from tractor.net.table.spectator import Spectator, WatchRefused
from tractor.phases import Phase

from .watch_finding import choose_game
from .watch_opening import opening_lines

BANNER = ("watching: you see what every seat sees of the game (plays, declarations, points, "
          "the log), never a hand; nothing you do can hold the table up")
CONNECT_TIMEOUT = 10  #: seconds to reach the seat
PASSPHRASE_TRIES = 3  #: a passphrase missing or refused is asked again, this many times in all
WATCHING = Asking("table passphrase", "this table lets no one watch without its passphrase",
                  "nothing was watched")


class WatchLog:
    """The lines a watcher is shown: the seats' log of every hand (the ones played before
    it came too), and where the hand stands after each trick."""

    def __init__(self, spectator: Spectator, names: tuple[str, ...],
                 write: Callable[[str], None]) -> None:
        self.spectator = spectator
        players = spectator.session.rules.players
        self.names = names or tuple(f"seat {s}" for s in range(players))
        self.lines: list[str] = []
        self.log = SeatLog(self.lines, self.names, players)
        self.write = write
        self._told_hands = 0  #: finished hands whose log was written
        self._tricks = (-1, 0)  #: (hand, tricks) last shown in a status line

    def changed(self) -> None:
        """The game moved: write what is new."""
        session = self.spectator.session
        for number, hand in enumerate(session.played[self._told_hands:],
                                      self._told_hands + 1):
            self._finished(number, hand)
        self._told_hands = len(session.played)
        self.log.hand(session.current)
        self._status(session.current)
        for line in self.lines:
            self.write(line)
        self.lines.clear()

    def _finished(self, number: int, hand: TableHand) -> None:
        if hand.phase == Phase.REDEAL:
            self.log.redeals(self.spectator.session)
            return
        self.log.hand(hand)
        if hand.result is not None:
            self.lines.append(self.log.over_line(number, hand))

    def _status(self, hand: TableHand) -> None:
        public = hand.public
        tricks = len(public.tricks)
        key = (hand.deck.config.hand, tricks)
        if tricks == 0 or key == self._tricks:
            return
        self._tricks = key
        # The cards of each seat at the end of the last trick: the next one may be under
        # way (several frames come at once), its cards back in their hands.
        players = len(self.names)
        sizes = [public.size_of(s) for s in range(players)]
        for i, faces in enumerate(public.current):
            sizes[(public.leader + i) % players] += len(faces)
        left = ", ".join(f"{name} {size}" for name, size in zip(self.names, sizes, strict=True))
        status = (f"after trick {tricks}: defenders hold {public.defender_points} points; "
                  f"cards left: {left}")
        # Right under the trick's own line: several frames at once (catching up, a quick
        # lead) also logged the next trick's plays, and the status came after them.
        last = hand.tricks[-1]
        ended = trick_line(tricks, self.names[last.winner], last.points)
        at = max((i for i, line in enumerate(self.lines) if line == ended), default=None)
        self.lines.insert(len(self.lines) if at is None else at + 1, status)


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (or a client endpoint ``tcp:HOST:PORT``) of a seat's game port."""
    host, port = parse_endpoint(text if text.startswith("tcp:") else f"tcp:{text}")
    return host, port


def _line(text: str) -> None:
    """One line on standard output, at once (a pipe would hold it back otherwise), folded
    between words on a terminal (`fit`): the terminal would cut inside a name or a card."""
    print(fit(text), flush=True)


async def _find_game(reactor: Any, say: Callable[[str], None]) -> Announcement | None:
    """The game to watch, picked from those announced on the LAN."""
    say("looking for games under way on the LAN...")
    try:
        found = await browse(reactor, 2.0, kind="game")
    except DiscoveryError as exc:
        say(f"tractor watch: cannot listen for games on the LAN ({exc.why}); give the "
            "address the host's log shows: tractor watch HOST:PORT")
        return None
    if not found:
        say("tractor watch: no game under way found on the LAN; give the address the "
            "host's log shows: tractor watch HOST:PORT")
        return None
    read = LineReader()
    return await choose_game(
        found, lambda prompt: Deferred.fromFuture(asyncio.ensure_future(read(prompt))), say)


#: How a watch reaches its seat: the connection made for a `WatchClient` (None: it could
#: not be made, and the person was told why).
Connect = Callable[[WatchClient], Coroutine[Any, Any, bool]]


async def watch(reactor: Any, args: argparse.Namespace) -> int:
    """Watch the table whose seat listens at ``args.address`` (or whose host gave the watch
    code ``args.address``, or one picked from those announced on the LAN) until the game
    ends there (or the person quits the screen)."""
    say: Callable[[str], None] = getattr(args, "say", None) or _line
    address, needs_passphrase = getattr(args, "address", None), False
    if address is not None and is_seat_code(address):
        return await _watch_code(reactor, args, address.strip().lower(), say)
    if address is None:
        chosen = await _find_game(reactor, say)
        if chosen is None:
            return 1
        address, needs_passphrase = chosen.address, chosen.passphrase
    try:
        host, port = parse_address(address)
    except ValueError as exc:
        say(f"tractor watch: {exc} (give the address the host showed: HOST:PORT)")
        return 2

    async def by_address(client: WatchClient) -> bool:
        endpoint = HostnameEndpoint(reactor, host.encode(), port, timeout=CONNECT_TIMEOUT)
        try:
            await connectProtocol(endpoint, client)
        except (OSError, ConnectError) as exc:  # (Twisted's refusals are not OSErrors)
            say(f"tractor watch: cannot reach {host}:{port}: {exc}")
            return False
        return True
    return await _watch_with(reactor, args, by_address, needs_passphrase, say)


async def _watch_code(reactor: Any, args: argparse.Namespace, code: str,
                      say: Callable[[str], None],
                      create: Callable[..., Any] | None = None) -> int:
    """Watch through the host's watch code: its wormhole, then the watch as on a LAN
    (each passphrase try on a new connection of the same wormhole). ``create``: how a
    wormhole is made (tests)."""
    mailbox, relay = args.mailbox, args.relay
    problem = code_problem(code, watch=True)
    if problem is not None:  # (a seat code, a word missing: said before any wormhole opens)
        say(f"tractor watch: {problem}")
        return 1
    say(f"looking for the game at {code} (mailbox {mailbox})...")
    try:
        wormhole, endpoint = await open_code(reactor, code, mailbox, relay, kind=WATCH_CODE,
                                             create=create)
    except LobbyError as exc:  # a seat code, a code typed wrong, the mailbox out of reach
        say(f"tractor watch: {exc.why}")
        return 1

    async def by_code(client: WatchClient) -> bool:
        await connectProtocol(endpoint, client)
        return True
    try:
        return await _watch_with(reactor, args, by_code, False, say)
    finally:
        wormhole.close().addErrback(lambda _f: None)


async def _watch_with(reactor: Any, args: argparse.Namespace, connect: Connect,
                      needs_passphrase: bool, say: Callable[[str], None]) -> int:
    """The watch, asking the passphrase again when it is missing or wrong."""
    given = getattr(args, "passphrase", None)
    screen = not getattr(args, "plain", True) and sys.stdout.isatty()
    for _ in range(PASSPHRASE_TRIES):
        try:
            passphrase = await ask_passphrase(given, needs_passphrase, WATCHING)
        except GaveUp as exc:
            say(f"tractor watch: {exc}")
            return 1
        try:
            return await _watch_at(reactor, connect, passphrase, screen, say)
        except PassphraseRefused as exc:
            say(f"tractor watch: {exc}")
            given, needs_passphrase = None, True  # (asked again, as `tractor join` does)
    return 1


async def _watch_at(reactor: Any, connect: Connect, passphrase: str | None, screen: bool,
                    say: Callable[[str], None]) -> int:
    """One watch of the seat ``connect`` reaches: its exit status (`PassphraseRefused`
    when the passphrase is missing or wrong)."""
    follow: Following = ScreenFollowing(reactor) if screen else PlainFollowing(say)
    client = WatchClient(reactor, on_change=lambda: follow.changed(client),
                         passphrase=passphrase)
    if not await connect(client):
        return 1
    try:
        why = await follow.until_over(client)
    except PassphraseRefused:
        raise
    except (WatchError, WatchRefused) as exc:
        say(f"tractor watch: {exc}")
        return 1
    over = client.spectator is not None and client.spectator.session.over
    for line in wrap_words("the game is over" if over else f"the watch ended: {why}", 80,
                           "  "):
        say(line)
    return 0


class Following(Protocol):
    """How the watch is shown: plain lines or the full screen."""

    def changed(self, client: WatchClient) -> None: ...

    async def until_over(self, client: WatchClient) -> str: ...


class PlainFollowing:
    """The watch in plain lines (`WatchLog`), until the seat closes the connection."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say
        self.log: WatchLog | None = None

    def changed(self, client: WatchClient) -> None:
        spectator = client.spectator
        if spectator is None:
            return
        if self.log is None:
            assert client.welcome is not None
            self.log = WatchLog(spectator, client.welcome.names, self.say)
            self.say(BANNER)
            # What the full screen shows at once: the table, its rules, the teams, the trump.
            for line in opening_lines(client.welcome.binding.name, spectator.session,
                                      self.log.names):
                self.say(line)
        self.log.changed()
        if spectator.halted is not None:  # the seats' verdict, from their signed votes
            client.leave(watch_verdict(spectator.halted, self.log.names))
        elif spectator.session.over:
            client.leave("the game is over")  # (the seat may keep its links up a while)

    async def until_over(self, client: WatchClient) -> str:
        return await client.ended


class ScreenFollowing:
    """The watch on the full screen (`watch_screen`), until the person quits: the end of
    the watch shows in the banner with how to leave, and the screen closes by itself
    `CLOSES_AFTER` seconds later (time to read it; the last line says it again)."""

    def __init__(self, clock: IReactorTime) -> None:
        self.clock = clock  #: the time the screen stays once the watch ended
        self.view: WatcherClient | None = None
        self.screen: Deferred[None] | None = None
        #: Fires when the screen opens (the welcome came) or the watch ended before it.
        self.begun: Deferred[None] = Deferred()
        self.why = ""  #: why the watch ended, once it did

    def changed(self, client: WatchClient) -> None:
        spectator = client.spectator
        if spectator is None:
            return
        if self.view is None:
            assert client.welcome is not None
            self.view = WatcherClient(spectator, client.welcome.names)
            # (Imported here: prompt_toolkit is slow to load, and plain lines need none.)
            from tractor.cli.screen.watch_screen import run_watch_app

            self.screen = Deferred.fromFuture(asyncio.ensure_future(run_watch_app(self.view)))
            self.begun.callback(None)
        self.view.changed()
        halted = spectator.halted
        if self.view.ended is None and (halted is not None or spectator.session.over):
            why = "The game is over" if halted is None else watch_verdict(halted,
                                                                          self.view.names)
            self._end(why)
            client.leave(why)

    async def until_over(self, client: WatchClient) -> str:
        client.ended.addBoth(self._ended)
        await self.begun
        if self.screen is None:  # ended before the welcome: said in plain words
            if client.failure is not None:
                raise client.failure
            return self.why
        await self.screen
        if client.transport is not None:
            client.transport.loseConnection()
        if self.view is not None and self.view.ended is not None:
            return self.view.ended
        return "you stopped watching"

    def _ended(self, result: Any) -> None:
        self.why = result if isinstance(result, str) else str(result.value)
        if self.view is not None:
            self._end(self.why)
        elif not self.begun.called:
            self.begun.callback(None)

    def _end(self, why: str) -> None:
        """The watch ended: the screen says why and how to leave, and closes by itself once
        there was time to read it."""
        if self.view is not None and self.view.ended is None:
            self.view.end(why)
            self.clock.callLater(CLOSES_AFTER, self.view.close)
