"""What a host's seat does for watchers once its game starts (`WatchHosting`): at a
table with a passphrase it checks the watchers' passphrase (`net.mesh.watch_gate`, with
the lobby's guess limits); on a LAN it announces the game (kind ``"game"``, the host
seat's game port) so that `tractor watch` alone lists it, as `tractor join` lists tables
(a table that refuses watchers is announced too, saying so, so that a would-be watcher
learns why instead of finding nothing); at an internet table it opens watch codes
(`net.internet.watch_codes`), one at a time, each shown in the host's log.

The host's journal keeps what it opened (`hosting_meta`): whether it announces, whether it
refused watchers, and the table's passphrase. The passphrase is kept with the seat's
identity key and deck secrets in the journal (a file of this user's only) while the game is
unfinished. After a crash, `tractor resume` opens the same again (`host_again`, the one
place that decides it for a LAN or an internet host); a resumed host whose journal does not
hold the passphrase refuses watchers, saying why, rather than let them in without it. A
game that goes on at a new table (`cli.seat.goes_on`) opens the same there (`moved`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from twisted.internet.defer import maybeDeferred

from tractor.net.internet.rendezvous import (
    DEFAULT_MAILBOX,
    DEFAULT_RELAY,
    is_internet_address,
    read_internet_address,
)
from tractor.net.internet.watch_codes import WatchCodes
from tractor.net.journal.store import TABLE_PASSPHRASE_KEY
from tractor.net.lobby.discovery import (
    PORT,
    DiscoveryError,
    instance_id,
    pack_announcement,
    start_announcer,
)
from tractor.net.lobby.guess_line import AttemptLimiter
from tractor.net.lobby.seating import Seating
from tractor.net.lobby.table_settings import rules_summary
from tractor.net.mesh.endpoints import endpoint_string
from tractor.net.mesh.link import LinkNode
from tractor.net.mesh.watch_gate import WatchDesk
from tractor.net.mesh.watchers import Watchers
from tractor.net.mesh.wire import PeerNode
from tractor.net.table.seat import journaled_seating
from tractor.net.table.session import GameSession

#: The journal's meta keys of the host's watch hosting (`hosting_meta`).
HOSTING_KEY = "watch_hosting"
PASSPHRASE_KEY = TABLE_PASSPHRASE_KEY  #: (the journal forgets it once the game is over)
#: What a watcher is told by a resumed host whose journal does not hold the passphrase.
PASSPHRASE_LOST = ("this table's host came back after a crash without the table's "
                   "passphrase: it takes no watchers for the rest of this game")


def watch_line(seating: Seating) -> str:
    """The log line that tells a seat where others may watch the game from."""
    address = seating.addresses.get(seating.seat, "")
    where = address[4:] if address.startswith("tcp:") else address
    return f"others may watch this game: `tractor watch {where}`"


def code_notes(code: str, mailbox: str = DEFAULT_MAILBOX, relay: str = DEFAULT_RELAY,
               passphrase: bool = False) -> list[str]:
    """The log lines that give others a watch code: the command, then what a watcher adds
    to it (the mailbox and relay when they are not the defaults: the watcher needs the
    same; the passphrase at a table that has one)."""
    extra = [f"{option} {value}" for option, value, default in (
        ("--mailbox", mailbox, DEFAULT_MAILBOX), ("--relay", relay, DEFAULT_RELAY))
        if value != default]
    if passphrase:
        extra.append("--passphrase - (with the table's passphrase)")
    notes = [f"others may watch: `tractor watch {code}`"]
    return notes + ([f"  (adding {' '.join(extra)})"] if extra else [])


def open_watch_codes(reactor: Any, node: LinkNode, mailbox: str, relay: str,
                     note: Callable[[str], None], passphrase: bool = False,
                     create: Callable[..., Any] | None = None) -> WatchCodes:
    """An internet host seat's watch codes, started, each told with `code_notes`."""
    def told(code: str) -> None:
        for line in code_notes(code, mailbox, relay, passphrase):
            note(line)
    codes = WatchCodes(reactor, node, mailbox, relay, told, note, create=create)
    codes.start()
    return codes


