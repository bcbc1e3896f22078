"""The shape of every message body, and the checks each handler reads a body with.

Every byte from the network is hostile: a body that is not what its kind holds is its
sender's `BadMessage`; points and keys that are not group elements are its `CheatDetected`
(they can only come from a peer that computes on purpose outside the group).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from .envelope import Envelope
from .errors import BadMessage, CheatDetected, DeckError, TranscriptSplit
from .group import POINT_BYTES, GroupError, check_point, check_scalar

T = TypeVar("T")

#: The keys of each kind's body (exactly these).
BODY_KEYS = {
    "shuffle": {"deck", "key", "proof", "input"},
    "lock": {"deck", "locks", "proofs", "input"}, "deal": {"positions", "keys"},
    "reveal": {"positions", "purpose", "keys", "cards"}, "bury": {"positions"},
    "audit": {"keys"}, "verdict": {"violations", "transcript"}, "open": {"positions", "keys"},
    "app": {"data"}, "take": {"positions", "points"},
    "give": {"positions", "points", "proofs", "input"},
}
KINDS = frozenset(BODY_KEYS)


def check_shape(env: Envelope) -> None:
    """Refuse a body with missing or extra keys for its kind."""
    kind = env.header.kind
    if set(env.body) != BODY_KEYS[kind]:
        raise BadMessage(env.seat, f"a {kind} message holds exactly {sorted(BODY_KEYS[kind])}")


def judged(seat: int, kind: str, check: Callable[[], T]) -> T:
    """``check()`` of ``seat``'s ``kind`` message; what a malformed body makes it raise is
    that seat's `BadMessage`."""
    try:
        return check()
    except DeckError:
        raise
    except (GroupError, KeyError, TypeError, IndexError, ValueError) as exc:
        raise BadMessage(seat, f"malformed {kind} message: {exc!r:.80}") from exc


def positions(seat: int, raw: object, size: int) -> list[int]:
    """Distinct positions of a deck of ``size``, at least one."""
    if (not isinstance(raw, list) or not raw or len(raw) > size
            or not all(type(p) is int and 0 <= p < size for p in raw)
            or len(set(raw)) != len(raw)):
        raise BadMessage(seat, "positions must be distinct deck positions")
    return raw


def scalars(seat: int, raw: object, count: int) -> list[bytes]:
    """``count`` released keys, each a canonical non-zero scalar."""
    if not isinstance(raw, list) or len(raw) != count:
        raise BadMessage(seat, "one key per position")
    try:
        return [check_scalar(k) for k in raw]
    except GroupError as exc:
        raise CheatDetected(seat, f"a released key is not a key: {exc}") from exc


def points(seat: int, values: object, count: int, what: str, trusted: bool) -> list[bytes]:
    """``count`` points of the group. ``trusted``: made by this peer, or checked here before
    a crash; only their length is checked then."""
    if not isinstance(values, list) or len(values) != count:
        raise BadMessage(seat, f"{what}: expected {count} points")
    if trusted and all(type(v) is bytes and len(v) == POINT_BYTES for v in values):
        # This peer's own points were made here (its frames carry its signature, also
        # from the journal), and vouched ones were checked here before a crash: the
        # subgroup check, a scalar multiplication each, is for the other seats' points
        # not yet checked, as proof verification is.
        return list(values)
    try:
        return [check_point(v) for v in values]
    except GroupError as exc:
        raise CheatDetected(seat, f"{what}: {exc}") from exc


def same_transcript(seat: int, claimed: object, ours: bytes, what: str) -> None:
    """Refuse a message built on another ``what`` than this peer holds."""
    if claimed != ours:
        raise TranscriptSplit(seat, f"its {what} differs from this peer's: some seat sent "
                                    "different messages to different peers (compare "
                                    "evidence to find which)")
