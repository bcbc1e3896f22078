"""Where a hand stands: the `Phase` of a hand, the seat and face aliases, and
`IllegalAction`, the one error a move the rules refuse raises.

>>> Phase.PLAY == "play", PLAY is Phase.PLAY
(True, True)
"""

from __future__ import annotations

from enum import StrEnum

from .errors import CoreError

Seat = int  #: 0 .. players-1, in playing order
Face = int  #: 0..53: a card regardless of which deck it comes from


class Phase(StrEnum):
    """Where a hand stands. Members equal their names as text (``Phase.DEAL == "deal"``)."""

    DEAL = "deal"  #: cards drawn one at a time; declarations at any moment (reveal style)
    DECLARE = "declare"  #: the final declare-or-pass window, then the talon turned over
    BID = "bid"  #: the auction (seed 001)
    SHOW = "show"  #: the auction's card-play that picks the starter
    NAME = "name"  #: the auction's starter names trump
    TALON = "talon"  #: the starter buries
    PLAY = "play"  #: tricks
    DONE = "done"
    REDEAL = "redeal"  #: a first hand nobody declared: deal again


DEAL, DECLARE, BID, SHOW, NAME, TALON, PLAY, DONE, REDEAL = tuple(Phase)


class IllegalAction(CoreError):
    """An action the rules do not allow now; the message says why in plain words."""
