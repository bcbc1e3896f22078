"""`tractor history` and `tractor replay`: past games from this peer's journal.

A finished hand is public in full after its audit (every key is released), so a replay
shows every seat's cards, the talon, the burial and every trick, rebuilt from the
journal's signed frames by the same table code that played them.
"""

from __future__ import annotations

import shutil
import textwrap
import time
from collections.abc import Callable
from typing import Any, TextIO

from tractor.cards import format_cards
from tractor.cli.screen.friends_view import call_words, result_lines, reveal_words, reveals_in
from tractor.cli.screen.words import count
from tractor.net.journal.records import GameRecord
from tractor.net.journal.store import Journal
from tractor.net.lobby.table_settings import option_text
from tractor.net.table.hand import TableHand
from tractor.net.table.journaled import open_session
from tractor.net.table.player import RandomPlayer
from tractor.phases import Phase
from tractor.rules import Rules

from .prompts import fit as fit_message
from .stats import derived_winners


def terminal_width() -> int:
    """Columns of the terminal the output goes to ($COLUMNS first; 80 when not a tty)."""
    return shutil.get_terminal_size((80, 24)).columns


def fit(line: str, width: int | None) -> list[str]:
    """``line`` in lines of at most ``width`` columns, broken only between words (a card
    is one word, so never inside one). Continuation lines hang under the text after the
    line's first label ("trick  3: ", "seat 1 (Ann): ") when it leaves room, else four
    columns in. ``width`` None: the line as it is."""
    if width is None or len(line) <= width:
        return [line]
    label = line.find(": ")
    hang = label + 2 if 0 < label and label + 2 <= width // 3 else \
        len(line) - len(line.lstrip(" ")) + 4
    return textwrap.wrap(line, max(width, 20), subsequent_indent=" " * hang,
                         break_long_words=False, break_on_hyphens=False) or [""]


def history_lines(journal: Journal, width: int | None = None) -> list[str]:
    """One entry per game, newest last; laid out to ``width`` columns when given: a line
    of the game's parts (broken between them, so "in hand 1" stays whole), then its rules
    when they are not the defaults."""
    games = journal.games()
    if not games:
        return ["no games yet: `tractor play` starts one"]
    lines = []
    for g in games:
        lines += _parts_laid_out(_game_parts(journal, g), width)
        changed = rules_line(g.rules, width or 80)
        if changed:
            lines.append(changed)
    return lines


def _game_parts(journal: Journal, g: GameRecord) -> list[str]:
    """What `tractor history` says of game ``g``, part by part."""
    scored = len(journal.results(g.id))
    names = journal.meta(g.id).get("names") or []
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(g.created))
    who = f" with {', '.join(n for i, n in enumerate(names) if i != g.seat)}" \
        if names else ""
    mode = [f"find-a-friend, {g.rules.players} players"] if g.rules.mode == "friends" else []
    won = _winners_part(journal, g, names) if g.finished else []
    return [g.id, when, f"seat {g.seat}{who}", *mode, *_how_far(scored, g.finished), *won]


def _winners_part(journal: Journal, g: GameRecord, names: list[Any]) -> list[str]:
    """Who won finished game ``g`` ("won by you, AI 2"), as the journal recorded it (a
    game recorded before journal layout 4: worked out from its hands, as `tractor stats`
    does); none when nobody won (its table halted) or the record cannot tell."""
    winners = g.winners
    if winners is None:
        try:
            winners = derived_winners(g.rules, journal.meta(g.id).get("carry"),
                                      journal.hands(g.id))
        except (KeyError, ValueError, TypeError, IndexError):
            return []  # a record this version cannot read: the rest of the line stands
    if not winners:
        return []
    return ["won by " + ", ".join(
        "you" if s == g.seat else str(names[s]) if s < len(names) else f"seat {s}"
        for s in winners)]


def _parts_laid_out(parts: list[str], width: int | None) -> list[str]:
    """``parts`` two spaces apart, in lines of at most ``width`` columns broken between
    parts (a part too long for a line of its own is broken between words, `fit`)."""
    if width is None:
        return ["  ".join(parts)]
    lines = [parts[0]]
    for part in parts[1:]:
        if len(lines[-1]) + 2 + len(part) <= width:
            lines[-1] += "  " + part
        else:
            lines.append("    " + part)
    return [piece for line in lines for piece in fit(line, width)]


