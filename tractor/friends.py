"""Find-a-friend (找朋友, `Rules.mode` "friends"): the starter calls its partners by card, and
a seat joins the starter's side when it plays a called card.

A `FriendCall` is a card and an ordinal: "the 1st ♥A played" joins whoever plays the first
copy of the ace of hearts in the hand (any seat's copy counts, the starter's too: a call
that falls to the starter is spent on it, `Rules.friend_join`). Which cards may be called
is `Rules.friend_cards` (`call_error` says why a call is refused, in the rules' words).
`Sides` follows the calls through the plays of a hand: who is known to be on the
starter's side, and when.

>>> from tractor.rules import Rules
>>> from tractor.trump import Trump
>>> call = FriendCall.parse("AH")
>>> str(call), call.to_text(), FriendCall.parse("2:KS")
('the 1st ♥A', 'AH', FriendCall(face=11, nth=2))
>>> rules = Rules(players=5, mode="friends")
>>> call_error(rules, Trump("2", "S"), "2", (FriendCall.parse("AS"),))
'a trump (♠A) cannot be called: the rules allow no trump (friend_cards=no_trump)'
>>> sides = Sides(rules, starter=0, calls=(call,))
>>> sides.on_play(3, (25,)), sides.side, sides.friends
([3], (0, 3), (3,))
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from .cards import FACE_POINTS, RANKS, Face, format_cards, parse_faces
from .errors import CoreError
from .rules import Rules, Seat
from .trump import Trump


class CallParseError(CoreError):
    """Text that is not a friend call (`FriendCall.parse`)."""


_ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th ...

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11)]
    ['1st', '2nd', '3rd', '4th', '11th']
    """
    return _ORDINALS.get(n, f"{n}th")


@dataclass(frozen=True, slots=True)
class FriendCall:
    """"The ``nth`` copy of ``face`` played in the hand": whoever plays it joins the
    starter's side."""

    face: Face
    nth: int = 1

    def __post_init__(self) -> None:
        if type(self.face) is not int or not 0 <= self.face < 54:
            raise CallParseError(f"a called card is a face number 0..53, not {self.face!r:.20}")
        if type(self.nth) is not int or not 1 <= self.nth <= 6:
            raise CallParseError(f"a call names the 1st to 6th copy, not {self.nth!r:.20}")

    def __str__(self) -> str:
        return f"the {ordinal(self.nth)} {format_cards([self.face], symbols=True)}"

    def to_text(self) -> str:
        """``AH`` for the first copy, ``2:AH`` for the second (what `parse` reads)."""
        card = format_cards([self.face])
        return card if self.nth == 1 else f"{self.nth}:{card}"

    @classmethod
    def parse(cls, text: str) -> FriendCall:
        """Read ``AH``, ``2:AH``, ``2nd AH`` or ``2 AH`` (symbols too: ``2:A♥``).

        >>> FriendCall.parse("2nd A♥") == FriendCall.parse("2:AH") == FriendCall(25, 2)
        True
        >>> FriendCall.parse("2H")  # the first two of hearts
        FriendCall(face=13, nth=1)
        """
        text = text.strip()
        m = _ORDINAL_FIRST.fullmatch(text)
        nth, card = (int(m.group(1)), m.group(2)) if m else (1, text)
        try:
            faces = parse_faces(card)
        except ValueError as exc:
            raise CallParseError(f"not a friend call: {text!r:.40} ({exc}; a call is a card "
                                 "like AH, or the copy and the card like 2:AH for the "
                                 "second one played)") from exc
        if len(faces) != 1:
            raise CallParseError(f"a call names one card, not {card!r:.20}")
        return cls(faces[0], nth)


#: An ordinal before the card: "2:AH", "2nd AH", "2nd:AH", "2 AH".
_ORDINAL_FIRST = re.compile(r"(\d+)(?:st|nd|rd|th)?\s*(?::\s*|\s+|(?<=[a-z]))(\S+)",
                            re.IGNORECASE)


def format_calls(calls: Sequence[FriendCall]) -> str:
    """The calls as text `parse_calls` reads back: ``AH 2:KS``."""
    return " ".join(c.to_text() for c in calls)


def parse_calls(text: str) -> tuple[FriendCall, ...]:
    """Calls separated by spaces or commas.

    >>> parse_calls("AH, 2:KS 2nd QD")
    (FriendCall(face=25, nth=1), FriendCall(face=11, nth=2), FriendCall(face=36, nth=2))
    """
    words = [w for w in re.split(r"[,\s]+", text) if w]
    calls: list[str] = []
    for word in words:
        # "2nd AH", "2 AH" and "2: AH" are one call in two words.
        if calls and re.fullmatch(r"\d+(?:st|nd|rd|th)?:?", calls[-1], re.IGNORECASE):
            calls[-1] = calls[-1].rstrip(":") + ":" + word
        else:
            calls.append(word)
    return tuple(FriendCall.parse(c) for c in calls)


def _highest_plain(trump: Trump) -> str:
    """The highest rank of a plain suit: the ace, or the king when aces are the trump
    rank."""
    return "K" if trump.rank == "A" else "A"


