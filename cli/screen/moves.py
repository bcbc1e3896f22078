"""The move the input line makes at the decision the table asks for (Enter): a play, a
burial, a card shown, a declaration, a bid or a trump named; or, in words, why it makes
none (kept on the message line, the typed text left as it is)."""

from __future__ import annotations

from tractor.actions import Action, ActionDataError, Bury, Call, Declare, Pass, Play, Show
from tractor.cli.screen import render
from tractor.cli.screen.cards_input import (
    PASS_WORD,
    SelectionError,
    auction_answer,
    parse_selection,
)
from tractor.observation import Observation
from tractor.phases import Decision


def typed_move(decision: Decision, text: str, seat: int, hand: list[int],
               obs: Observation) -> Action | str | None:
    """The move ``text`` makes for ``seat`` holding ``hand`` (in display order) at
    ``decision``; a str: why it makes none; None: nothing chosen at a declaration (the
    declaration panel then shows what there is to declare)."""
    if decision == Decision.CALL:
        return typed_call(text, seat)
    if decision in (Decision.BID, Decision.NAME):
        answer = auction_answer(decision, text, seat)
        if answer is None:
            return ("Type the points to bid, or pass (then Enter)." if decision == Decision.BID
                    else "Type S, H, D or C, or 0 for no trump suit.")
        return answer
    if decision == Decision.DECLARE and text.strip().lower() == PASS_WORD:
        return Pass(seat)  # the hinted pass, as a bid's (Enter accepts every hint)
    try:
        faces = parse_selection(text, hand)
    except SelectionError as exc:
        return str(exc)
    if decision == Decision.PLAY:
        if not faces:
            return "Choose cards first: type them, or Space on a card."
        return Play(seat, tuple(faces))
    if decision == Decision.BURY:
        need = render.talon_size(obs)
        if len(faces) != need:
            return f"Choose exactly {need} cards to bury ({len(faces)} chosen)."
        return Bury(seat, tuple(faces))
    if decision == Decision.SHOW:
        if len(faces) != 1:
            return f"Show exactly one card ({len(faces)} chosen)."
        return Show(seat, tuple(faces))
    if not faces:
        return None
    return Declare(seat, tuple(faces))


def typed_call(text: str, seat: int) -> Call | str:
    """Find-a-friend: the starter's calls typed as cards (``AH 2:KS``, ``2nd ♥A``), or why
    the text is not calls (whether the rules allow them is the table's to say)."""
    if not text.strip():
        return "Type your calls first, e.g. AH (the 1st ♥A played) or 2:AH (the 2nd)."
    try:
        return Call.of(seat, text)
    except ActionDataError as exc:  # not a call, or more calls than any table has
        return str(exc)
