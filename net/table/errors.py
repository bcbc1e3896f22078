"""A move the table refuses, and whose it is."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from tractor.net.errors import NetError
from tractor.phases import IllegalAction

T = TypeVar("T")


class TableError(NetError, ValueError):
    """A move the table refuses, blamed on ``seat``."""

    def __init__(self, seat: int, message: str) -> None:
        self.seat = seat
        #: This peer's frames made before the refusal was found (see `DeckError`).
        self.outgoing: list[bytes] = []
        self.hand: int | None = None  #: the hand whose table refused (set by `TableHand`)
        super().__init__(f"seat {seat}: {message}")


def judged(seat: int, move: Callable[[], T]) -> T:
    """A public move of ``seat`` judged by the rules core: its refusal is the seat's."""
    try:
        return move()
    except IllegalAction as exc:
        raise TableError(seat, str(exc)) from exc
