"""The table's messages, typed by their shape as they arrive.

A table message travels in the deck's signed ``app`` frames as a map (`net.table.hand` says
which when). This module is the one place a message turns into that map (`to_wire`) and
back (`table_message`), and where a seat's answer to a decision (a `tractor.actions`
action) turns into the message that carries it (`message_for`) and back (`answer_of`).

The deck reads a message here the moment its frame arrives, before it waits for its
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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from tractor import actions
from tractor.cards import SUITS
from tractor.friends import FriendCall
from tractor.net.codec import Fixed, Int, ListOf, Maybe, OneOf, Record, Shape, Tagged, Text
from tractor.phases import Answer, Decision
from tractor.rules import MAX_DECKS, MAX_PLAYERS

MAX_CHAT = 280  #: characters in one chat line
MAX_BID = 2**31 - 1  #: points (a bid the rules refuse is judged at its turn)
MAX_CALLS = actions.MAX_CALLS  #: friend calls in one message
MAX_COPY = MAX_DECKS  #: a call names at most the 6th copy of a card (`FriendCall`)
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


@dataclass(frozen=True, slots=True)
class Call:
    """``{"call": [[face, copy], ...]}``: find-a-friend, the starter's calls (public: every
    peer judges them with the rules core at their turn, as any move)."""

    calls: tuple[FriendCall, ...]


@dataclass(frozen=True, slots=True)
class TakeBack:
    """``{"back": [trick, place]}``: the seat takes back its play at that place of that
    trick (its last play; `net.table.takebacks`)."""

    trick: int
    place: int

    @property
    def turn(self) -> tuple[int, int]:
        return self.trick, self.place


@dataclass(frozen=True, slots=True)
class LetBack:
    """``{"let": [trick, place]}``: the next seat saw the take-back of the play at that
    place before it made its own move, and lets it stand (`net.table.takebacks`)."""

    trick: int
    place: int

    @property
    def turn(self) -> tuple[int, int]:
        return self.trick, self.place


@dataclass(frozen=True, slots=True)
class Overcall:
    """``{"steal": positions}``: kitty theft, this seat's turn in the window after a burial:
    the cards it overcalls with to take the kitty, shown first (none: a pass)."""

    positions: Positions


TableMessage = (Chat | Agree | Window | Bid | Show | Name | Play | Throw | Claim | Call
                | TakeBack | LetBack | Overcall)

#: Cards in one overcall for the kitty (a pair; a few more leave the rules to refuse it).
MAX_OVERCALL = 4


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
        # How many calls, and which, are the rules' to judge at the call's turn (a wrong
        # count is a refused move, not a malformed message).
        "call": Record({"call": ListOf(Fixed(Int(0, 53), Int(1, MAX_COPY)), max=MAX_CALLS)},
                       lambda call: Call(tuple(FriendCall(f, n) for f, n in call))),
        # A trick and a place in it: at most one trick per card, one place per seat.
        "back": Record({"back": Fixed(Int(0, size), Int(0, MAX_PLAYERS))},
                       lambda back: TakeBack(*back)),
        "let": Record({"let": Fixed(Int(0, size), Int(0, MAX_PLAYERS))},
                      lambda let: LetBack(*let)),
        "steal": Record({"steal": ListOf(Int(0, size - 1), max=MAX_OVERCALL, distinct=True)},
                        lambda steal: Overcall(steal)),
    })


_DESCRIBED = {Chat: "a chat line", Agree: "an agreement", Window: "a declaration window",
              Bid: "a bid", Show: "a card shown", Name: "the trump named", Play: "a play",
              Throw: "a throw", Claim: "a claim", Call: "a call of friends",
              TakeBack: "a take-back", LetBack: "a take-back let stand",
              Overcall: "an overcall for the kitty or a pass"}


def describe(kind: type[Any] | object) -> str:
    """A kind of message (or a message's kind) in words, for a refusal.

    >>> describe(Name), describe(Play((3,)))
    ('the trump named', 'a play')
    """
    return _DESCRIBED.get(kind if isinstance(kind, type) else type(kind), "a message")


def to_wire(message: TableMessage) -> dict[str, object]:
    """The map ``message`` travels as in a deck frame (`table_message` reads it back).

    >>> to_wire(Window(3, (17, 18))), to_wire(Claim(((0, (5,)),)))
    ({'w': 3, 'd': [17, 18]}, {'claim': [[0, [5]]]})
    """
    match message:
        case Chat(text):
            return {"chat": text}
        case Agree(step):
            return {"agree": step}
        case Window(round, positions):
            return {"w": round, "d": list(positions)}
        case Bid(points):
            return {"bid": points}
        case Show(positions):
            return {"show": list(positions)}
        case Name(suit):
            return {"name": suit}
        case Play(positions):
            return {"play": list(positions)}
        case Throw(positions):
            return {"throw": list(positions)}
        case Claim(items):
            return {"claim": [[index, list(positions)] for index, positions in items]}
        case Call(calls):
            return {"call": [[c.face, c.nth] for c in calls]}
        case TakeBack(trick, place):
            return {"back": [trick, place]}
        case LetBack(trick, place):
            return {"let": [trick, place]}
        case Overcall(positions):
            return {"steal": list(positions)}


def message_for(decision: Decision, answer: Answer, positions: Sequence[int],
                window: int = 0) -> TableMessage:
    """The table message that carries this seat's ``answer`` to ``decision``: its cards as
    the deck positions they are at (``positions``, in the answer's order); ``window`` is
    the declaration window's round. A pass is an empty window, or a bid of 0. A burial is
    the deck's own message (`Deck.bury`), a throw announced before it is played the
    table's (`Throw`).

    >>> message_for(Decision.DECLARE, actions.Pass(2), [], window=5)
    Window(round=5, positions=())
    >>> message_for(Decision.BID, actions.Pass(2), [])
    Bid(points=0)
    """
    match answer:
        case actions.Declare() | actions.Pass() if decision is Decision.DECLARE:
            return Window(window, tuple(positions))
        case actions.Pass() if decision is Decision.BID:
            return Bid(0)
        case actions.Bid(points=points):
            return Bid(points)
        case actions.Show():
            return Show(tuple(positions))
        case actions.NameTrump(suit=suit):
            return Name(suit)
        case actions.Play():
            return Play(tuple(positions))
        case actions.Call(calls=calls):
            return Call(calls)
    raise ValueError(f"no table message carries {answer} for a {decision} decision")


def answer_of(message: object, seat: int, cards: Mapping[int, int]
              ) -> tuple[Decision, Answer] | None:
    """This seat's own journaled ``message`` as the decision it answered and the answer,
    its positions read as faces from ``cards`` (position -> card); None: not a decision
    (`message_for` the other way)."""
    faces = tuple(cards[p] % 54 for p in getattr(message, "positions", ()))
    match message:
        case Window() | Overcall():
            return Decision.DECLARE, actions.Declare(seat, faces) if faces else actions.Pass(seat)
        case Play() | Throw():
            return Decision.PLAY, actions.Play(seat, faces)
        case Bid(points):
            return Decision.BID, actions.Bid(seat, points) if points else actions.Pass(seat)
        case Show():
            return Decision.SHOW, actions.Show(seat, faces)
        case Name(suit):
            return Decision.NAME, actions.NameTrump(seat, suit)
        case Call(calls):
            return Decision.CALL, actions.Call(seat, calls)
    return None


def burial_of(body: Mapping[str, Any], seat: int, cards: Mapping[int, int]) -> actions.Bury:
    """This seat's own journaled burial (the body of the deck's ``bury`` message) as the
    answer it gave."""
    return actions.Bury(seat, tuple(cards[p] % 54 for p in body["positions"]))


@cache
def app_body(size: int) -> Shape[dict[str, TableMessage]]:
    """The body of a deck frame of kind ``app``: ``{"data": message}``, typed."""
    return Record({"data": table_message(size)})
