"""Rules options the rules core plays that the peers' table does not play yet, refused
before a table is set up (the host's command, a guest reading the host's rules, a game
session) rather than failing in the middle of a hand.

>>> from tractor.rules import Rules
>>> refuse_unplayed(Rules())
>>> refuse_unplayed(Rules(kitty_theft=True))
Traceback (most recent call last):
...
tractor.net.table.unplayed.UnplayedRules: kitty_theft is not played at peer tables yet ...
"""

from __future__ import annotations

from tractor.net.errors import NetError
from tractor.rules import Rules, RulesError

_KITTY_THEFT = ("kitty_theft is not played at peer tables yet (the deal cannot hand the "
                "buried cards to a later overcall): leave it out, or watch it in "
                "`tractor demo --rules kitty_theft=true`")


class UnplayedRules(NetError, RulesError):
    """Rules a table of peers cannot play yet (a `RulesError` too: the command line
    reports it as it does any rules it refuses)."""


def unplayed_reason(rules: Rules) -> str | None:
    """Why a table of peers cannot play ``rules`` yet (None: it can)."""
    if rules.kitty_theft:
        return _KITTY_THEFT
    return None


def refuse_unplayed(rules: Rules) -> None:
    """Raise `UnplayedRules` when a table of peers cannot play ``rules`` yet."""
    reason = unplayed_reason(rules)
    if reason is not None:
        raise UnplayedRules(reason)
