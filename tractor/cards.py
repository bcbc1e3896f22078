"""Cards: the immutable `Card` value, its text forms, and decks.

A card face is a small integer (0..53): ``suit * 13 + rank_index`` for the 52
suited faces (suits S, H, D, C; ranks 2..A), 52 for the black (small) joker and
53 for the red (big) joker. Every rule works on faces; `Card` is the readable
value type around one face. Physical copies of a face (one per deck) carry a
``copy`` number that does not take part in equality, so the two ace of spades
of a two-deck game are distinct objects that compare equal.

>>> parse_cards("AS 10h ♣7 7♣ BJ")
[Card('AS'), Card('10H'), Card('7C'), Card('7C'), Card('BJ')]
>>> format_cards(parse_cards("th, rj"))
'10H RJ'
>>> Card.parse("AS") == Card.parse("AS", copy=1)
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from .errors import CoreError

Face = int  #: 0..53: a card regardless of which deck it comes from

SUITS = ("S", "H", "D", "C")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SYMBOL_SUITS = {v: k for k, v in SUIT_SYMBOLS.items()}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
BLACK_JOKER = 52
RED_JOKER = 53
FACES = 54
JOKERS = ("BJ", "RJ")

#: Card points by face: K and 10 are worth 10, 5 is worth 5.
FACE_POINTS: tuple[int, ...] = tuple(
    {"5": 5, "10": 10, "K": 10}.get(RANKS[f % 13], 0) if f < 52 else 0 for f in range(FACES)
)


class CardParseError(CoreError):
    """A token of card text could not be read; ``token`` names it."""

    def __init__(self, token: str, why: str = "") -> None:
        self.token = token
        super().__init__(f"not a card: {token!r}" + (f" ({why})" if why else ""))


def face_of(rank: str, suit: str | None) -> int:
    """Face number of a rank and suit (``suit`` is None for jokers).

    >>> face_of("A", "S"), face_of("BJ", None), face_of("RJ", None)
    (12, 52, 53)
    """
    if rank == "BJ":
        return BLACK_JOKER
    if rank == "RJ":
        return RED_JOKER
    return SUITS.index(suit) * 13 + RANKS.index(rank)  # a suit of None: ValueError


def face_rank(face: int) -> str:
    """Rank text of a face: "2".."A", or "BJ"/"RJ" for jokers."""
    if face >= 52:
        return JOKERS[face - 52]
    return RANKS[face % 13]


def face_suit(face: int) -> str | None:
    """Suit letter of a face, None for jokers."""
    return None if face >= 52 else SUITS[face // 13]


@dataclass(frozen=True, slots=True)
class Card:
    """One card: ``rank`` ("2".."10", "J", "Q", "K", "A", "BJ", "RJ") and ``suit``
    ("S", "H", "D", "C", or None for a joker). ``copy`` tells physical copies
    apart and is ignored by ``==`` and ``hash``.

    >>> Card("10", "H")
    Card('10H')
    >>> str(Card("RJ", None)), Card("Q", "D").symbol()
    ('RJ', '♦Q')
    """

    rank: str
    suit: str | None
    copy: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        if self.rank in JOKERS:
            if self.suit is not None:
                raise CardParseError(f"{self.rank}{self.suit}", "jokers have no suit")
        elif self.rank not in RANKS or self.suit not in SUITS:
            raise CardParseError(f"{self.rank}{self.suit or ''}")

    @property
    def face(self) -> int:
        return face_of(self.rank, self.suit)

    @property
    def points(self) -> int:
        return FACE_POINTS[self.face]

    @property
    def is_joker(self) -> bool:
        return self.suit is None

    @classmethod
    def from_face(cls, face: int, copy: int = 0) -> Card:
        """The card of a face number (a shared instance when ``copy`` is 0)."""
        if type(face) is not int or not 0 <= face < FACES:
            raise CardParseError(repr(face), "a face number is 0..53")
        if copy == 0:
            return _CARD_OF_FACE[face]
        return cls(face_rank(face), face_suit(face), copy)

    @classmethod
    def parse(cls, text: str, copy: int = 0) -> Card:
        """Read one card: ``AS``, ``10h``, ``TH``, ``♣7``, ``7♣``, ``BJ``, ``RJ``.

        >>> Card.parse("♠a"), Card.parse("tc"), Card.parse("rj")
        (Card('AS'), Card('10C'), Card('RJ'))
        """
        face = _parse_face(text)
        return cls(face_rank(face), face_suit(face), copy)

    def __str__(self) -> str:
        return self.rank if self.suit is None else f"{self.rank}{self.suit}"

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    def symbol(self) -> str:
        """Display form with a suit symbol first: ``♠A``; jokers stay ``BJ``/``RJ``."""
        return self.rank if self.suit is None else f"{SUIT_SYMBOLS[self.suit]}{self.rank}"


_CARD_OF_FACE: tuple[Card, ...] = tuple(Card(face_rank(f), face_suit(f)) for f in range(FACES))

_RANK_ALIASES = {r: r for r in RANKS} | {"T": "10"}
_TOKEN = re.compile(
    r"^(?:(?P<s1>[SHDC♠♥♦♣])(?P<r1>10|[2-9TJQKA])|(?P<r2>10|[2-9TJQKA])(?P<s2>[SHDC♠♥♦♣]))$"
)
_SEPARATORS = re.compile(r"[\s,]+")


def _parse_face(token: str) -> int:
    text = token.strip().upper().replace("\ufe0f", "")
    if text in ("BJ", "RJ"):
        return BLACK_JOKER if text == "BJ" else RED_JOKER
    m = _TOKEN.match(text)
    if m is None:
        raise CardParseError(token)
    rank = _RANK_ALIASES[m["r1"] or m["r2"]]
    suit = m["s1"] or m["s2"]
    suit = SYMBOL_SUITS.get(suit, suit)
    return SUITS.index(suit) * 13 + RANKS.index(rank)


def parse_faces(text: str) -> list[int]:
    """Face numbers of a card list separated by spaces or commas."""
    return [_parse_face(tok) for tok in _SEPARATORS.split(text.strip()) if tok]


def parse_cards(text: str) -> list[Card]:
    """Read a list of cards separated by spaces or commas.

    >>> parse_cards("AS,AS  10H")
    [Card('AS'), Card('AS'), Card('10H')]
    >>> parse_cards("AS XX")
    Traceback (most recent call last):
    ...
    tractor.cards.CardParseError: not a card: 'XX'
    """
    return [Card.from_face(f) for f in parse_faces(text)]


def format_cards(cards: Iterable[Card | int], symbols: bool = False) -> str:
    """Write cards (or faces) separated by spaces; ``parse_cards`` reads it back.

    >>> format_cards([Card("A", "S"), Card("BJ", None)], symbols=True)
    '♠A BJ'
    """
    out = []
    for c in cards:
        card = Card.from_face(c) if isinstance(c, int) else c
        out.append(card.symbol() if symbols else str(card))
    return " ".join(out)


CardsLike = str | Iterable[Card | str | int]


def to_faces(cards: CardsLike) -> list[int]:
    """Faces of cards given as text, or as an iterable of `Card` values, card texts or
    face numbers.

    >>> to_faces("AS RJ"), to_faces(["AS", Card("RJ", None), 0])
    ([12, 53], [12, 53, 0])
    """
    if isinstance(cards, str):
        return parse_faces(cards)
    out: list[int] = []
    for c in cards:
        if isinstance(c, Card):
            out.append(c.face)
        elif isinstance(c, str):
            out += parse_faces(c)
        elif isinstance(c, int) and not isinstance(c, bool) and 0 <= c < FACES:
            out.append(c)
        else:
            raise CardParseError(repr(c), "expected a card, its text or a face number")
    return out


def to_cards(faces: Iterable[int]) -> list[Card]:
    return [Card.from_face(f) for f in faces]


def full_deck(decks: int = 2) -> list[Card]:
    """All physical cards of ``decks`` decks, each 52 cards plus BJ and RJ.

    >>> len(full_deck(2)), sum(c.points for c in full_deck(2))
    (108, 200)
    """
    return [Card.from_face(f, copy) for copy in range(decks) for f in range(FACES)]

