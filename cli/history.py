"""`tractor history` and `tractor replay`: past games from this peer's journal.

A finished hand is public in full after its audit (every key is released), so a replay
shows every seat's cards, the talon, the burial and every trick, rebuilt from the
journal's signed frames by the same table code that played them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TextIO

from tractor.cards import format_cards
from tractor.net.journal import Journal
from tractor.net.table import RandomPlayer, TableHand

from .words import count


def history_lines(journal: Journal) -> list[str]:
    """One line per game, newest last."""
    games = journal.games()
    if not games:
        return ["no games yet: `tractor play` starts one"]
    lines = []
    for g in games:
        results = journal.results(g.id)
        meta = journal.meta(g.id)
        names = meta.get("names") or []
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(g.created))
        state = "finished" if g.finished else "unfinished (tractor resume)"
        who = f" with {', '.join(n for i, n in enumerate(names) if i != g.seat)}" \
            if names else ""
        lines.append(f"{g.id}  {when}  seat {g.seat}{who}  {len(results)} hand(s)  {state}")
    return lines


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
    head = [f"hand {number}: starter {who(hand.starter or 0)}, declarers team "
            f"{hand.declarers}, trump {_trump_words(hand)}"]
    for seat, faces in hand.declarations:
        head.append(f"  {who(seat)} declared {format_cards(faces, True)}")
    for seat in range(n):
        cards = [order[p] for p in range(dealt) if owner[p] == seat]
        shown = ladder.sort_faces(cards) if ladder else sorted(cards)
        head.append(f"  {who(seat)}: {format_cards(shown, True)}")
    head.append(f"  talon: {format_cards(order[dealt:], True)}")
    head.append(f"  buried: {format_cards([order[p] for p in hand.deck.buried], True)}")
    steps = [head]
    for i, t in enumerate(hand.tricks, 1):
        plays = "  ".join(f"{(t.leader + k) % n}:{format_cards(p, True)}"
                          for k, p in enumerate(t.plays))
        extra = ""
        if t.attempted and t.forced != t.attempted:
            extra = f"  (throw {format_cards(t.attempted, True)} failed, penalty {t.penalty})"
        steps.append([f"  trick {i:2}: {plays} -> {who(t.winner)} +{t.points}{extra}"])
    res = hand.result
    if res is not None:
        steps.append([f"  defenders {res.defender_points} points (talon {res.talon_points}, "
                      f"bonus {res.talon_bonus}); team {res.gaining_team} gains "
                      f"{count(res.levels_gained, 'level')}; next starter {who(res.next_starter)}"])
        if hand.violations:
            steps.append([f"  audit: {who(v.seat)} in trick {v.trick}: {v.reason}"
                          for v in hand.violations])
        else:
            steps.append([f"  audit: {n} of {n} peers verified the hand: no rule broken"])
    return steps


def finished_hands(journal: Journal, game: str) -> tuple[list[TableHand], dict[str, Any]]:
    """Rebuild a game's finished hands from the journal (offline: nothing is sent)."""
    session, _ = journal.open_session(game, RandomPlayer(0))
    hands = [h for h in session.played if h.phase == "done"]
    return hands, journal.meta(game)


def replay(journal: Journal, game: str, out: TextIO, hand_no: int | None = None,
           pause: Callable[[], bool] | None = None) -> int:
    """Print the finished hands of ``game`` (or hand ``hand_no``, counted from 1).
    ``pause`` is called between steps; it returns False to stop. Returns an exit code."""
    try:
        hands, meta = finished_hands(journal, game)
    except KeyError:
        print(f"tractor: no game {game!r} in {journal.path}; see `tractor history`", file=out)
        return 2
    names = meta.get("names") or [f"seat {s}" for s in range(16)]
    if not hands:
        print(f"game {game} has no finished hand yet", file=out)
        return 0
    chosen = range(1, len(hands) + 1) if hand_no is None else [hand_no]
    for number in chosen:
        if not 1 <= number <= len(hands):
            print(f"tractor: game {game} has {len(hands)} finished hand(s)", file=out)
            return 2
        for step in hand_story(hands[number - 1], names, number):
            for line in step:
                print(line, file=out)
            if pause is not None and not pause():
                return 0
    return 0
