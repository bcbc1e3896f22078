"""The end-of-hand summary panel, and the game strip the clients record for it.

What a card player reads when a hand ends: the defenders' score and where it came from
(the point cards they won, trick by trick, the failed throws' penalties, the talon turned
over with its multiplier), the level change, who starts next, the audit, and a strip of the
game's hands so far (who started, the trump, the defenders' points, the levels after).

`summary_lines` reads the summary dict a `cli.seat.client.TableClient` gives (see
`TableClient.summary`) and the finished hand's observation; `strip_entry` is how both
clients record one hand of the strip, so the strip reads the same over the network.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tractor.cli.screen import friends_view
from tractor.cli.screen.friends_summary import friends_summary_lines
from tractor.cli.screen.hand_points import (
    points_lines,
    talon_sentence,
    trump_data_short,
    wrap_text,
)
from tractor.game import after_hand, declarers_gained
from tractor.observation import Observation
from tractor.records import HandResult
from tractor.rules import Rules, team_of
from tractor.scoring import LEVELS, defended_gain

#: Hands of the strip shown one per line at most; earlier ones go in one line of levels.
STRIP_ROWS = 4
#: The lines the summary panel has on an 80x24 screen.
PANEL_HEIGHT = 16


def summary_lines(summary: dict[str, Any], obs: Observation, names: Sequence[str],
                  width: int | None = 80, height: int | None = PANEL_HEIGHT) -> list[str]:
    """The summary as lines of at most ``width`` (None: one line per sentence, unwrapped).
    ``obs`` is the finished hand's observation (its levels are the levels it was played
    at). The game strip gives up its own lines for the last hands (down to one, the rest
    in a line of levels) while the summary is longer than ``height``; only a hand with a
    great many point tricks, or a very narrow panel, makes it longer still."""
    rows = STRIP_ROWS
    make = friends_summary_lines if friends_view.is_friends(obs) else _summary_lines
    while True:
        lines = make(summary, obs, names, width, rows)
        if height is None or len(lines) <= height or rows <= 1:
            return lines
        rows -= 1


def _summary_lines(summary: dict[str, Any], obs: Observation, names: Sequence[str],
                   width: int | None, strip_rows: int) -> list[str]:
    res = summary["result"]
    rules = obs.game.rules if obs.game is not None else None
    decl = 0 if obs.declarers is None else obs.declarers
    defenders = 1 - decl
    n = obs.players
    hand_no = obs.game.hand_no if obs.game is not None else 0
    out: list[str] = [f"Hand {hand_no + 1} is over."]

    def say(text: str) -> None:
        out.extend(wrap_text(text, width))

    say(f"Defenders (team {defenders}: {_members(names, n, defenders)}) scored "
        f"{res['defender_points']} points.")
    out += points_lines(res, obs, names, width)
    say(talon_sentence(res, summary.get("buried"), "the declarers"))
    gain, team = res["levels_gained"], res["gaining_team"]
    side = "declarers" if team == decl else "defenders"
    auction = rules is not None and rules.declaration == "auction"
    over = bool(summary.get("game_over"))  # no next hand then: the last line says who won
    # A level past Ace stays "A" (`tractor.scoring.advance_levels`): said in words, else
    # "Levels: team 0 A, team 1 A" showed no change at all in the hand that won the game.
    past_ace = over and bool(gain) and (rules is None or rules.win == "past_ace")
    if past_ace:
        say(f"Team {team} ({side}) goes up {gain} level{'s' if gain > 1 else ''}, past "
            "Ace: that wins the game.")
    elif gain:
        say(f"Team {team} ({side}) goes up {gain} level{'s' if gain > 1 else ''}.")
    elif auction:  # the next auction picks the declarers again: nobody "takes over"
        say("No level gained.")
    else:
        say(f"Team {team} ({side}) takes over, no level gained.")
    before = list(obs.levels)
    stopped = must_defend_sentence(rules, before[team], summary) if gain and rules else ""
    if stopped:
        say(stopped)
    after = list(summary.get("levels") or before)
    if past_ace:
        after[team] = "past A"
    say("Levels: " + ", ".join(
        f"team {t} {before[t]}" + (f" → {after[t]}" if after[t] != before[t] else "")
        for t in (0, 1)))
    if auction and not over:
        dealer = (obs.first + 1) % n
        say(f"Next hand: {names[dealer]} deals and bids first; the auction picks the "
            "declarers.")
    elif not over:
        nxt = res["next_starter"]
        say(f"Next starter: {names[nxt]} (seat {nxt}); team {res['next_declarers']} "
            "declares.")
    out += strip_lines(summary.get("strip") or [], names, width, strip_rows)
    if summary.get("audit"):
        say(f"Audit: {summary['audit']}")
    if summary.get("game_over"):
        winner = obs.game.winner if obs.game is not None else None
        won = f"team {winner}" if winner is not None else f"team {team}"
        say(f"Game over: {won} wins!")
    return out


def summary_text(summary: dict[str, Any], obs: Observation, names: Sequence[str],
                 width: int | None = 80) -> str:
    """`summary_lines` joined into one text."""
    return "\n".join(summary_lines(summary, obs, names, width))


# --- the game strip ---------------------------------------------------------------------------


def strip_entry(number: int, obs: Observation, result: HandResult, rules: Rules) -> dict:
    """One finished hand for the strip, as plain data (the summary dict is plain data):
    ``hand`` (1 for the first), ``starter`` (seat), ``declarers`` (team), ``declared_by``
    (the seat whose declaration set the trump, None when none did), ``trump``
    (`Trump.to_data`, None if never known), ``defender_points``, ``gaining_team``,
    ``levels_gained``, and ``levels`` (both teams' levels after it). ``obs``: any seat's
    observation of the finished hand (it is public)."""
    levels = list(obs.levels)
    after_hand(rules, levels, obs.first, result)  # as the game moves them on
    friends: dict[str, Any] = {}
    if rules.mode == "friends":  # one level per player; the side and who went up
        friends = {"side": list(result.side), "gaining": list(result.gaining)}
    declared_by = obs.declarations[-1][0] if obs.declarations else None
    return {**friends, "hand": number, "starter": obs.starter, "declarers": obs.declarers,
            "declared_by": declared_by,
            "trump": obs.trump.to_data() if obs.trump is not None else None,
            "defender_points": result.defender_points,
            "gaining_team": result.gaining_team, "levels_gained": result.levels_gained,
            "levels": levels}


def strip_lines(strip: Sequence[dict[str, Any]], names: Sequence[str], width: int | None,
                rows: int = STRIP_ROWS) -> list[str]:
    """The game so far: the last ``rows`` hands a line each, the ones before in one line of
    the levels after each hand (its oldest hands dropped when it would not fit)."""
    if not strip:
        return []
    lines = ["Game so far: starter, trump, defenders' points, levels after (team 0/1)"]
    early, late = list(strip[:-rows] if rows else strip), strip[-rows:] if rows else []
    if early:
        lines.append(_early_line(early, width))
    for e in late:
        lines += wrap_text(_strip_row(e, names), width, "      ")
    return lines


def _early_line(early: Sequence[dict[str, Any]], width: int | None) -> str:
    levels = [f"{e['levels'][0]}/{e['levels'][1]}" for e in early]
    last = early[-1]["hand"]
    k = 0
    while True:
        head = f"  hands {early[k]['hand']}–{last}:" if k < len(early) - 1 else \
            f"  hand {last}:"
        line = head + (" …" if k else "") + " " + " → ".join(levels[k:])
        if width is None or len(line) <= width or k == len(early) - 1:
            return line
        k += 1


def _strip_row(e: dict[str, Any], names: Sequence[str]) -> str:
    starter = e.get("starter")
    who = (f"{names[starter]} (team {team_of(starter)})" if isinstance(starter, int)
           and 0 <= starter < len(names) else "starter unknown")
    trump = trump_data_short(e.get("trump"))
    by = e.get("declared_by")
    if isinstance(by, int) and by != starter and 0 <= by < len(names):
        trump += f" by {names[by]}"
    gain, team = e["levels_gained"], e["gaining_team"]
    change = f"team {team} +{gain}" if gain else f"team {team} takes over"
    a, b = e["levels"]
    return (f"{e['hand']:>3}. {who} · {trump} · {e['defender_points']} pts · {change} "
            f"· {a}/{b}")


def must_defend_sentence(rules: Rules, level: str, summary: dict[str, Any]) -> str:
    """Where a must-defend level stopped a gain from ``level`` ("" when none did)."""
    stop = must_defend_stop(rules, level, HandResult.from_data(summary["result"]))
    if stop is None:
        return ""
    return (f"The gain stops at {stop}, a must-defend level: it is passed only by winning "
            "a hand as declarers at it.")


def must_defend_stop(rules: Rules, level: str, result: HandResult) -> str | None:
    """The must-defend level that stopped the gain of ``result`` from ``level`` (fixed
    teams), None when none did."""
    if not rules.must_defend:
        return None
    declared = declarers_gained(rules, result)
    climbed = defended_gain(level, result.levels_gained, rules.must_defend_levels, declared)
    if climbed >= result.levels_gained:
        return None
    return LEVELS[LEVELS.index(level) + climbed]


# --- small pieces -----------------------------------------------------------------------------


def _members(names: Sequence[str], players: int, team: int) -> str:
    return ", ".join(names[s] for s in range(players) if team_of(s) == team)
