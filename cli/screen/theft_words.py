"""Kitty theft in words (`Rules.kitty_theft`): the log line of an overcall that takes the
kitty, shared by the demo and the screens, and the window's prompt.

>>> theft_words("East", (0, 0))
'East overcalls with ♠2♠2 and takes the kitty'
"""

from __future__ import annotations

from collections.abc import Sequence

from tractor.cards import format_cards
from tractor.observation import Observation
from tractor.phases import Face


def theft_words(who: str, faces: tuple[Face, ...]) -> str:
    """``who`` overcalled with ``faces`` after a burial and took the buried cards."""
    return f"{who} overcalls with {_cards(faces)} and takes the kitty"


def theft_prompt(obs: Observation, names: Sequence[str],
                 options: Sequence[Sequence[Face]]) -> str:
    """The kitty-theft window's question to the seat whose turn it is: which overcalls its
    cards allow over the standing declaration, or pass."""
    holder = obs.exchanger
    whose = "the kitty" if holder is None else f"{names[holder]}'s kitty"
    standing = obs.declarations[-1][1] if obs.declarations else ()
    shown = _cards(standing) if standing else "the declaration"
    if not options:
        return f"Nothing in your hand overcalls {shown}: pass to leave {whose}."
    opts = "; ".join(f"{i}) {_cards(o)}" for i, o in enumerate(options, 1))
    return f"Overcall {shown} to take {whose}? {opts}; or pass."


def _cards(faces: Sequence[Face]) -> str:
    return format_cards(faces, symbols=True).replace(" ", "")