def card_error(rules: Rules, trump: Trump, starter_level: str, face: Face) -> str | None:
    """Why ``face`` may not be called under `Rules.friend_cards` (None: it may)."""
    policy = rules.friend_cards
    card = format_cards([face], symbols=True)
    if policy != "trump_too" and trump.is_trump(format_cards([face])):
        return f"a trump ({card}) cannot be called: the rules allow no trump " \
               f"(friend_cards={policy})"
    if face >= 52:
        return None
    rank = RANKS[face % 13]
    if policy == "no_highest" and rank == _highest_plain(trump):
        return f"{card} is the highest card of its suit, which the rules do not let you " \
               "call (friend_cards=no_highest)"
    if policy == "no_points" and FACE_POINTS[face] and not (
            starter_level == "A" and rank == "K"):
        return f"{card} is a point card, which the rules do not let you call " \
               "(friend_cards=no_points)"
    return None


def call_error(rules: Rules, trump: Trump, starter_level: str,
               calls: Sequence[FriendCall]) -> str | None:
    """Why the starter may not make ``calls`` (None: it may): exactly
    `Rules.friend_calls` different calls, of copies that exist, of cards the rules let it
    call."""
    want = rules.friend_calls
    if len(calls) != want:
        return f"call {want} friend{'s' if want != 1 else ''}, not {len(calls)}"
    if len(set(calls)) != len(calls):
        return "each call must be different"
    for call in calls:
        if call.nth > rules.decks:
            return f"there is no {ordinal(call.nth)} copy of a card with {rules.decks} " \
                   f"deck{'s' if rules.decks != 1 else ''}"
        reason = card_error(rules, trump, starter_level, call.face)
        if reason:
            return reason
    return None


def callable_cards(rules: Rules, trump: Trump, starter_level: str) -> list[FriendCall]:
    """Every single call the rules allow, in face order, first copies first."""
    faces = [f for f in range(54) if card_error(rules, trump, starter_level, f) is None]
    return [FriendCall(f, n) for n in range(1, rules.decks + 1) for f in faces]


def legal_calls(rules: Rules, trump: Trump,
                starter_level: str) -> Iterator[tuple[FriendCall, ...]]:
    """Every set of calls the starter may make, lazily (three calls of two decks' cards are
    tens of thousands: take what you need)."""
    return combinations(callable_cards(rules, trump, starter_level), rules.friend_calls)


class Sides:
    """Who is on the starter's side as the plays of a hand show it (find-a-friend).

    ``friends[i]`` is the seat call ``i`` fell to (None while it waits), ``side`` the
    starter and the distinct seats that joined it, in the order they joined."""

    __slots__ = ("rules", "starter", "calls", "friends", "copies", "side")

    def __init__(self, rules: Rules, starter: Seat, calls: tuple[FriendCall, ...]) -> None:
        self.rules = rules
        self.starter = starter
        self.calls = calls
        self.friends: tuple[Seat | None, ...] = (None,) * len(calls)
        #: Copies of each call's card played so far.
        self.copies: tuple[int, ...] = (0,) * len(calls)
        self.side: tuple[Seat, ...] = (starter,)

    def copy(self) -> Sides:
        other = Sides.__new__(Sides)
        for name in Sides.__slots__:
            setattr(other, name, getattr(self, name))
        return other

    def on_play(self, seat: Seat, faces: Sequence[Face]) -> list[Seat]:
        """``seat`` plays ``faces``: the seats that joined the side by it (``seat`` or
        nobody); `answered` does the same and tells which calls fell."""
        before = len(self.side)
        self.answered(seat, faces)
        return list(self.side[before:])

    def answered(self, seat: Seat, faces: Sequence[Face]) -> list[int]:
        """``seat`` plays ``faces``: the indices of the calls that fell to it by this play
        (whether it joined by them or, on the side already, spent them), in call order."""
        fell: list[int] = []
        friends, copies = list(self.friends), list(self.copies)
        for face in faces:
            for i, call in enumerate(self.calls):
                if call.face != face:
                    continue
                copies[i] += 1
                if friends[i] is not None or copies[i] < call.nth:
                    continue
                if seat in self.side and self.rules.friend_join == "no_double":
                    continue  # the call waits for a seat not on the side yet
                friends[i] = seat
                fell.append(i)
                if seat not in self.side:
                    self.side = (*self.side, seat)
        self.friends, self.copies = tuple(friends), tuple(copies)
        return sorted(fell)

    @property
    def settled(self) -> bool:
        """Every call has fallen to a seat: the sides are known to everyone."""
        return all(f is not None for f in self.friends)


def next_starter(players: int, starter: Seat, side: Sequence[Seat], side_won: bool) -> Seat:
    """The next hand's starter (find-a-friend, as shengji plays it): the next seat after
    the starter, going round, on the side that won the hand (the starter again when it won
    alone).

    >>> next_starter(5, 0, (0, 3), True), next_starter(5, 0, (0, 3), False)
    (3, 1)
    >>> next_starter(5, 0, (0,), True)
    0
    """
    for k in range(1, players + 1):
        seat = (starter + k) % players
        if (seat in side) == side_won:
            return seat
    raise AssertionError("a side is never empty")  # both sides have a seat
