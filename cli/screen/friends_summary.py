"""The end-of-hand summary of find-a-friend: the calls and who answered them, the sides,
the defenders' points and where they came from, the talon, which side won and the seats
that go up, every player's level, the next starter, the game so far and the audit.

The same summary dict as with fixed teams (`cli.seat.client.TableClient.summary`): its
result carries the final ``side`` and the ``gaining`` seats, its ``levels`` one level per
player, and its strip entries (`cli.screen.summary_view.strip_entry`) the side and the
gaining seats of each hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tractor.cli.screen import friends_view
from tractor.cli.screen.hand_points import (
    points_lines,
    talon_sentence,
    trump_data_short,
    wrap_text,
)
from tractor.game import winners_of
from tractor.observation import Observation
from tractor.records import HandResult
from tractor.rules import Rules


def friends_summary_lines(summary: dict[str, Any], obs: Observation, names: Sequence[str],
                          width: int | None, strip_rows: int) -> list[str]:
    """The summary of a finished hand of find-a-friend as lines of at most ``width``
    (None: a line per sentence); ``obs`` is the finished hand's observation (its levels
    are the ones the hand was played at); the strip shows its last ``strip_rows`` hands a
    line each."""
    res = summary["result"]
    rules = obs.game.rules if obs.game is not None else Rules(players=obs.players,
                                                              mode="friends")
    side = tuple(res.get("side") or obs.declaring)
    defenders = [s for s in range(obs.players) if s not in side]
    hand_no = obs.game.hand_no if obs.game is not None else 0
    out: list[str] = [f"Hand {hand_no + 1} is over."]

    def say(text: str) -> None:
        out.extend(wrap_text(text, width))

    if obs.calls:
        say(friends_view.calls_line(obs, names))
    say(f"Defenders ({friends_view.listed([names[s] for s in defenders])}) scored "
        f"{res['defender_points']} points.")
    out += points_lines(res, obs, names, width)
    say(talon_sentence(res, summary.get("buried"), "the starter's side"))
    told = friends_view.result_lines(rules, obs.levels, side, res.get("gaining") or (),
                                     res["levels_gained"], res["next_starter"],
                                     names.__getitem__)
    if summary.get("game_over"):  # in view at once, in the next starter's place
        won = winners_of(rules, list(obs.levels), HandResult.from_data(res))
        who = friends_view.listed([names[s] for s in won]) or "nobody"
        told[-1] = f"Game over: {who} win{'s' if len(won) == 1 else ''}!"
    for line in told:
        say(line)
    out += friends_strip_lines(summary.get("strip") or [], names, width, strip_rows)
    if summary.get("audit"):
        say(f"Audit: {summary['audit']}")
    return out


def friends_strip_lines(strip: Sequence[dict[str, Any]], names: Sequence[str],
                        width: int | None, rows: int) -> list[str]:
    """The game so far: the last ``rows`` hands a line each (the starter and its side,
    the trump, the defenders' points, who went up); the hands before in one line of
    their starters."""
    if not strip:
        return []
    lines = ["Game so far: the starter's side, trump, defenders' points, who went up"]
    early, late = list(strip[:-rows] if rows else strip), strip[-rows:] if rows else []
    if early:
        lines.append(_early_line(early, names, width))
    for e in late:
        lines += wrap_text(_row(e, names), width, "      ")
    return lines


def _early_line(early: Sequence[dict[str, Any]], names: Sequence[str],
                width: int | None) -> str:
    """The hands before the last rows in one line, their starters (the oldest left out,
    "…", when they would not fit)."""
    first, last = early[0]["hand"], early[-1]["hand"]
    span = f"hands {first}–{last}" if first != last else f"hand {last}"
    starters = [_name(names, e.get("starter")) for e in early]
    k = 0
    while True:
        line = f"  {span} started by " + ", ".join((["…"] if k else []) + starters[k:])
        if width is None or len(line) <= width or k >= len(starters) - 1:
            return line
        k += 1


def _row(e: dict[str, Any], names: Sequence[str]) -> str:
    side = [s for s in e.get("side") or [e.get("starter")] if isinstance(s, int)]
    who = " + ".join(_name(names, s) for s in side) or "starter unknown"
    gaining = [_name(names, s) for s in e.get("gaining") or []]
    gain = e["levels_gained"]
    won = "starter's side" if e["gaining_team"] == 0 else "defenders"
    change = f"{', '.join(gaining)} +{gain}" if gain and gaining else f"{won} win, +0"
    return (f"{e['hand']:>3}. {who} · {trump_data_short(e.get('trump'))} · "
            f"{e['defender_points']} pts · {change}")


def _name(names: Sequence[str], seat: Any) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"
