"""`tractor stats`: win and loss records from this machine's journal.

The journal holds the games played here, each as this peer saw it: the names at every
seat as the table had them, every scored hand's result and, since journal layout 4, the
seats that declared each hand and the seats that won the game. A person is a name; AI
seats are grouped by level ("AI (hard)"), the level being known where the journal says
it: as the table's start said each AI seat's level (`seats_of`), or, in a practice game
kept before starts said levels, the level `tractor play` gave all its AI seats.
`cli.stats_view` lays the figures out.

How things are counted:

- Only finished games count: a game is finished when a side won it. A game still going on,
  or one that ended without a winner (its table halted, or it went on at a new table after
  a seat left: the new table's game counts), is counted as unfinished and in nothing else.
- Every seat counts for whoever sat in it: an AI row counts seats, so a practice game with
  three AI seats of one level adds three games to that row.
- Hands: each scored hand of a finished game, for each seat, as declaring or defending,
  won or lost (the seat's side gained the levels or not), and the levels it gained. With
  teams, a hand recorded before layout 4 whose declaring team the results do not tell (the
  first hand of a game, every hand of the auction variant) is counted apart.
- Partners: with teams, the pairs of seats of one team, by game; in find-a-friend, the
  pairs of seats on the same side (the starter's side or the defenders) of each hand, by
  hand, since the sides change from hand to hand.
- One game appears once even when several of its seats were played from this machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from tractor.ai.players.strategies import LEVELS as AI_LEVELS
from tractor.game import after_hand
from tractor.net.journal.records import GameRecord, HandRecord
from tractor.net.journal.store import Journal
from tractor.records import HandResult
from tractor.rules import Rules, team_of

#: The level of an AI seat the journal does not say (its row is "AI (level unknown)").
UNKNOWN_LEVEL = "level unknown"
#: Partners' sections: with teams counted by game, in find-a-friend by hand.
TEAMS, FRIENDS = "teams", "friends"
#: How a game stands (`outcome`, `tractor history` says it too): a side won it; it ended
#: without a winner (its table halted, or it went on at a new table after a seat left);
#: it may still go on (`tractor resume`).
WON, ENDED_UNWON, IN_PROGRESS = "won", "ended without a winner", "in progress"


@dataclass
class WonLost:
    won: int = 0
    lost: int = 0

    def add(self, won: bool) -> None:
        if won:
            self.won += 1
        else:
            self.lost += 1


@dataclass
class PersonRecord:
    """One person's (or one AI level's) figures."""

    name: str
    ai: bool
    level: str | None  #: an AI's level (None for a person, or not recorded)
    games: int = 0
    won: int = 0
    unfinished: int = 0
    declaring: WonLost = field(default_factory=WonLost)
    defending: WonLost = field(default_factory=WonLost)
    side_not_recorded: WonLost = field(default_factory=WonLost)
    levels_gained: int = 0


@dataclass
class PartnerRecord:
    """Two people's games (teams) or hands (find-a-friend) on the same side."""

    mode: str
    pair: tuple[str, str]
    together: int = 0
    won: int = 0


@dataclass
class Records:
    """Everything `tractor stats` shows."""

    journal: str
    here_as: list[str]  #: the names this machine's seats played as
    finished: int = 0
    in_progress: int = 0
    ended_unwon: int = 0  #: halted, or gone on at a new table
    unreadable: int = 0  #: games whose records this version cannot read
    people: dict[tuple[str, bool], PersonRecord] = field(default_factory=dict)
    partners: dict[tuple[str, str, str], PartnerRecord] = field(default_factory=dict)

    @property
    def unfinished(self) -> int:
        return self.in_progress + self.ended_unwon

    def person(self, seat: Seat) -> PersonRecord:
        key = (seat.name, seat.ai)
        if key not in self.people:
            self.people[key] = PersonRecord(seat.name, seat.ai, seat.level)
        return self.people[key]

    def partner(self, mode: str, a: str, b: str) -> PartnerRecord:
        pair = (a, b) if a <= b else (b, a)
        key = (mode, *pair)
        if key not in self.partners:
            self.partners[key] = PartnerRecord(mode, pair)
        return self.partners[key]


@dataclass(frozen=True)
class Seat:
    """Who sat in a seat, as stats groups it."""

    name: str
    ai: bool
    level: str | None


def seats_of(meta: dict[str, Any], players: int) -> list[Seat]:
    """Each seat's person by the game's journal meta (the names and kinds the lobby gave;
    an AI seat's level as the start said it, else, at a practice table recorded before
    starts said levels, the level `tractor play` gave all its AI seats). A level that is
    none of the AI players' levels is not known."""
    names, kinds = _list(meta.get("names")), _list(meta.get("kinds"))
    said = _list(meta.get("ai_levels"))
    practice = meta.get("level") if meta.get("practice") else None
    seats = []
    for s in range(players):
        if s < len(kinds) and kinds[s] == "ai":
            level = said[s] if s < len(said) else None
            known = next((str(lv) for lv in (level, practice) if lv in AI_LEVELS), None)
            seats.append(Seat(f"AI ({known or UNKNOWN_LEVEL})", True, known))
        elif s < len(names):
            seats.append(Seat(str(names[s]), False, None))
        else:
            seats.append(Seat(f"seat {s} (no name recorded)", False, None))
    return seats


def _list(value: Any) -> list[Any]:
    """A list the journal's meta should hold (a damaged file: none)."""
    return value if isinstance(value, list) else []