def _how_far(scored: int, finished: bool) -> list[str]:
    """Where a game stands: "3 hands  finished", or the hand it was left in, as `tractor
    resume` takes it up ("unfinished in hand 1", not "0 hand(s)"); a game that ended
    before a hand was scored (its table halted): "ended in hand 1"."""
    if not finished:
        return [f"unfinished in hand {scored + 1} (tractor resume)"]
    return [count(scored, "hand"), "finished"] if scored else ["ended in hand 1"]


def rules_line(rules: Rules, width: int) -> str:
    """The game's options that differ from the defaults (find-a-friend and its players
    are said on the line above), in one line of at most ``width`` columns ("    rules:
    throw_penalty=0  must_defend=5/K"; those that do not fit are counted: "+2 more"); ""
    when every other option is at its default."""
    default = Rules()
    said = ("mode", "players") if rules.mode == "friends" else ()
    items = [f"{n}={option_text(getattr(rules, n))}" for n in Rules.option_names()
             if n not in said and getattr(rules, n) != getattr(default, n)]
    head = "    rules: "
    for shown in range(len(items), -1, -1):
        more = f"  +{len(items) - shown} more" if shown < len(items) else ""
        line = head + "  ".join(items[:shown]) + more
        if len(line) <= width or shown == 0:
            return line if items else ""
    return ""


def _trump_words(hand: TableHand) -> str:
    t = hand.trump
    if t is None:
        return "none"
    if t.rank is None:
        return "jokers only"
    return f"rank {t.rank}" + (f", suit {t.suit}" if t.suit else ", no suit")


def hand_story(hand: TableHand, names: list[str], number: int) -> list[list[str]]:
    """A finished hand as steps (the deal, then one step per trick, then the result)."""
    n = hand.n
    order = [c % 54 for c in hand.deck.deck_order()]
    owner = hand.deck.owner
    dealt = hand.deck.config.dealt

    def who(seat: int) -> str:
        return f"seat {seat} ({names[seat]})" if seat < len(names) else f"seat {seat}"

    ladder = hand.ladder
    friends = hand.rules.mode == "friends"
    sides = "find-a-friend" if friends else f"declarers team {hand.declarers}"
    head = [f"hand {number}: starter {who(hand.starter or 0)}, {sides}, trump "
            f"{_trump_words(hand)}"]
    for seat, faces in hand.declarations:
        head.append(f"  {who(seat)} declared {format_cards(faces, True)}")
    for seat in range(n):
        cards = [order[p] for p in range(dealt) if owner[p] == seat]
        shown = ladder.sort_faces(cards) if ladder else sorted(cards)
        head.append(f"  {who(seat)}: {format_cards(shown, True)}")
    head.append(f"  talon: {format_cards(order[dealt:], True)}")
    head.append(f"  buried: {format_cards([order[p] for p in hand.deck.buried], True)}")
    revealed = _friends_head(hand, who, head)
    steps = [head]
    for i, t in enumerate(hand.tricks, 1):
        plays = "  ".join(f"{(t.leader + k) % n}:{format_cards(p, True)}"
                          for k, p in enumerate(t.plays))
        extra = ""
        if t.attempted and t.forced != t.attempted:
            extra = f"  (throw {format_cards(t.attempted, True)} failed, penalty {t.penalty})"
        steps.append([f"  trick {i:2}: {plays} -> {who(t.winner)} +{t.points}{extra}",
                      *(f"    * {line}" for line in revealed.get(i, []))])
    res = hand.result
    if res is not None and friends:
        steps.append([f"  defenders {res.defender_points} points (talon {res.talon_points}, "
                      f"bonus {res.talon_bonus})",
                      *(f"  {line}" for line in result_lines(
                          hand.rules, hand.public.levels, res.side, res.gaining,
                          res.levels_gained, res.next_starter, who))])
    elif res is not None:
        steps.append([f"  defenders {res.defender_points} points (talon {res.talon_points}, "
                      f"bonus {res.talon_bonus}); team {res.gaining_team} gains "
                      f"{count(res.levels_gained, 'level')}; next starter {who(res.next_starter)}"])
        if hand.violations:
            steps.append([f"  audit: {who(v.seat)} in trick {v.trick}: {v.reason}"
                          for v in hand.violations])
        else:
            steps.append([f"  audit: {n} of {n} peers verified the hand: no rule broken"])
    return steps


