"""What the information panels say: the keys (help), the tracker, the last trick, the
whole log, the declarations one may make, the end-of-hand summary.

Plain functions of the client (and, for the log, how far back it is scrolled); the panel
that shows them, wrapped and scrolled in the table's place, is `cli.screen.panels`.
"""

from __future__ import annotations

from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples

from tractor.cli.rules_text import table_rules_text
from tractor.cli.screen import render
from tractor.cli.screen.hidden_play import log_note
from tractor.cli.seat.client import TableClient
from tractor.phases import Phase
from tractor.rules import Rules

#: Every key of the play screen, for the help panel and the README.
KEYS: list[tuple[str, str]] = [
    ("← →", "move along your hand"),
    ("↑ ↓", "previous / next suit row"),
    ("Space", "select card under cursor"),
    ("type", "cards: AS AS, 10h, ♠A, BJ"),
    ("Tab", "complete the typed card"),
    ("Enter", "play / bury / declare"),
    ("Bksp", "delete typed text"),
    ("Esc", "clear selection, close"),
    ("e", "declarations you may make"),
    ("p", "pass; at a bid: p Enter"),
    ("85 Enter", "auction: bid 85 points"),
    ("H Enter", "auction: trump (0 = none)"),
    ("i", "hint: preselect AI's move"),
    ("l", "last trick"),
    ("o", "cards still out (tracker)"),
    ("g", "whole event log"),
    ("PgUp PgDn", "scroll the log (g)"),
    ("m", "chat: say something"),
    ("u", "take back your last play"),
    ("n", "next hand (after summary)"),
    ("?", "this help"),
    ("Ctrl-Q", "quit (asks first)"),
]

#: The keys of the auction variant only (not listed at a table that declares by revealing).
AUCTION_KEYS = {"85 Enter", "H Enter"}

#: What the marks at the table mean (the help panel, the README).
LEGEND = ("At the table: ▶ the seat to play · ★ the starter · led / won: the trick's "
          "leader and the winner of the trick just played · in your hand, + a card from "
          "the talon or the kitty you took (while you bury).")


#: The keys of find-a-friend only (at its tables, after the others).
FRIENDS_KEYS: list[tuple[str, str]] = [
    ("AH Enter", "starter: call friends by card"),
    ("2:AH", "a call of the 2nd ♥A played"),
]

#: What the sides at a find-a-friend table mean (its help panel).
FRIENDS_LEGEND = ("Find-a-friend: start = the starter, friend = revealed by playing a called "
                  "card, ? = side not known yet, def = a defender once the sides are known; "
                  "lv = each player's own level.")


def keys_for(rules: Rules | None) -> list[tuple[str, str]]:
    """The keys that work at a table of ``rules`` (every key when they are not known)."""
    if rules is None or rules.declaration == "auction":
        return list(KEYS)
    keys = [(key, what) for key, what in KEYS if key not in AUCTION_KEYS]
    return keys + FRIENDS_KEYS if rules.mode == "friends" else keys


def panel_text(panel: str | None, client: TableClient, width: int = 80, height: int = 16,
               log_back: int = 0) -> str:
    """The text of ``panel`` (unwrapped: the panel wraps it to its window); "" for none.
    ``log_back``: how many lines back the log panel is scrolled."""
    obs = client.observation()
    names = client.names
    if panel == "help":
        rules = render.rules_of(obs)
        keys = keys_for(rules)
        friends = f"\n{FRIENDS_LEGEND}" if rules is not None and rules.mode == "friends" else ""
        return ("Keys\n" + render.help_text(keys, columns=2 if width >= 64 else 1)
                + "\n\n" + LEGEND + friends + "\n\n" + table_rules_text(client.rules)
                + "\n\nEsc closes this help.")
    if panel == "tracker":
        return render.tracker_text(obs, names, width) + "\n\nEsc closes."
    if panel == "last":
        return render.last_trick_text(obs, names) + "\n\nEsc closes."
    if panel == "log":
        return render.to_text(log_page(client.events(), names, log_back, 80, 16,
                                       log_note(client.rules)))
    if panel == "summary":
        summary = client.summary()
        if summary is None:
            return ""
        last = "Enter: next hand." if not summary.get("game_over") else "Ctrl-Q: quit."
        return (render.summary_text(summary, obs, names, width, height - 2)
                + f"\n\n{last}  l: last trick  g: log")
    if panel == "declare":
        return declare_text(client)
    return ""


def declare_text(client: TableClient) -> str:
    """The declaration panel: what was declared so far, the declarations this seat may make
    (numbered: a number key makes one), and how to pass."""
    obs = client.observation()
    options = client.declaration_options()
    if obs.phase == Phase.THEFT:  # kitty theft: what an overcall does now (`Rules.kitty_theft`)
        lines = [f"Take the kitty? (trump rank {obs.trump_rank})",
                 "An overcall now changes trump: you take the buried cards",
                 "into your hand and bury as many."]
    else:
        lines = [f"Declare trumps (trump rank {obs.trump_rank})"]
    decls = obs.declarations
    if decls:
        seat, cards = decls[-1]
        lines.append(f"Declared so far: {render.cards_label(cards)} by "
                     f"{client.names[seat]}")
    if options:
        lines.append("You may declare:")
        lines += [f"  {i}) {render.cards_label(list(o))}" for i, o in enumerate(options, 1)]
    elif decls and decls[-1][0] == obs.seat and not client.rules.reinforce_own:
        lines.append("Your declaration stands: at this table only another player may "
                     "overcall it.")
    else:
        lines.append("You hold no declaration now.")
    dealing = obs.phase == Phase.DEAL
    lines.append("  p) pass" + (" (let these go by)" if dealing else ""))
    lines.append("")
    if dealing:
        lines.append("The cards keep coming while you choose: a declaration goes out")
        lines.append("with the next card.")
    lines.append("Press a number or p; or type the cards and Enter. Esc hides this panel,")
    lines.append("e shows it again.")
    return "\n".join(lines)


def log_page(events: Sequence[str], names: Sequence[str], back: int, width: int,
             height: int, note: str | None = None) -> StyleAndTextTuples:
    """The whole log (g): a page of it, the newest at the bottom unless scrolled ``back``
    lines; ``note``, a line under the title that stays (`hidden_play.log_note`)."""
    lines = render.log_lines(events, width, names)
    page = max(1, height - 2 - (1 if note else 0))
    end = len(lines) - max(0, min(back, len(lines) - page))
    start = max(0, end - page)
    where = f" · lines {start + 1}-{end} of {len(lines)}" if len(lines) > page else ""
    more = "PgUp/PgDn ↑↓ scroll · Home/End oldest/newest · " if len(lines) > page else ""
    page_text: StyleAndTextTuples = [("class:panel.title", f"Event log (latest last){where}"),
                                     ("", "\n")]
    if note:
        page_text += [("class:dim", note[:width]), ("", "\n")]
    page_text += [("", line + "\n") for line in lines[start:end]]
    page_text.append(("class:dim", f"{more}Esc closes"))
    return page_text
