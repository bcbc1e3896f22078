"""Actions of a hand: small immutable values that convert to plain data and back.

>>> a = Play.of(2, "AS AS")
>>> a.to_data()
['play', 2, 'AS AS']
>>> action_from_data(a.to_data()) == a
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import FACES, SUITS, Card, CardsLike, format_cards, to_cards, to_faces
from .errors import CoreError
from .friends import CallParseError, FriendCall, format_calls, parse_calls

#: No action moves more cards than the largest deck (6 decks) holds.
MAX_ACTION_CARDS = 6 * 54
_INT = frozenset({int})
_FACE_NUMBERS = frozenset(range(FACES))


class ActionDataError(CoreError):
    """Plain data that is not a well-formed action."""


def _check_seat(seat: object) -> None:
    if type(seat) is not int:
        raise ActionDataError(f"a seat is a whole number, not {seat!r:.20}")


@dataclass(frozen=True, slots=True)
class Draw:
    """``seat`` takes the next card of the deck (the dealing order decides who)."""

    seat: int
    kind = "draw"

    def __post_init__(self) -> None:
        _check_seat(self.seat)

    def to_data(self) -> list[Any]:
        return [self.kind, self.seat]


@dataclass(frozen=True, slots=True)
class Pass:
    """No declaration in the final window, or no (higher) bid in the auction."""

    seat: int
    kind = "pass"

    def __post_init__(self) -> None:
        _check_seat(self.seat)

    def to_data(self) -> list[Any]:
        return [self.kind, self.seat]


@dataclass(frozen=True, slots=True)
class Bid:
    """Auction bid (seed 001): the points the bidder's team means to take."""

    seat: int
    points: int
    kind = "bid"

    def __post_init__(self) -> None:
        _check_seat(self.seat)
        if type(self.points) is not int:
            raise ActionDataError(f"a bid is a whole number of points, not {self.points!r:.20}")

    def to_data(self) -> list[Any]:
        return [self.kind, self.seat, self.points]


@dataclass(frozen=True, slots=True)
class NameTrump:
    """Auction style: the starter names the trump suit (None: jokers only)."""

    seat: int
    suit: str | None
    kind = "name"

    def __post_init__(self) -> None:
        _check_seat(self.seat)
        if self.suit is not None and self.suit not in SUITS:
            raise ActionDataError(f"a trump suit is S, H, D, C or None, not {self.suit!r:.20}")

    def to_data(self) -> list[Any]:
        return [self.kind, self.seat, self.suit]


@dataclass(frozen=True, slots=True)
class _CardsAction:
    seat: int
    faces: tuple[int, ...]
    kind = ""

    def __post_init__(self) -> None:
        _check_seat(self.seat)
        # Every face an int (not a bool) in 0..53. Set operations check it without a Python
        # loop: every card action of every hand, simulated or searched, passes here.
        if type(self.faces) is not tuple or not _INT.issuperset(map(type, self.faces)) \
                or not _FACE_NUMBERS.issuperset(self.faces):
            raise ActionDataError("cards of an action are a tuple of face numbers 0..53; "
                                  f"use {type(self).__name__}.of(seat, text) for card text")
        if len(self.faces) > MAX_ACTION_CARDS:
            raise ActionDataError(f"too many cards in one action ({len(self.faces)})")

    @classmethod
    def of(cls, seat: int, cards: CardsLike) -> Any:
        return cls(seat, tuple(to_faces(cards)))

    @property
    def cards(self) -> list[Card]:
        return to_cards(self.faces)

    def to_data(self) -> list[Any]:
        return [self.kind, self.seat, format_cards(self.faces)]

    def __str__(self) -> str:
        return f"{self.kind} seat {self.seat}: {format_cards(self.faces, symbols=True)}"


@dataclass(frozen=True, slots=True)
class Declare(_CardsAction):
    """Reveal trump-rank card(s) or a pair of jokers while cards are drawn (seed 000)."""

    kind = "declare"


@dataclass(frozen=True, slots=True)
class Show(_CardsAction):
    """Auction style: the card shown in the card-play that picks the starter."""

    kind = "show"


