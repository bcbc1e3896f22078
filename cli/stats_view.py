"""`tractor stats` laid out: a table of 80 columns, or one JSON document for scripts
(`stats_document`, described in README.md). The figures: `cli.stats`."""

from __future__ import annotations

import json
import textwrap
from typing import Any

from tractor.cli.screen.words import count
from tractor.net.journal.store import Journal

from .stats import FRIENDS, TEAMS, PartnerRecord, PersonRecord, Records, records

#: The JSON document's version: a script checks it before reading the rest.
DOCUMENT = "tractor-stats/1"
#: Columns of a name in the table (longer names are cut, ending in "~").
NAME = 22
PAIR = 46


def stats_lines(records: Records, width: int | None = 80) -> list[str]:
    """The table of ``records``, its explanations laid out to ``width`` columns."""
    if not records.people:
        return ["no games yet: `tractor play` starts one"]
    lines = _about(records, width)
    people = _ordered(records)
    if records.finished:
        lines += ["", *_people_table(people)]
    apart = sum(p.side_not_recorded.won + p.side_not_recorded.lost for p in people)
    if apart:
        lines += ["", *_prose(f"Hands whose declaring team the journal did not record (games "
                              f"kept by an older tractor): {apart} seat-hands, in neither "
                              "column.", width)]
    for mode, title in ((TEAMS, "By partner, teams (games on the same team):"),
                        (FRIENDS, "By partner, find-a-friend (hands on the same side):")):
        pairs = [p for p in records.partners.values() if p.mode == mode]
        if pairs:
            lines += ["", title, *_partner_table(pairs, "games" if mode == TEAMS else "hands",
                                                 records.here_as)]
    return lines


def _about(records: Records, width: int | None) -> list[str]:
    """Whose records these are, and what is left out."""
    here = ", ".join(records.here_as) or "names not recorded"
    text = (f"The games played on this machine as {here}, each seat named as its table "
            "named it. " + (f"{count(records.finished, 'finished game')} counted."
                            if records.finished else
                            "No finished game yet (a side won none): no figures to show."))
    if records.unfinished:
        why = []
        if records.in_progress:
            why.append(f"{records.in_progress} going on")
        if records.ended_unwon:
            why.append(f"{records.ended_unwon} halted or gone on at a new table")
        # The table, and its last column, only when a game is finished.
        where = "only in the last column" if records.finished else "not counted"
        text += (f" {count(records.unfinished, 'unfinished game')} ({', '.join(why)}): "
                 f"{where}.")
    if records.unreadable:
        text += f" {count(records.unreadable, 'game')} this version cannot read: left out."
    # The path on a line of its own, whole (a terminal folds it; a script copies it).
    return [f"Records from the journal {records.journal}", *_prose(text, width)]


def _prose(text: str, width: int | None) -> list[str]:
    return textwrap.wrap(text, width) if width else [text]


def _ordered(records: Records) -> list[PersonRecord]:
    """This machine's people first, then people by games played, then AI levels."""
    here = records.here_as
    return sorted(records.people.values(),
                  key=lambda p: (p.ai or p.name not in here,
                                 here.index(p.name) if not p.ai and p.name in here else 0,
                                 p.ai, -p.games, p.name))


def _cut(name: str, columns: int) -> str:
    return name if len(name) <= columns else name[:columns - 1] + "~"


def _rate(won: int, of: int) -> str:
    return f"{100 * won // of}%" if of else "-"


def _people_table(people: list[PersonRecord]) -> list[str]:
    head = (f"{'':{NAME}} {'games':>5} {'won':>4} {'win%':>4}  {'declaring':>9}  "
            f"{'defending':>9}  {'levels':>6}  {'unfinished':>10}")
    sub = f"{'person':{NAME}} {'':>5} {'':>4} {'':>4}  {'won-lost':>9}  {'won-lost':>9}  " \
          f"{'gained':>6}"
    rows = [head, sub.rstrip()]
    for p in people:
        rows.append(f"{_cut(p.name, NAME):{NAME}} {p.games:>5} {p.won:>4} "
                    f"{_rate(p.won, p.games):>4}  "
                    f"{p.declaring.won:>4}-{p.declaring.lost:<4}  "
                    f"{p.defending.won:>4}-{p.defending.lost:<4}  "
                    f"{p.levels_gained:>6}  {p.unfinished:>10}")
    return rows


def _partner_table(pairs: list[PartnerRecord], unit: str, here: list[str]) -> list[str]:
    rows = [f"  {'':{PAIR}} {unit:>6} {'won':>5} {'win%':>5}"]
    half = (PAIR - 3) // 2
    for p in sorted(pairs, key=lambda p: (-p.together, p.pair)):
        first, second = p.pair
        if second in here and first not in here:  # this machine's person first
            first, second = second, first
        pair = f"{_cut(first, half)} + {_cut(second, half)}"
        rows.append(f"  {pair:{PAIR}} {p.together:>6} {p.won:>5} "
                    f"{_rate(p.won, p.together):>5}")
    return rows


def stats_document(records: Records) -> dict[str, Any]:
    """The figures as plain data (README.md, "Records": its fields)."""
    return {
        "version": DOCUMENT,
        "journal": records.journal,
        "played_here_as": records.here_as,
        "games": {"finished": records.finished, "in_progress": records.in_progress,
                  "ended_without_winner": records.ended_unwon,
                  "unreadable": records.unreadable},
        "people": [_person_data(p) for p in _ordered(records)],
        "partners": [{"mode": p.mode, "people": list(p.pair),
                      "games" if p.mode == TEAMS else "hands": p.together, "won": p.won}
                     for p in sorted(records.partners.values(),
                                     key=lambda p: (p.mode, -p.together, p.pair))],
    }


def _person_data(p: PersonRecord) -> dict[str, Any]:
    return {
        "name": p.name, "ai": p.ai, "level": p.level,
        "games": p.games, "won": p.won, "unfinished": p.unfinished,
        "hands": {"declaring": vars(p.declaring).copy(),
                  "defending": vars(p.defending).copy(),
                  "side_not_recorded": vars(p.side_not_recorded).copy()},
        "levels_gained": p.levels_gained,
    }


def print_stats(journal: Journal, as_json: bool, width: int | None) -> int:
    """`tractor stats [--json]` on stdout; returns the exit code."""
    figures = records(journal)
    if as_json:
        print(json.dumps(stats_document(figures), indent=2, ensure_ascii=False))
    else:
        for line in stats_lines(figures, width):
            print(line)
    return 0
