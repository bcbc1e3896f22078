"""The first lines of `tractor watch --plain`: what the full screen's status bar and table
header show at once (the table and its rules, the teams and their levels, the hand and
its trump), so a watcher of plain lines knows whom the log speaks of before it starts.
"""

from __future__ import annotations

from collections.abc import Sequence

from tractor.cli.screen import friends_view, render
from tractor.cli.screen.wrapping import wrap_words
from tractor.cli.seat.watcher_client import game_observation
from tractor.net.lobby.table_settings import rules_summary
from tractor.net.table.session import GameSession

WIDTH = 80  #: the lines fit a terminal of 80 columns


def opening_lines(table_name: str, session: GameSession, names: Sequence[str]) -> list[str]:
    """The table (``table_name``) and its rules, the sides with their levels, the hand and
    its trump, as the watcher's replay of ``session`` stands, each wrapped to `WIDTH`
    columns (never inside a name)."""
    rules, obs = session.rules, game_observation(session)
    summary = rules_summary(rules).replace("  ", ", ")
    lines = [f"table {table_name!r}: {rules.players} seats, {summary}"]
    if friends_view.is_friends(obs):
        levels = ", ".join(f"{names[s]} {obs.levels[s]}" for s in range(obs.players))
        lines.append(f"find-a-friend: the sides are found in each hand; levels: {levels}")
    else:
        teams = [", ".join(names[s] for s in range(obs.players) if render.team_of(s) == t)
                 + f" (team {t}, level {obs.levels[t]})" for t in (0, 1)]
        lines.append(f"teams: {teams[0]} against {teams[1]}")
    lines.append(f"hand {render.hand_number(obs) + 1}, trump: {render.trump_label(obs)}")
    return [piece for line in lines for piece in wrap_words(line, WIDTH, "  ", keep=names)]
