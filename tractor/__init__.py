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
from .follow import follow_reason, is_legal_follow
from .formats import Component, Format, FormatError, classify
from .game import Game, GameDataError
from .hand import Hand, HandResult, IllegalAction, Trick
from .rules import Rules, RulesError
from .scoring import score_outcome, talon_multiplier
from .trick import resolve_throw, trick_winner
from .trump import Trump, TrumpError

__all__ = [
    "Action", "ActionDataError", "Bid", "Bury", "Card", "CardParseError", "Component",
    "Declare", "Draw", "Format", "FormatError", "Game", "GameDataError", "Hand", "HandResult",
    "IllegalAction", "NameTrump", "Pass", "Play", "Rules", "RulesError", "Show",
    "Trick", "Trump", "TrumpError", "action_from_data", "classify", "follow_reason",
    "format_cards", "full_deck", "is_legal_follow", "parse_cards", "resolve_throw",
    "score_outcome", "talon_multiplier", "trick_winner",
]
