"""The house rule ``hide_played`` on the screens: while a hand is played, a person sees the
trick in play (and the one just finished until the next lead), not the cards played
before; no tracker, no plays in the log, no hint that would remember them.

The full screen and ``--plain`` ask these functions, so both hide the same things. After
the hand (its summary) and in a replay everything shows again.
"""

from __future__ import annotations

from tractor.cli.screen.card_text import rules_of
from tractor.observation import Observation
from tractor.phases import Decision, Phase
from tractor.rules import Rules

TRACKER_OFF = ("No tracker at this table: the cards played are hidden while the hand is "
               "played (hide_played).")
LAST_TRICK_HIDDEN = ("The last trick is hidden once the next one is led at this table "
                     "(hide_played): only the trick in play shows.")
NO_PLAY_HINT = ("No hint for a play at this table: the cards played are hidden "
                "(hide_played), and a hint would remember them for you.")

#: The whole log's line at a ``hide_played`` table (its plays are never logged).
PLAYS_NOT_LOGGED = "This table hides played cards (hide_played): the log leaves out the plays."


def log_note(rules: Rules) -> str | None:
    """The line the whole log (g, ``log``) shows at a table whose log leaves out the plays
    (`cli.seat.seat_log`), so their absence is not a mystery; None elsewhere."""
    return PLAYS_NOT_LOGGED if rules.hide_played else None


def hides_played(obs: Observation) -> bool:
    """Whether the cards played before are hidden now: a table with ``hide_played`` while
    its hand is played."""
    rules = rules_of(obs)
    return rules is not None and rules.hide_played and obs.phase == Phase.PLAY


def last_trick_shown(obs: Observation) -> bool:
    """Whether the last finished trick may show: always, but at a ``hide_played`` table
    only until the next trick is led."""
    return not (hides_played(obs) and obs.current)


def hint_refusal(obs: Observation, decision: Decision | None) -> str | None:
    """Why no hint is given for ``decision`` (None: a hint may be given). The hints of the
    other decisions (declaring, burying, calling) come before any card is played."""
    if decision == Decision.PLAY and hides_played(obs):
        return NO_PLAY_HINT
    return None
