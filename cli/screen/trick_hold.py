"""The trick just finished stays on the table a moment (`TRICK_PACE`), with its ``won``
mark, even when the next trick is led at once.

At a practice table the AI seats answer in no time: after the person's play the last
seat's card, the winner's next lead and the follows up to the person's next turn all
land in one redraw, and the finished trick was never seen. `TrickHold` keeps showing
it (the table pane only: the status bar, the message line and the hand are the table as
it is) until a pace has passed or the person presses a key, as a card table leaves a
trick face up until everyone has looked. The deal has its pace too (``--deal-pace``,
`cli.seat.human`); this one only changes what the screen shows, never the table.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from tractor.cli.screen.render import hand_number
from tractor.observation import Observation
from tractor.phases import Phase

#: Seconds a finished trick stays on the table when the next one is led at once.
TRICK_PACE = 1.5


class TrickHold:
    """Whether the table pane shows the trick just finished rather than the next one."""

    def __init__(self, pace: float = TRICK_PACE,
                 now: Callable[[], float] = time.monotonic) -> None:
        self.pace = pace
        self.now = now
        self._seen: tuple[int, int] | None = None  #: (hand, tricks finished) at the last look
        self._held = 0  #: the number of the trick held (from 1)
        self._until = 0.0
        self._in_key = False  #: a key is acting now (`key_starts`)
        #: The hold began while a key acted (the person's own play ended the trick): that
        #: key does not release it, the next one does.
        self._by_key = False

    def look(self, obs: Observation) -> bool:
        """Follow the table; True when a trick has just finished and is now held (the
        screen redraws after `pace`)."""
        seen, self._seen = self._seen, (hand_number(obs), len(obs.tricks))
        finished = seen is not None and seen[0] == self._seen[0] and len(obs.tricks) > seen[1]
        if not finished or self.pace <= 0 or obs.phase != Phase.PLAY:
            return False
        self._held, self._until = len(obs.tricks), self.now() + self.pace
        self._by_key = self._in_key
        return True

    def key_starts(self) -> None:
        """Before a key acts."""
        self._in_key = True

    def key_pressed(self) -> None:
        """After a key acted: unless its own play ended the trick held, the person has
        looked and the table shows where it stands."""
        if not self._by_key:
            self._until = 0.0
        self._in_key = self._by_key = False

    def shown(self, obs: Observation) -> Observation:
        """What the table pane shows: ``obs``, or while a trick is held, ``obs`` with the
        next trick's cards left out (the finished trick then shows, marked won)."""
        if self.now() >= self._until or not obs.current or len(obs.tricks) != self._held:
            return obs
        return replace(obs, current=(), current_attempt=None)
