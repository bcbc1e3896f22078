"""The table's messages, typed by their shape as they arrive.

A table message travels in the deck's signed ``app`` frames as a map (`net.table.hand` says
which when). The deck reads it here the moment the frame arrives, before it waits for its
turn: a message of no known kind, or of a wrong shape, is that seat's `ShapeError` at once
(the deck makes it a `BadMessage`: the signed frame is the evidence), and what waits for
the seat's turn is the small typed value, never the decoded map.

>>> shape = table_message(108)
>>> shape.read({"w": 3, "d": []})
Window(round=3, positions=())
>>> shape.read({"claim": [[0, [17, 18]]]})
Claim(items=((0, (17, 18)),))
>>> shape.read({"play": [5, 5]}, "seat 1")
Traceback (most recent call last):
...
tractor.net.codec.ShapeError: seat 1: play: a value repeats
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from tractor.cards import SUITS
from tractor.net.codec import Fixed, Int, ListOf, Maybe, OneOf, Record, Shape, Tagged, Text

MAX_CHAT = 280  #: characters in one chat line
MAX_BID = 2**31 - 1  #: points (a bid the rules refuse is judged at its turn)
Positions = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Chat:
    """``{"chat": text}``: a line of table chat."""

    text: str


@dataclass(frozen=True, slots=True)
class Agree:
    """``{"agree": step}``: the seat stands where this peer does before ``step``."""

    step: str


@dataclass(frozen=True, slots=True)
class Window:
    """``{"w": round, "d": positions}``: a declaration window (no positions: a pass)."""

    round: int
    positions: Positions


@dataclass(frozen=True, slots=True)
class Bid:
    """``{"bid": points}``: an auction bid, 0 to pass (seed 001)."""

    points: int


@dataclass(frozen=True, slots=True)
class Show:
    """``{"show": [position]}``: the one card shown for the starter (seed 001)."""

    positions: Positions


@dataclass(frozen=True, slots=True)
class Name:
    """``{"name": suit}``: the trump suit the starter names (None: no trump suit)."""

    suit: str | None


@dataclass(frozen=True, slots=True)
class Play:
    """``{"play": positions}``: cards played to the trick."""

    positions: Positions


@dataclass(frozen=True, slots=True)
class Throw:
    """``{"throw": positions}``: a throw, shown and announced before it is played."""

    positions: Positions


@dataclass(frozen=True, slots=True)
class Claim:
    """``{"claim": [[component, positions]]}``: an answer to a throw, showing the cards
    that beat one of its components; none: nothing to show."""

    items: tuple[tuple[int, Positions], ...]


TableMessage = Chat | Agree | Window | Bid | Show | Name | Play | Throw | Claim


@cache
def table_message(size: int) -> Shape[TableMessage]:
    """The shape of every table message with a deck of ``size`` positions."""
    cards = ListOf(Int(0, size - 1), max=size, min=1, distinct=True)
    return Tagged({
        "chat": Record({"chat": Text(MAX_CHAT)}, lambda chat: Chat(chat)),
        "agree": Record({"agree": OneOf("deal", "talon")}, lambda agree: Agree(agree)),
        "w": Record({"w": Int(0, size), "d": ListOf(Int(0, size - 1), max=size, distinct=True)},
                    lambda w, d: Window(w, d)),
        "bid": Record({"bid": Int(0, MAX_BID)}, lambda bid: Bid(bid)),
        "show": Record({"show": ListOf(Int(0, size - 1), max=1, min=1)}, lambda show: Show(show)),
        "name": Record({"name": Maybe(OneOf(*SUITS))}, lambda name: Name(name)),
        "play": Record({"play": cards}, lambda play: Play(play)),
        "throw": Record({"throw": cards}, lambda throw: Throw(throw)),
        "claim": Record({"claim": ListOf(Fixed(Int(0, size), cards), max=1)},
                        lambda claim: Claim(claim)),
    })


_DESCRIBED = {Chat: "a chat line", Agree: "an agreement", Window: "a declaration window",
              Bid: "a bid", Show: "a card shown", Name: "the trump named", Play: "a play",
              Throw: "a throw", Claim: "a claim"}


def describe(kind: type[Any] | object) -> str:
    """A kind of message (or a message's kind) in words, for a refusal.

    >>> describe(Name), describe(Play((3,)))
    ('the trump named', 'a play')
    """
    return _DESCRIBED.get(kind if isinstance(kind, type) else type(kind), "a message")


def decision(message: object, cards: dict[int, int]) -> tuple[str, Any] | None:
    """This seat's own journaled ``message`` as the decision it answered (kind, answer),
    its positions read as faces from ``cards`` (position -> card); None: not a decision."""
    faces = [cards[p] % 54 for p in getattr(message, "positions", ())]
    match message:
        case Window():
            return "declare", tuple(faces) or None
        case Play() | Throw():
            return "play", faces
        case Bid(points):
            return "bid", points
        case Show():
            return "show", faces[0]
        case Name(suit):
            return "name", suit
    return None


@cache
def app_body(size: int) -> Shape[dict[str, TableMessage]]:
    """The body of a deck frame of kind ``app``: ``{"data": message}``, typed."""
    return Record({"data": table_message(size)})