def _friends_head(hand: TableHand, who: Callable[[int], str],
                  head: list[str]) -> dict[int, list[str]]:
    """Find-a-friend: the starter's calls (added to ``head``), and the lines telling each
    friend revealed, by the number of the trick it played the called card in."""
    sides, starter = hand.public.sides, hand.starter
    if sides is None or starter is None:
        return {}
    head.append(f"  {call_words(who(starter), sides.calls)}")
    revealed: dict[int, list[str]] = {}
    for r in reveals_in(hand.rules, starter, sides.calls, hand.public.tricks):
        revealed.setdefault(r.trick, []).append(reveal_words(
            who(r.seat), who(starter), sides.calls[r.call], r.seat == starter))
    return revealed


def finished_hands(journal: Journal, game: str) -> tuple[list[TableHand], dict[str, Any]]:
    """Rebuild a game's finished hands from the journal (offline: nothing is sent)."""
    session, _ = open_session(journal, game, RandomPlayer(0))
    hands = [h for h in session.played if h.phase == Phase.DONE]
    return hands, journal.meta(game)


def replay(journal: Journal, game: str, out: TextIO, hand_no: int | None = None,
           pause: Callable[[], bool] | None = None, width: int | None = None) -> int:
    """Print the finished hands of ``game`` (or hand ``hand_no``, counted from 1), laid
    out to ``width`` columns. ``pause`` is called after each step is shown (the first one
    included); it returns False to stop. A game or hand that is not there is refused
    before the game is read. Returns an exit code."""
    refused = _refusal(journal, game, hand_no, len(journal.results(game)))
    if refused is not None:
        print(fit_message(refused[0], out), file=out)
        return refused[1]
    if pause is not None:  # reading checks every signed move again: a moment
        print(f"reading game {game}: checking every move again...", file=out, flush=True)
    hands, meta = finished_hands(journal, game)
    refused = _refusal(journal, game, hand_no, len(hands))
    if refused is not None:
        print(fit_message(refused[0], out), file=out)
        return refused[1]
    names = meta.get("names") or [f"seat {s}" for s in range(16)]
    if pause is not None:
        print("(Enter for the next step; q and Enter to stop)", file=out)
    for number in range(1, len(hands) + 1) if hand_no is None else [hand_no]:
        for step in hand_story(hands[number - 1], names, number):
            for line in step:
                for part in fit(line, width):
                    print(part, file=out)
            out.flush()
            if pause is not None and not pause():
                return 0
    return 0


def _refusal(journal: Journal, game: str, hand_no: int | None,
             finished: int) -> tuple[str, int] | None:
    """Why ``game`` (hand ``hand_no``) cannot be replayed, saying what there is, and the
    exit code; None when it can. ``finished``: its finished hands."""
    ids = [g.id for g in journal.games()]
    if game not in ids:
        there = f"its games: {_listing(ids)}" if ids else "it has no games yet"
        return (f"tractor: no game {game!r} in {journal.path}; {there} (see `tractor "
                "history`)", 2)
    if finished == 0:  # nothing to show yet: an answer, not a mistake (unless one was named)
        return f"game {game} has no finished hand yet", 0 if hand_no is None else 2
    if hand_no is None or 1 <= hand_no <= finished:
        return None
    has = "finished hand 1 only" if finished == 1 else f"finished hands 1-{finished}"
    return f"tractor: game {game} has {has}: there is no hand {hand_no} to replay", 2


def _listing(ids: list[str], most: int = 8) -> str:
    """The newest ``most`` game ids, newest last."""
    more = f"{len(ids) - most} older, " if len(ids) > most else ""
    return more + ", ".join(ids[-most:])


def terminal_pause(stdin: TextIO) -> Callable[[], bool]:
    """A pause for `replay` on a terminal: waits for Enter (True), or q and Enter, or the
    end of input (False). What was typed before the first step was shown (Enter pressed
    while the game was read) is dropped: it answered nothing on the screen."""
    first = [True]

    def pause() -> bool:
        if first[0]:
            first[0] = False
            _drop_typeahead(stdin)
        answer = stdin.readline()
        return bool(answer) and answer.strip().lower() not in ("q", "quit")

    return pause


def _drop_typeahead(stdin: TextIO) -> None:
    try:
        import termios
    except ImportError:  # no terminals here (Windows): nothing to drop
        return
    try:
        termios.tcflush(stdin.fileno(), termios.TCIFLUSH)
    except (termios.error, OSError, ValueError):
        pass  # not a terminal: nothing typed ahead to drop
