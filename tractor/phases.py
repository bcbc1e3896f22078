"""Where a hand stands and what a seat owes: the `Phase` of a hand, the `Decision` a seat
is asked with the actions that answer it (`ANSWERS`), the seat and face aliases, and
`IllegalAction`, the one error a move the rules refuse raises.

>>> Phase.PLAY == "play", PLAY is Phase.PLAY
(True, True)
>>> Decision.BURY == "bury", ANSWERS[Decision.BID]
(True, (<class 'tractor.actions.Bid'>, <class 'tractor.actions.Pass'>))
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from .actions import Bid, Bury, Call, Declare, NameTrump, Pass, Play, Show, TakeBack
from .cards import Face
from .errors import CoreError
from .rules import Seat

__all__ = ["ANSWERS", "UNASKED", "Answer", "Decision", "Face", "IllegalAction", "Phase", "Seat",
           "Unasked"]


class Phase(StrEnum):
    """Where a hand stands. Members equal their names as text (``Phase.DEAL == "deal"``).

    The peers' table (`tractor.net.table`) walks the same phases, with two steps of its own
    around a hand, SETUP and AUDIT: the rules core's own hands never enter these. At the
    table DECLARE is every declaration window: one follows each round of draws (while the
    core's phase is still DEAL) and one the last card; the table stays in DECLARE while the
    talon is turned over (`PublicHand.turning_talon`).
    """

    #: Peers only: the deck is shuffled and locked, then every seat agrees to the deal,
    #: before the first card is drawn.
    SETUP = "setup"
    DEAL = "deal"  #: cards drawn one at a time; declarations at any moment (reveal style)
    DECLARE = "declare"  #: the final declare-or-pass window, then the talon turned over
    BID = "bid"  #: the auction (seed 001)
    SHOW = "show"  #: the auction's card-play that picks the starter
    NAME = "name"  #: the auction's starter names trump
    TALON = "talon"  #: the starter buries (with kitty theft: the seat that took the kitty)
    #: Kitty theft (`Rules.kitty_theft`): after a burial the other seats in turn overcall
    #: the standing declaration to take the buried cards, or pass (answers as in DECLARE).
    THEFT = "theft"
    CALL = "call"  #: find-a-friend: the starter calls its friends by card
    PLAY = "play"  #: tricks
    #: Peers only: after the last trick every key is released, every peer replays the hand
    #: and signs its verdict, and the verdicts are compared.
    AUDIT = "audit"
    DONE = "done"
    REDEAL = "redeal"  #: a first hand nobody declared: deal again


#: The phases only the peers' table enters, around a hand (see `Phase`).
TABLE_ONLY: Final = frozenset({Phase.SETUP, Phase.AUDIT})

# The core's own phases by name, as its modules use them.
DEAL, DECLARE, BID, SHOW, NAME = Phase.DEAL, Phase.DECLARE, Phase.BID, Phase.SHOW, Phase.NAME
TALON, PLAY, DONE, REDEAL = Phase.TALON, Phase.PLAY, Phase.DONE, Phase.REDEAL
CALL, THEFT = Phase.CALL, Phase.THEFT


class Decision(StrEnum):
    """What a seat is asked to decide: the seat to act owes one of these, answered by one of
    the rules core's actions (`ANSWERS`). Members equal their names as text
    (``Decision.PLAY == "play"``); the tables, the AI and the screens all speak of them."""

    #: a declaration window (or the kitty-theft window): declare one of the open
    #: declarations, or pass
    DECLARE = "declare"
    BURY = "bury"  #: the starter buries the talon's number of cards
    PLAY = "play"  #: lead or follow in the trick
    BID = "bid"  #: the auction variant (seed 001): bid points or pass
    SHOW = "show"  #: the auction's card-play for the starter: show one card
    NAME = "name"  #: the auction's starter names the trump suit
    CALL = "call"  #: find-a-friend: the starter calls its friends by card


#: An action that answers one of a seat's decisions.
Answer = Declare | Pass | Bury | Play | Bid | Show | NameTrump | Call

#: The actions that answer each decision.
ANSWERS: Final[dict[Decision, tuple[type[Answer], ...]]] = {
    Decision.DECLARE: (Declare, Pass),
    Decision.BURY: (Bury,),
    Decision.PLAY: (Play,),
    Decision.BID: (Bid, Pass),
    Decision.SHOW: (Show,),
    Decision.NAME: (NameTrump,),
    Decision.CALL: (Call,),
}


#: An action a seat takes unasked, answering no decision: taking back its last play while
#: the next seat has not played (`Rules.takebacks`; `tractor.takeback` says which plays).
Unasked = TakeBack
UNASKED: Final[tuple[type[Unasked], ...]] = (TakeBack,)


class IllegalAction(CoreError):
    """An action the rules do not allow now; the message says why in plain words."""
