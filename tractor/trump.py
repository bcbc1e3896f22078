"""The trump context of a hand and the card order it makes.

`Trump` names the trump rank and suit; `Ladder` is the precomputed order for
one trump context plus the two tractor options, built once and cached, so
every rule is a few table look-ups on face numbers.

Card order, high to low: red jokers > black jokers > trump-suit rank card >
the other rank cards (equal to each other) > trump suit A..2 without the rank;
each plain suit A..2 without the rank.

>>> t = Trump(rank="7", suit="C")
>>> [str(c) for c in t.sorted_cards("7H 7C AC RJ 2C BJ 8S")]
['RJ', 'BJ', '7C', '7H', 'AC', '2C', '8S']
>>> t.effective_suit("7H"), t.effective_suit("8S")
('trump', 'S')
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .cards import BLACK_JOKER, FACES, RANKS, RED_JOKER, SUITS, Card, CardsLike, to_cards, to_faces
from .errors import CoreError
from .rules import Rules

TRUMP = 4  #: effective-suit number of the trumps; plain suits are 0..3 (S, H, D, C)
ESUIT_NAMES = ("S", "H", "D", "C", "trump")


class TrumpError(CoreError):
    """A trump context that cannot exist, or a question it cannot answer."""


@dataclass(frozen=True, slots=True)
class Trump:
    """A trump context: ``rank`` ("2".."A" or None) and ``suit`` ("S","H","D","C" or None).

    ``Trump(rank="2", suit="H")`` is the usual case; ``Trump(rank="2", suit=None)``
    makes jokers and all 2s trumps; ``Trump(None, None)`` (a pair of jokers was
    declared) leaves only the jokers as trumps.
    """

    rank: str | None = None
    suit: str | None = None

    def __post_init__(self) -> None:
        if self.rank is not None and self.rank not in RANKS:
            raise TrumpError(f"trump rank must be one of {', '.join(RANKS)} or None")
        if self.suit is not None and self.suit not in SUITS:
            raise TrumpError("trump suit must be one of S, H, D, C or None")
        if self.suit is not None and self.rank is None:
            raise TrumpError("a trump suit needs a trump rank")

    def __str__(self) -> str:
        if self.rank is None:
            return "jokers only"
        return f"rank {self.rank}, " + (f"suit {self.suit}" if self.suit else "no suit")

    def ladder(self, across_rank: bool = True, rank_and_jokers: bool = True) -> Ladder:
        return ladder_for(self, across_rank, rank_and_jokers)

    def effective_suit(self, card: Card | str) -> str:
        """"trump" or the plain suit letter of one card."""
        faces = to_faces([card] if isinstance(card, Card) else card)
        if len(faces) != 1:
            raise TrumpError(f"effective_suit takes one card, not {len(faces)}")
        return ESUIT_NAMES[self.ladder().esuit[faces[0]]]

    def is_trump(self, card: Card | str) -> bool:
        return self.effective_suit(card) == "trump"

    def sorted_cards(self, cards: CardsLike) -> list[Card]:
        """Cards high to low: trumps first, then the plain suits S, H, D, C."""
        return to_cards(self.ladder().sort_faces(to_faces(cards)))

    def to_data(self) -> list[str | None]:
        return [self.rank, self.suit]

    @classmethod
    def from_data(cls, data: object) -> Trump:
        if not isinstance(data, (list, tuple)) or len(data) != 2:
            raise TrumpError(f"a trump is [rank, suit], not {data!r:.40}")
        return cls(data[0], data[1])


class Ladder:
    """Per-face tables of one trump context (read-only after construction).

    - ``esuit[f]``: effective suit, 0..3 plain, 4 (`TRUMP`) trump.
    - ``order[f]``: strength within the effective suit; trumps are all above 20;
      equal values are equal cards for winning (the off-suit rank cards).
    - ``level[f]``: position on the tractor ladder: pairs on consecutive levels
      of one effective suit form a tractor.
    - ``faces_of[e]``: the faces of effective suit ``e``, highest first.
    """

    __slots__ = ("trump", "esuit", "order", "level", "faces_of", "sort_key")

    def __init__(self, trump: Trump, across_rank: bool, rank_and_jokers: bool) -> None:
        self.trump = trump
        rank_i = RANKS.index(trump.rank) if trump.rank is not None else None
        suit_i = SUITS.index(trump.suit) if trump.suit is not None else None
        esuit = [0] * FACES
        order = [0] * FACES
        level = [0] * FACES
        # Ranks left in a suit once the trump rank is taken out, low to high.
        kept = [r for r in range(13) if r != rank_i]
        step = {r: (i if across_rank else r) for i, r in enumerate(kept)}
        top = step[kept[-1]]
        # A gap of 2 keeps rank cards and jokers out of every tractor.
        gap = 1 if rank_and_jokers else 2
        for f in range(52):
            s, r = divmod(f, 13)
            if r == rank_i:
                esuit[f] = TRUMP
                on_suit = s == suit_i
                order[f] = 41 if on_suit else 40
                # With a suit: A of trumps, off-suit rank, trump-suit rank chain.
                base = top + gap if suit_i is not None else 0
                level[f] = base + (gap if on_suit else 0)
            elif s == suit_i:
                esuit[f] = TRUMP
                order[f] = 20 + r
                level[f] = step[r]
            else:
                esuit[f] = s
                order[f] = r
                level[f] = step[r]
        if suit_i is not None:
            joker_base = top + 2 * gap
        elif rank_i is not None:
            joker_base = 0
        else:
            joker_base = -gap
        for f, k in ((BLACK_JOKER, 1), (RED_JOKER, 2)):
            esuit[f] = TRUMP
            order[f] = 41 + k
            level[f] = joker_base + k * gap
        self.esuit = tuple(esuit)
        self.order = tuple(order)
        self.level = tuple(level)
        by_suit: list[list[int]] = [[] for _ in range(5)]
        for f in range(FACES):
            by_suit[esuit[f]].append(f)
        for faces in by_suit:
            faces.sort(key=lambda f: (-order[f], f))
        self.faces_of = tuple(tuple(fs) for fs in by_suit)
        # Display/sort key: trumps first, then S H D C, high to low, ties by suit.
        self.sort_key = tuple(
            ((0 if esuit[f] == TRUMP else 1 + esuit[f]), -order[f], f) for f in range(FACES)
        )

    def sort_faces(self, faces: list[int]) -> list[int]:
        key = self.sort_key
        return sorted(faces, key=key.__getitem__)

    def suit_of_faces(self, faces: list[int]) -> int | None:
        """The one effective suit of ``faces``, or None when they mix suits."""
        es = self.esuit
        first = es[faces[0]]
        for f in faces:
            if es[f] != first:
                return None
        return first


def rules_ladder(trump: Trump, rules: Rules | None) -> Ladder:
    """The ladder of ``trump`` under the tractor options of ``rules`` (defaults if None)."""
    if rules is None:
        return ladder_for(trump)
    return ladder_for(trump, rules.tractor_across_rank, rules.rank_and_jokers_in_tractors)


@lru_cache(maxsize=512)
def ladder_for(trump: Trump, across_rank: bool = True, rank_and_jokers: bool = True) -> Ladder:
    return Ladder(trump, across_rank, rank_and_jokers)


def esuit_name(esuit: int) -> str:
    """Display name of an effective suit: "trumps" or the suit symbol."""
    return "trumps" if esuit == TRUMP else "♠♥♦♣"[esuit]
