"""tractor: the rules core of Tractor (Sheng Ji, 拖拉机). Pure Python: no I/O, no crypto.

The stable rules API (documented in README.md):

>>> from tractor import parse_cards, Trump, classify, trick_winner, score_outcome
>>> classify("7H 7H 7C 7C", Trump(rank="7", suit="C")).kind
'tractor'
>>> trick_winner(["AS", "2S", "7H"], Trump(rank="7", suit="C"))
2
>>> score_outcome(125)
('defenders', 1)
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .actions import (
        Action,
        ActionDataError,
        Bid,
        Bury,
        Declare,
        Draw,
        NameTrump,
        Pass,
        Play,
        Show,
        action_from_data,
    )
    from .cards import Card, CardParseError, format_cards, full_deck, parse_cards
    from .errors import CoreError, TractorError
    from .follow import follow_reason, is_legal_follow
    from .formats import Component, Format, FormatError, classify
    from .game import Game, GameDataError
    from .hand import Hand
    from .phases import IllegalAction
    from .records import HandResult, Trick
    from .rules import Rules, RulesError
    from .scoring import score_outcome, talon_multiplier
    from .trick import resolve_throw, trick_winner
    from .trump import Trump, TrumpError

__all__ = [
    "Action", "ActionDataError", "Bid", "Bury", "Card", "CardParseError", "Component",
    "CoreError", "Declare", "Draw", "Format", "FormatError", "Game", "GameDataError",
    "Hand", "HandResult", "IllegalAction", "NameTrump", "Pass", "Play", "Rules",
    "RulesError", "Show", "TractorError", "Trick", "Trump", "TrumpError",
    "action_from_data", "classify", "follow_reason", "format_cards", "full_deck",
    "is_legal_follow", "parse_cards", "resolve_throw", "score_outcome", "talon_multiplier",
    "trick_winner",
]

#: Where each name of the API lives. A name's module is imported on its first use: a
#: program under this package (the `tractor` command) starts without loading the rules,
#: so even its first moments answer Ctrl-C plainly.
_HOMES = {
    "actions": ("Action", "ActionDataError", "Bid", "Bury", "Declare", "Draw", "NameTrump",
                "Pass", "Play", "Show", "action_from_data"),
    "cards": ("Card", "CardParseError", "format_cards", "full_deck", "parse_cards"),
    "errors": ("CoreError", "TractorError"),
    "follow": ("follow_reason", "is_legal_follow"),
    "formats": ("Component", "Format", "FormatError", "classify"),
    "game": ("Game", "GameDataError"),
    "hand": ("Hand",),
    "phases": ("IllegalAction",),
    "records": ("HandResult", "Trick"),
    "rules": ("Rules", "RulesError"),
    "scoring": ("score_outcome", "talon_multiplier"),
    "trick": ("resolve_throw", "trick_winner"),
    "trump": ("Trump", "TrumpError"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:  # a submodule used as an attribute, as when this file imported all
        try:
            return import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
