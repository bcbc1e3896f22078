"""The lobby's settings commands (``rules``, ``sit``, ``swap``) and the news of a change
as the ``lobby>`` prompt says it (`cli.lobby_prompt`).

A host shows and changes the rules (``rules throw_penalty=0 decks=3``, read as ``--rules``
reads them) and the seating (``sit 2``, ``swap 1 3``, ``swap Ann Bob``); a guest shows the
rules and asks for a free seat (``sit 2``). Seats are named by number or by the name seated
there. Every refusal is the sentence the core or the lobby gave.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tractor.errors import TractorError
from tractor.net.lobby.discovery import Announcement
from tractor.net.lobby.seating import Roster
from tractor.net.lobby.table_settings import rules_changes, rules_lines

from .options import rules_options

HOST_HELP = ("rules (the table's rules; rules NAME=VALUE ... changes them), sit SEAT, "
             "swap SEAT SEAT (seats by number or name), ")
GUEST_HELP = "rules (the table's rules), sit SEAT (a free seat), "


class SeatNotFound(TractorError):
    """A seat a person named that is not one of the table's."""


def seat_number(roster: Roster, text: str) -> int:
    """The seat ``text`` names: its number, or the name of whoever sits there (any case;
    refused when two seats share it)."""
    if text.isdigit():
        seat = int(text)
        if seat >= len(roster.seats):
            raise SeatNotFound(f"there is no seat {seat}: the seats are 0 to "
                               f"{len(roster.seats) - 1}")
        return seat
    named = [i for i, info in enumerate(roster.seats)
             if info is not None and info.name.casefold() == text.casefold()]
    if len(named) > 1:
        raise SeatNotFound(f"{len(named)} seats are named {text!r:.40}: give a seat number")
    if not named:
        raise SeatNotFound(f"nobody named {text!r:.40} sits at this table: give a seat "
                           "number or a seated name")
    return named[0]


def two_seats(roster: Roster, words: list[str]) -> tuple[int, int]:
    """The two seats ``words`` name, each a number or a seated name, names of several
    words too (``swap AI 1 Ann``): the first way of cutting the words in two that names
    two seats."""
    for cut in range(1, len(words)):
        try:
            return (seat_number(roster, " ".join(words[:cut])),
                    seat_number(roster, " ".join(words[cut:])))
        except SeatNotFound:
            continue
    if len(words) == 2:  # say what is wrong with the one that is not a seat
        seat_number(roster, words[0])
        seat_number(roster, words[1])
    raise SeatNotFound(f"{' '.join(words)!r:.60} does not name two seats: give two seat "
                       "numbers (or the names seated there)")


class SettingsCommands:
    """``rules``, ``sit`` and ``swap`` at the lobby of ``lobby`` (a `LobbyHost` or a
    `LobbyGuest`); `take` says whether the line was one of them."""

    def __init__(self, lobby: Any, is_host: bool, say: Callable[[str], None]) -> None:
        self.lobby = lobby
        self.is_host = is_host
        self.say = say
        self.help_text = HOST_HELP if is_host else GUEST_HELP

    def take(self, line: str) -> bool:
        """Act on one typed line (as typed: option values keep their case); False when
        it is none of these commands."""
        words = line.split()
        verb = words[0].lower() if words else ""
        try:
            if verb == "rules":
                self._rules(words[1:])
            elif verb == "sit" and len(words) >= 2:
                self._sit(" ".join(words[1:]))
            elif verb == "swap" and len(words) >= 3 and self.is_host:
                self.lobby.swap(*two_seats(self._roster(), words[1:]))
            else:
                return False
        except TractorError as exc:  # RulesError, SettingRefused, SeatNotFound
            self.say(f"not changed: {getattr(exc, 'why', None) or exc}")
        return True

    def _roster(self) -> Roster:
        roster = self.lobby.roster()
        if not isinstance(roster, Roster):
            raise SeatNotFound("the lobby has no seats to show yet")
        return roster

    def _rules(self, items: list[str]) -> None:
        if not items:
            for line in rules_lines(self._roster().rules):
                self.say(line)
            return
        if not self.is_host:
            self.say("only the host changes the rules: ask them (the rules show here when "
                     "they do)")
            return
        self.lobby.change_rules(rules_options(",".join(items)))

    def _sit(self, text: str) -> None:
        roster = self._roster()
        seat = seat_number(roster, text)
        if not self.is_host:
            if seat == roster.you:
                self.say(f"you sit at seat {seat} already")
            elif roster.seats[seat] is not None or seat in roster.reserved:
                self.say(f"seat {seat} is taken: pick an empty one")
            else:
                self.lobby.sit(seat)
            return
        self.lobby.sit(seat)


