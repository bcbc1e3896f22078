"""Where the defenders' points came from, for the end-of-hand summaries (fixed teams and
find-a-friend alike): the point cards they won trick by trick, the failed throws'
penalties, the talon turned over; and the small text pieces both summaries use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tractor.cards import FACE_POINTS, SUIT_SYMBOLS, format_cards, parse_faces
from tractor.cli.screen import friends_view
from tractor.cli.screen.wrapping import pack
from tractor.observation import Observation
from tractor.records import throw_penalty_points


def talon_sentence(res: dict[str, Any], buried: str | None, keeper: str) -> str:
    """What became of the talon: turned over by the defenders (its points, the multiplier,
    the bonus), or kept by ``keeper`` ("the declarers", "the starter")."""
    if res.get("talon_turned"):
        pts = res.get("talon_points") or 0
        mult = res["talon_bonus"] // pts if pts else 0
        talon = f"Talon {cards_text(buried)}: " if buried else "Talon: "
        return (f"{talon}{pts} points, turned over by the defenders"
                + (f" ×{mult}" if mult else "") + f" = bonus {res['talon_bonus']}.")
    if buried:
        pts = sum(FACE_POINTS[f] for f in parse_faces(buried))
        return f"Talon {cards_text(buried)} ({pts} points) stays with {keeper}."
    return f"The talon stays buried with {keeper} (no bonus)."


# --- where the defenders' points came from -------------------------------------------------


def point_tricks(obs: Observation) -> list[tuple[int, int, tuple[int, ...]]]:
    """The tricks the defenders won with points in them, as (trick number from 1, the
    winning seat, the point cards in playing order); in find-a-friend, the seats not on
    the starter's side as the observation knows it (all of it, once the hand is over)."""
    got = []
    for i, t in enumerate(obs.tricks, 1):
        if t.points and friends_view.defends(obs, t.winner):
            cards = tuple(f for p in t.plays for f in p if FACE_POINTS[f])
            got.append((i, t.winner, cards))
    return got


def throw_penalties(obs: Observation) -> list[tuple[int, int, int]]:
    """Failed throws, as (trick number, thrower, points to the defenders: negative when a
    defender threw)."""
    if obs.declarers is None and not friends_view.is_friends(obs):
        return []
    return [(i, t.leader, throw_penalty_points(t.penalty, friends_view.defends(obs, t.leader)))
            for i, t in enumerate(obs.tricks, 1) if t.penalty]


def points_lines(res: dict[str, Any], obs: Observation, names: Sequence[str],
                 width: int | None) -> list[str]:
    """The defenders' point cards trick by trick, the penalties, and the sum when it has
    more than one part (none for a hand without tricks)."""
    if not obs.tricks:
        return []
    tricks = point_tricks(obs)
    penalties = throw_penalties(obs)
    won = sum(FACE_POINTS[f] for _, _, cards in tricks for f in cards)
    lines: list[str] = []
    if tricks:
        parts = [f"trick {i} ({names[seat]}) {cards_text(cards)}"
                 + (f" = {sum(FACE_POINTS[f] for f in cards)}" if len(cards) > 1 else "")
                 for i, seat, cards in tricks]
        lines += pack(parts, width, "Won: ", "  ", " · ")
    else:
        lines.append("The defenders won no point cards.")
    if penalties:
        parts = [f"trick {i}, {names[seat]}'s failed throw {pts:+d}"
                 for i, seat, pts in penalties]
        lines += pack(parts, width, "Penalties: ", "  ", " · ")
    pen = sum(p for _, _, p in penalties)
    bonus = res.get("talon_bonus") or 0
    total = won + pen + bonus
    if pen or bonus:
        text = f"= {won} in tricks" + (f" {'+' if pen > 0 else '−'} {abs(pen)} penalties"
                                       if pen else "")
        lines += wrap_text(text + (f" + {bonus} talon bonus" if bonus else "")
                           + f" = {total}", width)
    if total != res["defender_points"]:
        lines += wrap_text(f"(the result counts {res['defender_points']}: a rule broken or "
                           "a seat that left decided the hand)", width)
    return lines


def trump_data_short(trump: Sequence[str | None] | None) -> str:
    """A trump in plain data (`Trump.to_data`) in a few characters: ``♥2``."""
    if trump is None:
        return "trump unknown"
    rank, suit = trump
    if rank is None:
        return "jokers only"
    return f"{rank} no suit" if suit is None else f"{SUIT_SYMBOLS[suit]}{rank}"


def cards_text(text_or_faces: str | Sequence[int]) -> str:
    """Cards (as text or faces) with suit symbols."""
    faces = parse_faces(text_or_faces) if isinstance(text_or_faces, str) else text_or_faces
    return format_cards(list(faces), symbols=True)


def wrap_text(text: str, width: int | None, indent: str = "  ") -> list[str]:
    """``text`` in lines of ``width`` (None: one line), continued under ``indent``."""
    return pack([text], width, "", indent, "")
