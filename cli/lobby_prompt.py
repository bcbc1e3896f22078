"""The ``lobby>`` prompt of `tractor host` and `tractor join`: the roster as it changes,
and the person's commands until the game starts.

An empty line does nothing (a stray Enter once closed the table for everybody). Leaving
takes ``quit``; on a terminal, when other people are seated, the host is asked first (its
leaving closes the table; a guest's closes nothing). The end of input leaves too: a script
that pipes its commands ends by closing the pipe, and Ctrl-D on a terminal is ``quit``.
A guest that leaves has done what it chose (`LeftTable`: `tractor join` exits 0).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from twisted.internet.defer import ensureDeferred

from tractor.net.lobby.seating import Roster, Seating
from tractor.net.lobby.table_settings import rules_lines

from .ai_servers import AiServerChooser
from .lobby_settings import SettingsCommands, roster_news
from .prompts import GaveUp, LineReader, end_prompt

PROMPT = "lobby> "


class LeftTable(GaveUp):
    """A guest left the lobby as it chose (``quit``, the end of its input): nothing went
    wrong and nothing closes for the others."""


def roster_lines(roster: Roster) -> list[str]:
    return [table_heading(roster), *rules_lines(roster.rules), *seat_lines(roster)]


def table_heading(roster: Roster) -> str:
    return (f"table {roster.name!r}: {roster.rules.players} seats, "
            f"{roster.rules.decks} decks")


def seat_lines(roster: Roster) -> list[str]:
    """One line a seat: who sits there (and whether ready), an AI asked for, or empty."""
    lines = []
    for seat, info in enumerate(roster.seats):
        if info is None:
            what = "AI asked for" if seat in roster.reserved else "empty"
        else:
            what = (f"{info.name} ({info.kind}, key {info.fingerprint})"
                    f"{', ready' if info.ready else ''}")
        lines.append(f"  seat {seat}: {what}{'  <- you' if seat == roster.you else ''}")
    return lines


def roster_update(shown: list[str], old: Roster | None, new: Roster,
                  is_host: bool) -> list[str]:
    """What the prompt prints for a new roster, as a person reads it: the news first (who
    joined or left, new rules, seats moved), then the roster's lines it speaks of, those
    not in ``shown`` (the lines printed before; none: the whole roster). New rules show
    whole (the table's line and every rules line, changed or not): an "also:" line alone
    read as if the main rules had gone."""
    lines = roster_lines(new)
    whole = set()
    if old is not None and old.rules != new.rules:
        whole = {table_heading(new), *rules_lines(new.rules)}
    fresh = lines if not shown else [line for line in lines
                                     if line not in shown or line in whole]
    return roster_news(old, new, is_host) + fresh


def others_seated(roster: Any) -> list[str]:
    """The names of the other people at the table (AI players mind no one leaving)."""
    if not isinstance(roster, Roster):
        return []
    return [info.name for seat, info in enumerate(roster.seats)
            if info is not None and seat != roster.you and info.kind == "human"]


def leave_question(others: list[str]) -> str:
    """The host's question before it leaves (a guest leaving closes nothing: not asked)."""
    return f"leave? the table closes for the others seated ({', '.join(others)}): y/N "


async def lobby_prompt(lobby: Any, is_host: bool,
                       reporter: list[Callable[[str], None]] | None = None,
                       servers: Callable[[Callable[[str], None]], AiServerChooser] | None = None,
                       codes: Callable[[], str] | None = None) -> Seating:
    """Show the roster as it changes; read commands until the game starts. While it runs,
    ``reporter[0]`` prints above the prompt (news of the AI children). ``codes``: what the
    `codes` command says (an internet host's seat codes, new ones if they were paused)."""
    read = LineReader()
    if reporter is not None:
        reporter[0] = read.say
    shown: list[str] = []
    last: list[Roster] = []

    def show(roster: Any) -> None:
        """The roster the first time, then each change once: only the lines that differ
        from what was shown (a guest hears the same roster again after other messages),
        and what a change of rules or seats means."""
        if not isinstance(roster, Roster):
            return
        fresh = roster_update(shown, last[0] if last else None, roster, is_host)
        shown[:], last[:] = roster_lines(roster), [roster]
        for line in fresh:
            read.say(line)

    lobby.on_change = show
    if is_host:
        lobby.on_warning = read.say
    chooser = servers(read.say) if servers is not None else None
    if lobby.roster() is not None:
        show(lobby.roster())
    commands = _LobbyCommands(lobby, is_host, read, chooser, codes)
    read.say(commands.help_text)
    started = asyncio.ensure_future(lobby.started.asFuture(asyncio.get_running_loop()))
    asked: asyncio.Future[str | None] | None = None
    try:
        while not started.done():
            asked = asyncio.ensure_future(read(commands.prompt))
            await asyncio.wait({asked, started}, return_when=asyncio.FIRST_COMPLETED)
            if not asked.done():
                break  # the game starts: the prompt ends (below) before the screen starts
            if commands.take(asked.result()):
                started.cancel()
                if is_host:
                    lobby.close()
                    raise GaveUp("you left the lobby")
                lobby.leave()
                raise LeftTable("you left the lobby")
        return await started
    finally:
        if asked is not None:
            # Also when stopped (Ctrl-C, SIGTERM) between two lines: the prompt would
            # start anyway and leave the terminal raw behind the process.
            await end_prompt(asked)
        if not started.done():  # interrupted: the lobby's end is nobody's news now
            started.cancel()
        if started.cancelled():
            lobby.started.addErrback(lambda f: None)
        lobby.on_change = None
        if is_host:
            lobby.on_warning = None


class _LobbyCommands:
    """What each line typed at the lobby does; `take` says whether the person leaves."""

    def __init__(self, lobby: Any, is_host: bool, read: LineReader,
                 chooser: AiServerChooser | None,
                 codes: Callable[[], str] | None = None) -> None:
        self.lobby = lobby
        self.is_host = is_host
        self.read = read
        self.chooser = chooser
        self.codes = codes
        self.prompt = PROMPT  #: the lobby's, or the question before leaving
        self.settings = SettingsCommands(lobby, is_host, read.say)
        self.help_text = ("lobby commands: ready, unready, seats, " +
                          self.settings.help_text + (
            "fill (AI peers on this machine for the empty seats), " if is_host else "") + (
            "fill lan (the AI servers heard on the LAN; fill lan N asks one), "
            if chooser is not None else "") + (
            "codes (the seat codes; new ones after wrong guesses paused them), "
            if codes is not None else "") + "quit")

    def take(self, line: str | None) -> bool:
        """Act on one line (None: the end of input); True when the person leaves."""
        if self.prompt != PROMPT:  # the answer to "leave?": Ctrl-D again means yes
            self.prompt = PROMPT
            if line is None or line.strip().lower() in ("y", "yes"):
                return True
            self.read.say("you stay at the table")
            return False
        if line is None and not self.read.on_terminal:
            return True  # the script's input ended: it has nothing more to say
        command = "quit" if line is None else line.strip().lower()
        if command == "quit":
            others = others_seated(self.lobby.roster())
            if not self.is_host or not others or not self.read.on_terminal:
                return True
            self.prompt = leave_question(others)
        elif command:
            self._act(command, line or "")
        return False

    def _act(self, command: str, line: str) -> None:
        lobby, say = self.lobby, self.read.say
        if self.settings.take(line.strip()):
            return
        if command == "ready":
            lobby.ready(True)
        elif command == "unready":
            lobby.ready(False)
        elif command == "seats":
            self._seats()
        elif command == "fill" and self.is_host:
            d = lobby.request_fill()
            d.addCallback(lambda n: say(f"asked for {n} AI player(s)"))
            d.addErrback(lambda f: say(f"no AI: {f.getErrorMessage()}"))
        elif command.split()[:2] == ["fill", "lan"] and self.is_host and self.chooser:
            # Not awaited: the prompt stays open while the LAN is browsed.
            d = ensureDeferred(self.chooser.command(command.split()[2:]))
            d.addErrback(lambda f: say(f"no AI: {f.getErrorMessage()}"))
        elif command == "codes" and self.codes is not None:
            say(self.codes())
        elif command in ("help", "?"):
            say(self.help_text)
        elif not self.is_host and command.split()[0] in HOST_ONLY:
            say(f"only the host {HOST_ONLY[command.split()[0]]}: ask them (the seats "
                "show here when they change)")
        else:
            say(f"{command[:40]!r} is not a lobby command; {self.help_text}")

    def _seats(self) -> None:
        roster = self.lobby.roster()
        if not isinstance(roster, Roster):
            self.read.say("the lobby has no seats to show yet")
            return
        for line in (table_heading(roster), *seat_lines(roster)):
            self.read.say(line)


#: The commands only a host has, as a guest is told so ("only the host swaps seats").
HOST_ONLY = {"swap": "swaps seats (`sit SEAT` asks for a free one)",
             "fill": "fills the empty seats with AI players",
             "codes": "has the seat codes"}