#: Columns of a listing's entry: 80 less its number ("  1. ") in front.
ENTRY_WIDTH = 75
#: Characters of a table's name shown in a listing (a name may be 48).
NAME_SHOWN = 30


def listing_entry(name: str, lead: str, summary: str, tail: str) -> str:
    """One entry of a listing of tables or games: "name: lead  summary  tail" on one line
    when it fits `ENTRY_WIDTH`, else the rules ``summary`` on a line of its own under it
    (indented under the entry's start); a long name is cut with "...". A line still longer
    than the terminal folds between words where it is printed.

    >>> listing_entry("Ann", "4 seats", "2 decks", "1 free  tcp:192.0.2.5:40123")
    'Ann: 4 seats  2 decks  1 free  tcp:192.0.2.5:40123'
    >>> print(listing_entry("A" * 40, "4 seats", "x" * 30, "1 free  tcp:192.0.2.5:40123"))
    AAAAAAAAAAAAAAAAAAAAAAAAAAA...: 4 seats  1 free  tcp:192.0.2.5:40123
         xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
    """
    if len(name) > NAME_SHOWN:
        name = name[:NAME_SHOWN - 3] + "..."
    one = "  ".join(part for part in (f"{name}: {lead}", summary, tail) if part)
    if len(one) <= ENTRY_WIDTH or not summary:
        return one
    return f"{name}: {lead}  {tail}\n     {summary[:ENTRY_WIDTH]}"


def table_line(ann: Announcement) -> str:
    """One table heard on the LAN as `tractor join` lists it: "Ann's table: 4 seats  2 decks
    find-a-friend  1 free  tcp:192.0.2.5:40123" (the summary is the host's own words,
    whatever version it runs: shown as sent, its characters already checked printable);
    fitted to 80 columns by `listing_entry`."""
    lock = "  (passphrase)" if ann.passphrase else ""
    return listing_entry(ann.name, f"{ann.seats} seats", ann.rules,
                         f"{ann.seats - ann.taken} free{lock}  {ann.address}")


def roster_news(old: Roster | None, new: Roster, is_host: bool) -> list[str]:
    """What changed between two rosters, in sentences the seat lines below them show: who
    joined or left, new rules, or the same people in new seats (either un-readies every
    person)."""
    if old is None:
        return []
    who = "you" if is_host else "the host"
    out = [*_comings_and_goings(old, new)]
    unready = []
    changes = rules_changes(old.rules, new.rules)
    if changes:
        unready.append(f"{who} changed the rules: {changes}")
    # Who sits where, by key: a larger table's new empty seats move nobody.
    before = {s.fingerprint: i for i, s in enumerate(old.seats) if s is not None}
    after = {s.fingerprint: i for i, s in enumerate(new.seats) if s is not None}
    moved = before.keys() == after.keys() and before != after
    if moved:
        unready.append("the seats changed (see below)" if changes else "the seats changed")
    if unready:
        unready[-1] += "; every person says `ready` again"
    return out + unready


def _comings_and_goings(old: Roster, new: Roster) -> list[str]:
    """"Bob joined (seat 2)", "Ann left (seat 1)": each seat's key that came or went."""
    had = {s.fingerprint for s in old.seats if s is not None}
    has = {s.fingerprint for s in new.seats if s is not None}
    return [*(f"{s.name} left (seat {i})" for i, s in enumerate(old.seats)
              if s is not None and s.fingerprint not in has),
            *(f"{s.name} joined (seat {i})" for i, s in enumerate(new.seats)
              if s is not None and s.fingerprint not in had)]
