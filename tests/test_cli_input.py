"""Typed card selections: the forms people type, the errors they get, and completion."""

from __future__ import annotations

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from tractor.cards import format_cards, parse_faces
from tractor.cli.screen.cards_input import (
    CARD_CHARS,
    HandCompleter,
    SelectionError,
    matches_partial,
    parse_partial,
    parse_selection,
    selection_text,
    split_tokens,
    toggle_in_text,
)

HAND = parse_faces("RJ BJ BJ AS AS KS 10H 10H 5D 2C")


def sel(text: str) -> str:
    return format_cards(parse_selection(text, HAND))


@pytest.mark.parametrize("text, expected", [
    ("AS AS", "AS AS"),
    ("as", "AS"),
    ("♠A", "AS"),
    ("A♠", "AS"),
    ("sa", "AS"),
    ("10h", "10H"),
    ("th", "10H"),
    ("h10, 10H", "10H 10H"),
    ("♥10 ♥10", "10H 10H"),
    ("bj", "BJ"),
    ("RJ bj BJ", "RJ BJ BJ"),
    ("  5d\t2c ", "5D 2C"),
    ("AS,KS", "AS KS"),
    ("♠️A", "AS"),  # emoji variation selector after the symbol
])
def test_accepted_forms(text: str, expected: str) -> None:
    assert sel(text) == expected


def test_typed_order_is_kept() -> None:
    assert sel("2c as bj") == "2C AS BJ"


def test_empty_text_is_an_empty_selection() -> None:
    assert parse_selection("", HAND) == []
    assert parse_selection(" , ", HAND) == []


@pytest.mark.parametrize("text, message", [
    ("QS", "you don't hold ♠Q"),
    ("AS AS AS", "you hold only 2 ♠A"),
    ("KS ks", "you hold only 1 ♠K"),
    ("RJ RJ", "you hold only 1 RJ"),
    ("AH", "you don't hold ♥A"),
    ("XX", "'XX' is not a card"),
    ("AS 1", "'1' is not a card"),
    ("ASKS", "'ASKS' is not a card"),
])
def test_errors_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(SelectionError, match=message):
        parse_selection(text, HAND)


def test_selection_error_is_a_value_error() -> None:
    assert issubclass(SelectionError, ValueError)


def test_partial_parse_keeps_going_past_bad_tokens() -> None:
    faces, bad = parse_partial("AS zz 10h 1")
    assert format_cards(faces) == "AS 10H"
    assert bad == ["zz", "1"]


def test_split_and_selection_text() -> None:
    assert split_tokens(" AS,,KS  10h ") == ["AS", "KS", "10h"]
    assert selection_text(parse_faces("♠A ♥10 BJ")) == "AS 10H BJ"


def test_toggle_adds_and_removes_one_copy() -> None:
    ace = parse_faces("AS")[0]
    text = toggle_in_text("", ace, add=True)
    assert text == "AS "
    text = toggle_in_text(text, ace, add=True)
    assert text == "AS AS "
    assert toggle_in_text("as kh ♠A", ace, add=False) == "as kh "
    assert toggle_in_text("zz AS", ace, add=False) == "zz "
    assert toggle_in_text("AS", ace, add=False) == ""


def test_card_chars_leave_the_command_letters_free() -> None:
    for letter in "eilogmnp?":
        assert letter not in CARD_CHARS and letter.upper() not in CARD_CHARS
    for text in ("AS", "10h", "♠A", "BJ", "RJ", "tc", "qd", "kh", "js"):
        assert set(text) <= CARD_CHARS


@pytest.mark.parametrize("partial, card, ok", [
    ("a", "AS", True), ("A", "AH", True), ("s", "AS", True), ("♠", "AS", True),
    ("1", "10H", True), ("t", "10H", True), ("10", "10H", True), ("h1", "10H", True),
    ("b", "BJ", True), ("r", "RJ", True), ("k", "AS", False), ("bj", "RJ", False),
    ("", "5D", True), ("d5", "5D", True), ("5♦", "5D", True), ("5s", "5D", False),
])
def test_partial_matching(partial: str, card: str, ok: bool) -> None:
    assert matches_partial(partial, parse_faces(card)[0]) is ok


def completions(text: str, hand: list[int] = HAND) -> list[tuple[str, str, str]]:
    completer = HandCompleter(lambda: hand)
    doc = Document(text, len(text))
    return [(c.text, c.display_text, c.display_meta_text)
            for c in completer.get_completions(doc, CompleteEvent(completion_requested=True))]


def test_completion_offers_each_card_once_with_copies_left() -> None:
    got = completions("")
    assert [t for t, _, _ in got] == ["RJ ", "BJ ", "AS ", "KS ", "10H ", "5D ", "2C "]
    assert ("BJ ", "BJ", "×2") in got
    assert ("AS ", "♠A", "×2") in got
    assert ("KS ", "♠K", "") in got


def test_completion_filters_by_the_partial_token() -> None:
    assert [t for t, _, _ in completions("a")] == ["AS "]
    assert [t for t, _, _ in completions("KS ♥")] == ["10H "]
    assert [t for t, _, _ in completions("1")] == ["10H "]
    assert completions("q") == []


def test_completion_respects_copies_already_typed() -> None:
    assert ("AS ", "♠A", "") in completions("AS a")
    assert completions("AS AS a") == []
    assert "RJ " not in [t for t, _, _ in completions("rj ")]
    assert ("BJ ", "BJ", "") in completions("bj b")
    # Bad tokens already typed do not use up cards.
    assert ("AS ", "♠A", "×2") in completions("zz a")


def test_completion_replaces_only_the_partial_token() -> None:
    completer = HandCompleter(lambda: HAND)
    doc = Document("AS ♥1", 5)
    (only,) = list(completer.get_completions(doc, CompleteEvent()))
    assert only.start_position == -2 and only.text == "10H "
    assert Document("AS ♥1").text[: 5 + only.start_position] + only.text == "AS 10H "


def test_completion_sees_the_current_hand() -> None:
    hand = list(HAND)
    completer = HandCompleter(lambda: hand)
    assert len(list(completer.get_completions(Document("2"), CompleteEvent()))) == 1
    hand.remove(parse_faces("2C")[0])
    assert list(completer.get_completions(Document("2"), CompleteEvent())) == []
