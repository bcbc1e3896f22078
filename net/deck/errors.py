"""Typed errors of the deck protocol. Each names the seat it blames."""

from __future__ import annotations


class DeckError(ValueError):
    """A protocol violation, blamed on ``seat``."""

    def __init__(self, seat: int, message: str) -> None:
        self.seat = seat
        self.reason = message
        super().__init__(f"seat {seat}: {message}")


class BadMessage(DeckError):
    """A well-signed message with content the protocol refuses (wrong phase, bad point ...)."""


class CheatDetected(DeckError):
    """A proof that fails, a wrong key, a card not held: a cheat, blamed on its author."""


class Replay(DeckError):
    """A message the sender already sent (same sequence number, same content)."""


class Equivocation(DeckError):
    """Two different signed messages from one seat for the same place in its chain, or views
    of a seat's chain that disagree with ours."""


class KeyTimeout(DeckError):
    """A seat did not release keys it owes within the allowed time."""

    def __init__(self, seat: int, positions: list[int]) -> None:
        self.positions = positions
        super().__init__(seat, f"did not release its keys for positions {positions} in time")