def derived_winners(rules: Rules, carry: Sequence[Any] | None,
                    hands: Sequence[HandRecord]) -> tuple[int, ...]:
    """The seats that won, worked out from the hands' results by the rule the game was
    played by (`tractor.game.after_hand`), from the levels the game started at; empty
    while nobody has. For games recorded before journal layout 4 kept the winners."""
    levels = list(carry[:rules.level_count]) if carry else \
        [rules.start_level] * rules.level_count
    for hand in hands:
        winners = after_hand(rules, levels, 0, HandResult.from_data(hand.result))[3]
        if winners:
            return winners
    return ()


def declaring_seats(rules: Rules, carry: Sequence[Any] | None,
                    hands: Sequence[HandRecord]) -> list[tuple[int, ...] | None]:
    """The seats that declared each hand: as recorded; in find-a-friend the starter's
    side every result keeps; with teams (before layout 4) the team the previous result
    (or a new table's carry) named, the rule outside the auction variant; else None."""
    sides: list[tuple[int, ...] | None] = []
    team: int | None = carry[-3] if carry and rules.declaration != "auction" else None
    for hand in hands:
        result = HandResult.from_data(hand.result)
        if hand.declaring is not None:
            sides.append(hand.declaring)
        elif rules.mode == FRIENDS:
            sides.append(result.side or None)
        elif team is not None:
            sides.append(tuple(s for s in range(rules.players) if team_of(s) == team))
        else:
            sides.append(None)
        team = result.next_declarers if rules.declaration != "auction" else None
    return sides


def outcome(journal: Journal, game: GameRecord) -> tuple[str, tuple[int, ...]]:
    """How ``game`` stands (`WON`, `ENDED_UNWON`, `IN_PROGRESS`) and the seats that won
    it (as recorded, else worked out from its hands: `derived_winners`). Raises
    (KeyError, ValueError, TypeError, IndexError) for a record it cannot read."""
    winners = game.winners if game.winners is not None else \
        derived_winners(game.rules, journal.meta(game.id).get("carry"), journal.hands(game.id))
    if winners:
        return WON, winners
    return (ENDED_UNWON if game.finished else IN_PROGRESS), ()


def records(journal: Journal) -> Records:
    """The figures of every game in ``journal``."""
    games = journal.games()
    out = Records(journal.path, _names_here(journal, games))
    for game in _one_per_table(journal, games):
        try:
            _count_game(out, journal, game)
        except (KeyError, ValueError, TypeError, IndexError):
            out.unreadable += 1  # a record this version cannot make sense of: left out
    return out


def _names_here(journal: Journal, games: list[GameRecord]) -> list[str]:
    """The names this machine's seats had, each once, oldest first."""
    here: list[str] = []
    for g in games:
        names = _list(journal.meta(g.id).get("names"))
        if g.seat < len(names) and str(names[g.seat]) not in here:
            here.append(str(names[g.seat]))
    return here


def _one_per_table(journal: Journal, games: list[GameRecord]) -> list[GameRecord]:
    """One record of each game (several seats of one table may share a journal): one
    that knows its winners, else the one with the most hands."""
    best: dict[bytes, tuple[tuple[bool, int], GameRecord]] = {}
    for g in games:
        rank = (g.winners is not None, len(journal.hands(g.id)))
        if g.table not in best or rank > best[g.table][0]:
            best[g.table] = (rank, g)
    return [g for _, g in best.values()]


def _count_game(out: Records, journal: Journal, game: GameRecord) -> None:
    """Add ``game`` to ``out``; raises (KeyError, ValueError, TypeError, IndexError) for
    a record it cannot read, before anything is counted."""
    meta = journal.meta(game.id)
    rules, carry = game.rules, meta.get("carry")
    hands = journal.hands(game.id)
    seats = seats_of(meta, rules.players)
    results = [HandResult.from_data(hand.result) for hand in hands]
    sides = declaring_seats(rules, carry, hands)
    how, winners = outcome(journal, game)
    if how != WON:
        for seat in seats:
            out.person(seat).unfinished += 1
        if how == ENDED_UNWON:
            out.ended_unwon += 1
        else:
            out.in_progress += 1
        return
    out.finished += 1
    for s, seat in enumerate(seats):
        person = out.person(seat)
        person.games += 1
        person.won += s in winners
    if rules.mode == TEAMS:
        for team in (0, 1):
            members = [s for s in range(rules.players) if team_of(s) == team]
            _pairs(out, TEAMS, seats, members, set(winners))
    for result, declaring in zip(results, sides, strict=True):
        _count_hand(out, rules, seats, result, declaring)


def _count_hand(out: Records, rules: Rules, seats: list[Seat], result: HandResult,
                declaring: tuple[int, ...] | None) -> None:
    players = range(rules.players)
    gaining = set(result.gaining) if rules.mode == FRIENDS else \
        {s for s in players if team_of(s) == result.gaining_team}
    for s, seat in enumerate(seats):
        person, won = out.person(seat), s in gaining
        if declaring is None:
            person.side_not_recorded.add(won)
        else:
            (person.declaring if s in declaring else person.defending).add(won)
        if won:
            person.levels_gained += result.levels_gained
    if rules.mode == FRIENDS and declaring is not None:
        defending = [s for s in players if s not in declaring]
        for side in (list(declaring), defending):
            _pairs(out, FRIENDS, seats, side, gaining)


def _pairs(out: Records, mode: str, seats: list[Seat], side: list[int],
           winning: set[int]) -> None:
    """Count the pairs of ``side`` together; won where both are ``winning`` (a hand
    forfeited in find-a-friend is lost by the offender alone, not by its side)."""
    for a, b in combinations(side, 2):
        partner = out.partner(mode, seats[a].name, seats[b].name)
        partner.together += 1
        partner.won += a in winning and b in winning
