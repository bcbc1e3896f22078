"""How cards read on the screens: their labels (``♥A``), their colour classes, and the
order a hand sorts in (the table's trump ladder, read from the observation).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples

from tractor.cards import format_cards, parse_faces
from tractor.observation import Observation
from tractor.rules import Rules
from tractor.trump import Ladder, Trump, ladder_for

RED_FACES = frozenset([*range(13, 39), 53])  # hearts, diamonds, the red joker


def use_color(environ: dict[str, str] | None = None) -> bool:
    """Colour unless ``NO_COLOR`` is set to anything non-empty (no-color.org)."""
    env = os.environ if environ is None else environ
    return not env.get("NO_COLOR")


def _color(color: bool | None) -> bool:
    return use_color() if color is None else color


def faces_of(text: str | None) -> list[int]:
    """Faces of card text (empty for None or "")."""
    return parse_faces(text) if text else []


def rules_of(obs: Observation) -> Rules | None:
    """The table's rules, from the game's record in the observation (None without one:
    the talon size, the tracker's deck count and the tractor options then default)."""
    return obs.game.rules if obs.game is not None else None


def ladder_of(obs: Observation) -> Ladder:
    """The card order of the hand: the real trump, or before it is known the trump rank
    with no suit (jokers and rank cards first), which is how the hand will mostly sort."""
    rules = rules_of(obs)
    across = rules.tractor_across_rank if rules is not None else True
    joined = rules.rank_and_jokers_in_tractors if rules is not None else True
    trump = obs.trump if obs.trump is not None else Trump(obs.trump_rank, None)
    return ladder_for(trump, across, joined)


def card_label(face: int) -> str:
    return format_cards([face], symbols=True)


def cards_label(text_or_faces: str | Sequence[int] | None) -> str:
    """Symbol form of cards given as text or faces ("" for none)."""
    if text_or_faces is None:
        return ""
    faces = faces_of(text_or_faces) if isinstance(text_or_faces, str) else list(text_or_faces)
    return format_cards(faces, symbols=True)


def card_style(face: int, color: bool | None = None) -> str:
    """Style class of a card: red suits and the red joker red (no colour with NO_COLOR)."""
    if _color(color) and face in RED_FACES:
        return "class:card.red"
    return "class:card"


def cards_fragments(faces: Sequence[int], color: bool | None = None,
                    sep: str = " ") -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for i, f in enumerate(faces):
        if i:
            out.append(("", sep))
        out.append((card_style(f, color), card_label(f)))
    return out
