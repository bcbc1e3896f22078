"""Where this peer stands in a hand's lock-step schedule (`net.table.hand` lists the steps)."""

from __future__ import annotations

from tractor.phases import Phase


class Schedule:
    """The schedule's step (``phase``: a `Phase`, from SETUP through the draw rounds, each
    DEAL then a DECLARE window, and the rest of the hand to AUDIT and DONE, or REDEAL; the
    rules' own phase is the `PublicHand`'s), the draw round, and the moves this peer made
    (each is made once)."""

    def __init__(self) -> None:
        self.phase = Phase.SETUP
        self.round = 0
        self.done: set[str] = set()  #: own moves made, by name ("window3", "bury" ...)

    def made(self, move: str) -> bool:
        return move in self.done

    def mark(self, move: str) -> None:
        self.done.add(move)

    def once(self, move: str) -> bool:
        """True the first time ``move`` is asked for (it is then made), False after."""
        if move in self.done:
            return False
        self.done.add(move)
        return True