def _internet_servers(meta: Mapping[str, Any], seat: int) -> tuple[str, str] | None:
    """The mailbox and relay of an internet table's seat, from its journal's ``meta``
    (None: a LAN table's seat)."""
    address = meta.get("addresses", {}).get(str(seat))
    return read_internet_address(address) if is_internet_address(address) else None


class WatchHosting:
    """The host seat's watchers, from the start to the end of its game. ``refused``: the
    host ran `--no-watchers`; ``passphrase``: the table's; ``limiter``: the lobby's guess
    limits (a watcher's guesses count with the guests'); ``announce``: whether a LAN
    table's game is announced (never an internet table's)."""

    def __init__(self, watchers: Watchers, seating: Seating, refused: bool,
                 passphrase: str | None, limiter: AttemptLimiter,
                 announce: bool = False) -> None:
        self.watchers = watchers
        self.seating = seating
        self.refused = refused
        self.passphrase = passphrase
        self.limiter = limiter
        self.announce_game = announce
        self.discovery_port = PORT  #: where the game was announced (tests: another)
        self._announcer: Any = None
        self.codes: WatchCodes | None = None  #: an internet table's watch codes
        if passphrase and not refused:
            watchers.desk = WatchDesk(seating.name, passphrase, limiter)

    def kept(self) -> dict[str, Any]:
        """What the seat's journal keeps of this hosting (`hosting_meta`)."""
        return hosting_meta(self.refused, self.passphrase, self.announce_game)

    def note(self) -> str | None:
        """The line the host's log shows on where to watch from (None: nobody may)."""
        if self.refused:
            return None
        line = watch_line(self.seating)
        if self.passphrase:
            return line[:-1] + " --passphrase -` (with the table's passphrase)"
        return line

    def code_notes(self, code: str, mailbox: str = DEFAULT_MAILBOX,
                   relay: str = DEFAULT_RELAY) -> list[str]:
        """The log lines that give others a watch code (`code_notes`)."""
        return code_notes(code, mailbox, relay, bool(self.passphrase))

    def open_codes(self, reactor: Any, node: LinkNode, mailbox: str, relay: str,
                   note: Callable[[str], None],
                   create: Callable[..., Any] | None = None) -> WatchCodes | None:
        """At an internet table: open watch codes, each told with `code_notes` (none when
        the host refused watchers). ``create``: how a wormhole is made (tests)."""
        if self.refused:
            return None
        self.codes = open_watch_codes(reactor, node, mailbox, relay, note,
                                      bool(self.passphrase), create)
        return self.codes

    def open_on_lan(self, reactor: Any, listening: tuple[str, int] | None, instance: str,
                    note: Callable[[str], None], discovery_port: int = PORT) -> None:
        """At a LAN table: the log's line on where to watch from (none when the host
        refused watchers), and the game announced (if the host announces it) from
        ``listening``, the interface and port of the seat's game port (None: unknown)."""
        line = self.note()
        if line is not None:
            note(line)
        self.discovery_port = discovery_port
        if self.announce_game and listening is not None:
            self.announce(reactor, *listening, instance, note, discovery_port)

    def moved(self, reactor: Any, node: PeerNode, seating: Seating, interface: str,
              port: int, note: Callable[[str], None]) -> WatchHosting:
        """The game gone on at a new table (`cli.seat.goes_on`), whose seat is ``node``
        with its game port on ``interface`` and ``port``: this table's hosting stopped,
        the same opened there (refused or not, the passphrase's desk with the guesses
        counted so far, the log's line with the new address, the announcement)."""
        self.stop()
        again = WatchHosting(node.watchers, seating, self.refused, self.passphrase,
                             self.limiter, self.announce_game)
        again.open_on_lan(reactor, (interface, port), instance_id(), note,
                          self.discovery_port)
        return again

    def announcement(self, address: str, instance: str) -> bytes:
        """The game's LAN announcement as it stands now."""
        places = 0 if self.refused else self.watchers.limit
        served = min(places, len(self.watchers.served))
        return pack_announcement("game", self.seating.name, address, places, served,
                                 rules_summary(self.seating.rules), bool(self.passphrase),
                                 instance)

    def announce(self, reactor: Any, interface: str, port: int, instance: str,
                 warn: Callable[[str], None], discovery_port: int = PORT) -> None:
        """Announce the game every second until `stop` (a host where multicast is refused
        says so once: watchers can still type the address)."""
        address = endpoint_string(interface, port)
        try:
            self._announcer = start_announcer(
                reactor, lambda: self.announcement(address, instance), port=discovery_port)
        except DiscoveryError as exc:
            warn(f"the game is not announced on the LAN ({exc.why}): watchers need its "
                 "address")

    def stop(self) -> None:
        if self.codes is not None:
            self.codes.close()
            self.codes = None
        if self._announcer is not None:
            maybeDeferred(self._announcer.stopListening)
            self._announcer = None


