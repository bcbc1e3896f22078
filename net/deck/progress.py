"""`Progress`: where the deck protocol stands (its `DeckStep`, and whose shuffle or lock is
due), and where each kind of message belongs in it, so a message that comes early waits and
one that comes late is refused.

The steps follow one another: every seat shuffles in seat order (SHUFFLE), then locks in
seat order (LOCK); then the deck is READY to be dealt and played, and DONE once every seat
released all its keys for the audit. (A hand's phases are `tractor.phases.Phase`: while the
deck is shuffled and locked the table is in SETUP, and its AUDIT ends with the deck DONE.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum


class DeckStep(StrEnum):
    """Where the deck protocol stands (not a hand's phase). Members equal their names as
    text (``DeckStep.READY == "ready"``)."""

    SHUFFLE = "shuffle"  #: the seats shuffle in seat order
    LOCK = "lock"  #: the seats lock in seat order
    READY = "ready"  #: to be dealt and played
    DONE = "done"  #: every seat released all its keys for the audit


#: Where a message of the deal and the play belongs (`Progress.slot`): those are judged in
#: the order they come, once the deck is ready.
_PLAY = (3,)


@dataclass
class Progress:
    """The protocol's position at one peer: the ``phase`` (its `DeckStep`), and the seat
    whose shuffle or lock is under way (the ``step``)."""

    seats: int
    phase: DeckStep = DeckStep.SHUFFLE
    step: int = 0

    def now(self) -> tuple[int, ...]:
        """Where the protocol stands, comparable with `slot`."""
        s = self.step
        return {DeckStep.SHUFFLE: (1, s), DeckStep.LOCK: (2, s), DeckStep.READY: _PLAY,
                DeckStep.DONE: (4,)}[self.phase]

    def slot(self, kind: str, seat: int) -> tuple[int, ...]:
        """Where a message belongs in the protocol (its sender's next message of that
        kind). A table message goes with whatever comes before it once the deck is ready,
        and with the verdicts after the audit."""
        if kind == "shuffle":
            return (1, seat)
        if kind == "lock":
            return (2, seat)
        if kind == "verdict":
            return (4,)
        if kind == "app" and self.phase in (DeckStep.READY, DeckStep.DONE):
            return self.now()
        return _PLAY

    def when(self, kind: str, seat: int, play_ready: Callable[[], bool]) -> int:
        """-1: too late (out of turn), 0: now, 1: later. A message of the play is due only
        once ``play_ready()`` says it has what it builds on here."""
        slot, now = self.slot(kind, seat), self.now()
        if slot != now:
            return 1 if slot > now else -1
        if slot == _PLAY:
            return 0 if play_ready() else 1
        return 0

    def shuffled(self, seat: int) -> None:
        """``seat``'s shuffle was applied: the next seat shuffles, or the first one locks."""
        if seat + 1 < self.seats:
            self.step = seat + 1
        else:
            self.phase, self.step = DeckStep.LOCK, 0

    def locked(self, seat: int) -> None:
        """``seat``'s lock was applied: the next seat locks, or the deck is ready."""
        if seat + 1 < self.seats:
            self.step = seat + 1
        else:
            self.phase = DeckStep.READY

    def opened(self) -> None:
        """Every seat's audit keys were applied: the whole deck is open."""
        self.phase = DeckStep.DONE

    @property
    def setting_up(self) -> bool:
        """Whether the shuffles or the locks are still under way."""
        return self.phase in (DeckStep.SHUFFLE, DeckStep.LOCK)