@dataclass(frozen=True, slots=True)
class Bury(_CardsAction):
    """The starter buries the talon's number of cards face down."""

    kind = "bury"


@dataclass(frozen=True, slots=True)
class Play(_CardsAction):
    """Cards played to the current trick (a lead or a follow)."""

    kind = "play"


@dataclass(frozen=True, slots=True)
class Call:
    """Find-a-friend: the starter calls its friends, each a card and which copy of it
    (`tractor.friends.FriendCall`).

    >>> c = Call.of(0, "AH 2:KS")
    >>> c.to_data(), str(c)
    (['call', 0, 'AH 2:KS'], 'call seat 0: the 1st ♥A, the 2nd ♠K')
    """

    seat: int
    calls: tuple[FriendCall, ...]
    kind = "call"

    def __post_init__(self) -> None:
        _check_seat(self.seat)
        if type(self.calls) is not tuple or not all(
                type(c) is FriendCall for c in self.calls):
            raise ActionDataError("the calls of a Call are a tuple of FriendCall; use "
                                  "Call.of(seat, text) for text")
        if len(self.calls) > MAX_CALLS:
            raise ActionDataError(f"too many calls in one action ({len(self.calls)})")

    @classmethod
    def of(cls, seat: int, text: str) -> Call:
        try:
            return cls(seat, parse_calls(text))
        except CallParseError as exc:
            raise ActionDataError(str(exc)) from exc

    def to_data(self) -> list[Any]:
        return [self.kind, self.seat, format_calls(self.calls)]

    def __str__(self) -> str:
        return f"call seat {self.seat}: {', '.join(str(c) for c in self.calls)}"


@dataclass(frozen=True, slots=True)
class TakeBack:
    """``seat`` takes back its last play, before the next seat has played, when the rules
    allow it (`Rules.takebacks`; which plays: `tractor.takeback`). It answers no decision:
    a seat takes it unasked.

    >>> TakeBack(1).to_data(), action_from_data(["takeback", 1])
    (['takeback', 1], TakeBack(seat=1))
    """

    seat: int
    kind = "takeback"

    def __post_init__(self) -> None:
        _check_seat(self.seat)

    def to_data(self) -> list[Any]:
        return [self.kind, self.seat]


#: A table of 12 calls 10 friends at most.
MAX_CALLS = 10

Action = Draw | Pass | Bid | NameTrump | Declare | Show | Bury | Play | Call | TakeBack
_CARD_ACTIONS: dict[str, type[_CardsAction]] = {
    c.kind: c for c in (Declare, Show, Bury, Play)
}


def action_from_data(data: Any) -> Action:
    """Read back ``action.to_data()``; raises `ActionDataError` on anything malformed."""
    if not isinstance(data, (list, tuple)) or len(data) < 2:
        raise ActionDataError(f"an action is a list [kind, seat, ...], got {data!r:.80}")
    kind, seat = data[0], data[1]
    if not isinstance(kind, str) or not isinstance(seat, int) or isinstance(seat, bool):
        raise ActionDataError(f"bad action header {data[:2]!r:.80}")
    try:
        if kind in ("draw", "pass") and len(data) == 2:
            return Draw(seat) if kind == "draw" else Pass(seat)
        if kind == "takeback" and len(data) == 2:
            return TakeBack(seat)
        if kind == "bid" and len(data) == 3 and type(data[2]) is int:
            return Bid(seat, data[2])
        if kind == "name" and len(data) == 3 and (data[2] is None or data[2] in SUITS):
            return NameTrump(seat, data[2])
        if kind == "call" and len(data) == 3 and isinstance(data[2], str) \
                and len(data[2]) <= 200:
            return Call.of(seat, data[2])
        if kind in _CARD_ACTIONS and len(data) == 3 and isinstance(data[2], str):
            return _CARD_ACTIONS[kind](seat, tuple(to_faces(data[2])))  # type: ignore[return-value]
    except ValueError as exc:
        raise ActionDataError(f"bad {kind} action: {exc}") from exc
    raise ActionDataError(f"not an action: {data!r:.80}")
