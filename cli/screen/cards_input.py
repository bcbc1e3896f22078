"""Typed card selections: read what a person types against the cards they hold.

People type cards the way they say them: ``AS AS``, ``10h``, ``♠A``, ``as``, ``BJ``/``RJ``
(small/big joker), suit before or after the rank, any case, separated by spaces or commas.
A pair is the same card typed twice. Anything that is not a card, or a card (or a copy of
it) that is not in the hand, is refused with a message saying which, so the screens can
show it under the input instead of a traceback.

>>> from tractor.cards import parse_faces, format_cards
>>> hand = parse_faces("AS AS 10H BJ")
>>> format_cards(parse_selection("as ♠a", hand))
'AS AS'
>>> try:
...     parse_selection("AS AS AS", hand)
... except SelectionError as exc:
...     print(exc)
you hold only 2 ♠A
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from tractor.actions import Action, Bid, NameTrump, Pass
from tractor.cards import (
    SUIT_NAMES,
    SUIT_SYMBOLS,
    SUITS,
    CardParseError,
    face_rank,
    face_suit,
    format_cards,
    parse_faces,
)
from tractor.cli.errors import CliError
from tractor.follow import legal_follows
from tractor.formats import classify_faces
from tractor.phases import Decision
from tractor.trump import Ladder

_SEPARATORS = re.compile(r"[\s,]+")
_PARTIAL = re.compile(r"[^\s,]*$")
#: The word a typed pass is (a bid's, and the hinted pass at a declaration).
PASS_WORD = "pass"
#: Characters that can appear in typed card text (the screens use the others as keys).
CARD_CHARS = frozenset("0123456789AKQJTSHDCBR" + "akqjtshdcbr" + "".join(SUIT_SYMBOLS.values()))


class SelectionError(CliError, ValueError):
    """Typed text that is not a selection of cards from the hand; the message says why."""


def split_tokens(text: str) -> list[str]:
    """The tokens of typed text (spaces and commas separate)."""
    return [t for t in _SEPARATORS.split(text.strip()) if t]


def card_label(face: int) -> str:
    """Display form of one face: ``♠A``, ``♥10``, ``BJ``."""
    return format_cards([face], symbols=True)


def parse_token(token: str) -> int:
    """The face of one typed token; `SelectionError` with a hint for anything else."""
    try:
        faces = parse_faces(token)
    except CardParseError:
        raise SelectionError(
            f"{token!r} is not a card (type e.g. AS, 10h, ♠A, BJ, RJ)") from None
    if len(faces) != 1:
        raise SelectionError(f"{token!r} is not one card")
    return faces[0]


def parse_selection(text: str, hand: Sequence[int]) -> list[int]:
    """Faces typed in ``text``, in typed order, checked against ``hand`` (a multiset).

    Raises `SelectionError` naming the first token that is not a card, or the first card
    typed more often than it is held.
    """
    faces = [parse_token(t) for t in split_tokens(text)]
    held = Counter(hand)
    typed = Counter(faces)
    for face in faces:  # report in typed order
        if typed[face] > held[face]:
            if held[face] == 0:
                raise SelectionError(f"you don't hold {card_label(face)}")
            raise SelectionError(f"you hold only {held[face]} {card_label(face)}")
    return faces


def parse_partial(text: str) -> tuple[list[int], list[str]]:
    """The faces of the tokens that read as cards, and the tokens that do not
    (used to highlight a selection while it is still being typed)."""
    faces: list[int] = []
    bad: list[str] = []
    for tok in split_tokens(text):
        try:
            faces.append(parse_token(tok))
        except SelectionError:
            bad.append(tok)
    return faces, bad


def selection_text(faces: Iterable[int]) -> str:
    """Typed form of a selection (``AS AS 10H``): what the screens put in the input line."""
    return format_cards(list(faces))


def toggle_in_text(text: str, face: int, add: bool) -> str:
    """The input text with one copy of ``face`` added (at the end) or removed (the last
    token naming it); tokens that are not cards are kept as they are."""
    tokens = split_tokens(text)
    if add:
        tokens.append(selection_text([face]))
    else:
        for i in range(len(tokens) - 1, -1, -1):
            try:
                if parse_token(tokens[i]) == face:
                    del tokens[i]
                    break
            except SelectionError:
                continue
    return " ".join(tokens) + (" " if tokens else "")


def _forms(face: int) -> tuple[str, ...]:
    """Every way of starting to type ``face`` (upper case)."""
    if face >= 52:
        return (face_rank(face),)
    rank, suit = face_rank(face), face_suit(face)
    assert suit is not None
    symbol = SUIT_SYMBOLS[suit]
    ranks = (rank, "T") if rank == "10" else (rank,)
    out: list[str] = []
    for r in ranks:
        out += [r + suit, suit + r, symbol + r, r + symbol]
    return tuple(out)


def matches_partial(partial: str, face: int) -> bool:
    """Whether a half-typed token can still become ``face`` (``a`` → every ace,
    ``♠`` or ``s`` → every spade, ``1`` → the tens)."""
    p = partial.strip().upper().replace("\ufe0f", "")
    return any(form.startswith(p) for form in _forms(face))


def follow_candidates(hand: Sequence[int], lead: Sequence[int], typed: Sequence[int],
                      ladder: Ladder, must_play_tractor: bool = False,
                      limit: int = 3000) -> set[int]:
    """The cards that can still join ``typed`` in a legal follow of ``lead``: every card of
    some legal follow (the rules core's `legal_follows`) that holds the typed cards. When
    there are more follows than ``limit`` to look through, the cards of the suit led.

    >>> from tractor.cards import parse_faces, format_cards
    >>> from tractor.trump import ladder_for, Trump
    >>> ladder = ladder_for(Trump("2", "H"))
    >>> hand = parse_faces("9S 9S 4S KD")
    >>> format_cards(sorted(follow_candidates(hand, parse_faces("AS AS"), [], ladder)))
    '9S'

    Short of the suit led: all of it, and any other card in the room left.

    >>> short = parse_faces("9S KD QC")
    >>> format_cards(sorted(follow_candidates(short, parse_faces("AS AS"), [], ladder)))
    '9S KD QC'
    >>> format_cards(sorted(follow_candidates(short, parse_faces("AS AS"), parse_faces("KD"),
    ...                                       ladder)))
    '9S'
    """
    fmt = classify_faces(list(lead), ladder)
    if len(typed) >= fmt.size:
        return set()
    suit = [f for f in hand if ladder.esuit[f] == fmt.esuit]
    if len(suit) <= fmt.size:  # all of the suit led, then anything in the room left
        off_typed = sum(1 for f in typed if ladder.esuit[f] != fmt.esuit)
        if off_typed < fmt.size - len(suit):
            return set(hand)
        left = Counter(suit)
        left.subtract(f for f in typed if ladder.esuit[f] == fmt.esuit)
        return {f for f, n in left.items() if n > 0}
    need = Counter(typed)
    out: set[int] = set()
    for k, play in enumerate(legal_follows(list(hand), fmt, ladder, must_play_tractor)):
        if k >= limit:
            return set(suit)
        left = Counter(play)
        left.subtract(need)
        if all(v >= 0 for v in left.values()):
            out.update(f for f, v in left.items() if v > 0)
    return out


class HandCompleter(Completer):
    """Completes the token being typed with the cards still available in the hand: a card
    already typed as often as it is held is not offered again.

    ``hand`` is called for every completion so it always sees the current hand; its order
    (trumps first, as the hand pane shows it) is the order of the completions. ``allowed``
    (given the cards typed so far) narrows them to the cards that can go with those, e.g.
    the ones that can follow the lead (None: every card held).
    """

    def __init__(self, hand: Callable[[], Sequence[int]],
                 allowed: Callable[[list[int]], Collection[int] | None] | None = None) -> None:
        self.hand = hand
        self.allowed = allowed

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterator[Completion]:
        before = document.text_before_cursor
        match = _PARTIAL.search(before)
        partial = match.group(0) if match else ""
        done = before[: len(before) - len(partial)]
        used, _ = parse_partial(done)
        after, _ = parse_partial(document.text_after_cursor)
        hand = list(self.hand())
        left = Counter(hand)
        left.subtract(used)
        left.subtract(after)
        fits = self.allowed(used + after) if self.allowed is not None else None
        seen: set[int] = set()
        for face in hand:
            if face in seen or left[face] <= 0 or (fits is not None and face not in fits):
                continue
            seen.add(face)
            if not matches_partial(partial, face):
                continue
            count = left[face]
            yield Completion(
                selection_text([face]) + " ",
                start_position=-len(partial),
                display=card_label(face),
                display_meta=f"×{count}" if count > 1 else "",
            )


__all__ = [
    "CARD_CHARS", "PASS_WORD", "HandCompleter", "SelectionError", "card_label",
    "follow_candidates", "matches_partial",
    "parse_partial", "parse_selection", "parse_token", "selection_text", "split_tokens",
    "toggle_in_text",
]


def auction_answer(decision: Decision, text: str, seat: int) -> Action | None:
    """A typed answer to the auction variant's bid or trump naming, as the rules core's
    action (checked by the table), or None when the text is not one.

    >>> auction_answer(Decision.BID, "85", 1), auction_answer(Decision.BID, "pass", 1)
    (Bid(seat=1, points=85), Pass(seat=1))
    >>> auction_answer(Decision.NAME, "h", 0), auction_answer(Decision.NAME, "none", 0)
    (NameTrump(seat=0, suit='H'), NameTrump(seat=0, suit=None))
    >>> auction_answer(Decision.NAME, "purple", 0), auction_answer(Decision.BID, "²", 0)
    (None, None)
    """
    word = text.strip().lower()
    if decision == Decision.BID:
        if word in (PASS_WORD, "p", "0"):
            return Pass(seat)
        # ASCII digits only: "²" and "①" are digits to str.isdigit, not to int().
        return Bid(seat, int(word)) if word.isascii() and word.isdigit() and len(word) <= 4 \
            else None
    if decision == Decision.NAME:
        if word in ("none", "no", "nt", "-", "0"):
            return NameTrump(seat, None)
        for suit in SUITS:
            if word in (suit.lower(), SUIT_NAMES[suit], SUIT_SYMBOLS[suit]):
                return NameTrump(seat, suit)
    return None
