"""Kitty theft in words (`Rules.kitty_theft`): the log line of an overcall that takes the
kitty, shared by the demo and the screens.

>>> theft_words("East", (0, 0))
'East overcalls with ♠2♠2 and takes the kitty'
"""

from __future__ import annotations

from tractor.cards import format_cards
from tractor.phases import Face


def theft_words(who: str, faces: tuple[Face, ...]) -> str:
    """``who`` overcalled with ``faces`` after a burial and took the buried cards."""
    cards = format_cards(faces, symbols=True).replace(" ", "")
    return f"{who} overcalls with {cards} and takes the kitty"
