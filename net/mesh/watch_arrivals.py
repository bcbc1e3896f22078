"""How often a seat's peer gives a watcher the game so far (`WatchArrivals`): each arrival
costs it the whole transcript (the journal read, every frame queued: about a millisecond
per 900 frames, a whole game's tens of milliseconds), so a watcher that connects and leaves
in a loop could take the seat's time from its own game. A few arrivals per source in a
window, and a few more in all, are served; past them a watcher is refused at once, for
nothing. Refusals are not counted: a flood that is refused does not keep the window full.

No Twisted here: the times are given.
"""

from __future__ import annotations

from collections import deque

WINDOW = 30.0  #: seconds over which arrivals are counted
PER_SOURCE = 3  #: arrivals served from one source (`gate.source_of`) in a window
TOTAL = 32  #: arrivals served in all in a window (four times a seat's watchers)
MAX_SOURCES = 4096  #: sources remembered (then the counts start again: bounded)


class WatchArrivals:
    """The arrivals one peer served lately, per source and in all."""

    def __init__(self, window: float = WINDOW, per_source: int = PER_SOURCE,
                 total: int = TOTAL) -> None:
        self.window = window
        self.per_source = per_source
        self.total = total
        self.recent: deque[float] = deque()  #: when each arrival of the window came
        self.by_source: dict[str, deque[float]] = {}

    def refusal(self, source: str, now: float) -> str | None:
        """Why a watcher from ``source`` is not given the game now (None: it is, and it
        counts)."""
        self._forget(self.recent, now)
        mine = self.by_source.get(source)
        if mine is not None:
            self._forget(mine, now)
        if mine is not None and len(mine) >= self.per_source:
            return (f"you came to watch {len(mine)} times in {self.window:.0f} s; "
                    "try again in a while")
        if len(self.recent) >= self.total:
            return "too many watchers came lately; try again in a while"
        if mine is None:
            if len(self.by_source) >= MAX_SOURCES:
                self.by_source = {s: q for s, q in self.by_source.items()
                                  if q and now - q[-1] < self.window}
                if len(self.by_source) >= MAX_SOURCES:
                    self.by_source.clear()
            mine = self.by_source[source] = deque()
        mine.append(now)
        self.recent.append(now)
        return None

    def _forget(self, times: deque[float], now: float) -> None:
        while times and now - times[0] >= self.window:
            times.popleft()
