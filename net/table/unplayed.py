"""Rules options the rules core plays that the peers' table does not play yet, refused
before a table is set up (the host's command, a guest reading the host's rules, a game
session) rather than failing in the middle of a hand. Every option is played between peers
now (kitty theft since `net.table.theft`); an option added to the rules core first is
named here until the table plays it.

>>> from tractor.rules import Rules
>>> refuse_unplayed(Rules())
>>> refuse_unplayed(Rules(kitty_theft=True))
"""

from __future__ import annotations

from tractor.net.errors import NetError
from tractor.rules import Rules, RulesError


class UnplayedRules(NetError, RulesError):
    """Rules a table of peers cannot play yet (a `RulesError` too: the command line
    reports it as it does any rules it refuses)."""


def unplayed_reason(rules: Rules) -> str | None:
    """Why a table of peers cannot play ``rules`` yet (None: it can)."""
    return None


def refuse_unplayed(rules: Rules) -> None:
    """Raise `UnplayedRules` when a table of peers cannot play ``rules`` yet."""
    reason = unplayed_reason(rules)
    if reason is not None:
        raise UnplayedRules(reason)
