"""Finding a game to watch (`cli.watch_hosting`, `cli.watch_finding`), in memory: the host's
seat announces its game on the LAN with its game port, its watchers and whether it takes
any or needs the passphrase; `tractor watch` alone lists what it heard and reads the pick,
never one that cannot be watched. Also what the host's seat opens for watchers at a table
with a passphrase (the lobby's guess limits, carried on)."""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Iterator

from twisted.internet.task import Clock

from tractor.cli import watch as watch_command
from tractor.cli.watch_finding import choose_game, game_line
from tractor.cli.watch_hosting import WatchHosting
from tractor.net.lobby.discovery import PORT, Announcement, Browser
from tractor.net.lobby.guess_line import AttemptLimiter
from tractor.net.lobby.seating import Seating
from tractor.net.mesh.watchers import MAX_WATCHERS, Watchers
from tractor.rules import Rules

GAME_PORT = 40124


def _seating(watchers: bool = True) -> Seating:
    return Seating(bytes(32), "ann's table", Rules(), 0, tuple(bytes(32) for _ in range(4)),
                   {s: f"tcp:192.0.2.{5 + s}:{GAME_PORT + s}" for s in range(4)},
                   ("ann", "bob", "cy", "dee"), ("person",) * 4, None, watchers)


def _heard(hosting: WatchHosting, source: str = "192.0.2.5") -> Announcement:
    """What a browser on the LAN lists of ``hosting``'s announcement from ``source``."""
    browser = Browser(Clock())
    payload = hosting.announcement(f"tcp:0.0.0.0:{GAME_PORT}", "a1b2")
    browser.datagramReceived(payload, (source, PORT))
    (heard,) = browser.list("game")
    assert browser.list("table") == []  # (`tractor join` does not list games under way)
    return heard


def test_a_game_is_announced_with_its_game_port_and_its_watchers() -> None:
    watchers = Watchers()
    hosting = WatchHosting(watchers, _seating(), False, None, AttemptLimiter())
    watchers.served = {object(): object() for _ in range(3)}  # type: ignore[misc]
    heard = _heard(hosting)
    assert heard.kind == "game" and heard.name == "ann's table"
    assert heard.address == f"tcp:192.0.2.5:{GAME_PORT}"  # the wildcard: the sender's IP
    assert (heard.seats, heard.taken, heard.passphrase) == (MAX_WATCHERS, 3, False)
    assert game_line(heard).startswith("ann's table: game under way")
    assert f"3 of {MAX_WATCHERS} watchers" in game_line(heard)
    assert hosting.note() == "others may watch this game: `tractor watch 192.0.2.5:40124`"
    assert watchers.desk is None


def test_a_table_that_refuses_watchers_says_so_in_the_list() -> None:
    hosting = WatchHosting(Watchers(), _seating(watchers=False), True, None, AttemptLimiter())
    heard = _heard(hosting)
    assert heard.seats == 0 and "takes no watchers" in game_line(heard)
    assert hosting.note() is None


def test_at_a_table_with_a_passphrase_the_hosts_seat_checks_it_with_the_lobbys_limits(
        ) -> None:
    watchers, limiter = Watchers(), AttemptLimiter()
    watchers.open = False  # (the start told every seat: no plain watchers)
    hosting = WatchHosting(watchers, _seating(watchers=False), False, "sesame", limiter)
    assert watchers.desk is not None and watchers.desk.limiter is limiter
    assert _heard(hosting).passphrase and "(passphrase)" in game_line(_heard(hosting))
    note = hosting.note()
    assert note is not None and "--passphrase -`" in note
    refused = Watchers()
    WatchHosting(refused, _seating(watchers=False), True, "sesame", limiter)
    assert refused.desk is None  # --no-watchers: nobody, passphrase or not


def _ann(name: str, seats: int = MAX_WATCHERS, taken: int = 0,
         passphrase: bool = False) -> Announcement:
    return Announcement("game", name, "tcp:192.0.2.9:4000", seats, taken, "", passphrase,
                        name, "192.0.2.9", 0.0)


def _choose(found: list[Announcement], answers: list[str]) -> tuple[Announcement | None,
                                                                     list[str]]:
    said: list[str] = []
    typed: Iterator[str] = iter(answers)

    async def read(prompt: str) -> str | None:
        return next(typed, None)

    return asyncio.run(choose_game(found, read, said.append)), said


def test_the_pick_is_read_by_number_and_a_game_that_cannot_be_watched_is_refused() -> None:
    found = [_ann("closed", seats=0), _ann("full", taken=MAX_WATCHERS), _ann("open")]
    chosen, said = _choose(found, ["7", "1", "2", "3"])
    assert chosen is found[2]
    assert "there is no game '7' in the list: type 1 to 3" in said
    assert "closed cannot be watched: its host refused watchers" in said
    assert any(line.startswith("full cannot be watched") for line in said)


def test_nothing_is_asked_when_no_game_can_be_watched_and_enter_gives_up() -> None:
    chosen, said = _choose([_ann("closed", seats=0)], ["1"])
    assert chosen is None and "none of these games can be watched now" in said[-1]
    chosen, said = _choose([_ann("open")], [""])
    assert chosen is None and said[-1] == "tractor watch: no game chosen"


class _Terminal(io.StringIO):
    """Standard output as an 80-column terminal (what `prompts.fit` asks of it)."""

    columns = 80

    def isatty(self) -> bool:
        return True


def test_the_list_and_plain_lines_fold_between_words_on_a_terminal(monkeypatch) -> None:
    heard = Announcement("game", "ann's table", "tcp:192.0.2.5:40124", MAX_WATCHERS, 2,
                         "2 decks  fixed teams  2 house rules", True, "a1b2", "192.0.2.5", 0.0)
    line = f"  1. {game_line(heard)}"
    assert len(line) > 80
    out = _Terminal()
    monkeypatch.setattr(sys, "stdout", out)
    watch_command._line(line)
    shown = out.getvalue().splitlines()
    # (the rules summary on a line of its own, `listing_entry`; the first line folded)
    assert len(shown) == 3 and all(len(row) < 80 for row in shown), shown
    assert " ".join(row.strip() for row in shown).split() == line.split()