def hosting_meta(refused: bool, passphrase: str | None, announce: bool) -> dict[str, Any]:
    """What the host's journal keeps so that `tractor resume` opens the same for watchers
    (`resumed_hosting`); the passphrase only when watchers prove it."""
    meta: dict[str, Any] = {HOSTING_KEY: {"refused": refused, "announce": announce,
                                          "passphrase": passphrase is not None}}
    if passphrase is not None and not refused:
        meta[PASSPHRASE_KEY] = passphrase
    return meta


def _kept_hosting(meta: Mapping[str, Any], seat: int) -> dict[str, Any] | None:
    """The journal's record of the seat's hosting; for an internet host's seat journaled
    before it kept one (it ran this machine's AI seats), what it opened then: codes only
    at a table that took watchers without a passphrase. None: the seat hosted nothing (a
    guest's, a practice game's, a LAN game journaled before `hosting_meta`)."""
    kept = meta.get(HOSTING_KEY)
    if isinstance(kept, dict):
        return kept
    if meta.get("local_ai") and not meta.get("practice") and _internet_servers(meta, seat):
        return {"refused": meta.get("watchers", True) is False, "announce": False,
                "passphrase": False}
    return None


def resumed_hosting(watchers: Watchers, session: GameSession, meta: dict[str, Any]
                    ) -> WatchHosting | None:
    """The host seat's watch hosting again, from its journal's ``meta`` (`_kept_hosting`;
    None for a seat that hosted nothing: its seats' start stands). Never announced on the
    LAN from an internet table."""
    kept = _kept_hosting(meta, session.seat)
    if kept is None:
        return None
    refused = kept.get("refused") is not False
    passphrase = meta.get(PASSPHRASE_KEY)
    if not isinstance(passphrase, str) or not passphrase:
        passphrase = None
    if kept.get("passphrase") is not False and passphrase is None and not refused:
        watchers.refusing = PASSPHRASE_LOST  # (never open without it)
        refused = True
    seating = replace(journaled_seating(session, meta),
                      watchers=not refused and passphrase is None)
    announce = (kept.get("announce") is not False
                and _internet_servers(meta, session.seat) is None)
    return WatchHosting(watchers, seating, refused, passphrase, AttemptLimiter(), announce)


def host_again(reactor: Any, node: PeerNode, session: GameSession, meta: dict[str, Any],
               note: Callable[[str], None], discovery_port: int = PORT,
               create: Callable[..., Any] | None = None) -> WatchHosting | None:
    """After `tractor resume`: the host seat's watchers as before the crash (the one
    place that decides what a resumed seat opens): at an internet table new watch codes
    (their watchers prove the passphrase as before); on a LAN its log's line on where to
    watch from and the game announced again where it was. A host whose journal lost the
    passphrase says why it takes no watchers. None for a seat that hosted nothing
    (`resumed_hosting`). Stop it with `stop`; ``create``: how a wormhole is made (tests)."""
    hosting = resumed_hosting(node.watchers, session, meta)
    if hosting is None:
        return None
    if node.watchers.refusing is not None:
        note(node.watchers.refusing)  # (--no-watchers: nothing, as before)
    servers = _internet_servers(meta, session.seat)
    if servers is not None:
        hosting.open_codes(reactor, node, *servers, note, create)
        return hosting
    # Where the seat listens again (`seat.resume_seat`): the port the game was announced at.
    listening = re.fullmatch(r"tcp:(\d+):interface=(.+)", str(meta.get("listen", "")))
    hosting.open_on_lan(reactor, None if listening is None else (
        listening.group(2), int(listening.group(1))), instance_id(), note, discovery_port)
    return hosting
