"""Seats this machine is bringing back itself, not told as lost while they start.

`tractor resume` of a practice (or LAN host's) table starts its AI seats again from their
journals, and a practice game starts again an AI peer that died. Each is a new process
that must start Python, replay its journal and listen before the person's seat can reach
it: seconds on a loaded machine. Meanwhile the node finds the seat unreachable
("Connection refused") and the screen would warn that the hand ends without it, about a
seat that is coming back and that the person can do nothing about. So such a seat is
waited for quietly, until it links, its process dies, or `RESTART_BOUND` passes; then it
is told as any seat would be (it truly did not come).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: Seconds a restarting AI seat of this machine is waited for before its missing link is
#: told (a child's start, replay and listen take a few seconds, more under load).
RESTART_BOUND = 30.0


class ReturningSeats:
    """The seats of ``node`` this machine restarts, and until when each is waited for."""

    def __init__(self, node: Any) -> None:
        self.node = node
        self._waiting: dict[int, tuple[float, Callable[[], bool]]] = {}

    def expect(self, seat: int, alive: Callable[[], bool],
               bound: float = RESTART_BOUND) -> None:
        """``seat`` is being started again here; ``alive()`` says whether its process
        still runs (a dead one is told at once)."""
        self._waiting[seat] = (self.node.clock.seconds() + bound, alive)

    def waiting(self) -> set[int]:
        """The seats still quietly waited for: not linked yet, their process running, the
        bound not passed. A seat that stops being waited for is forgotten: a link it
        loses later is told as any other's."""
        now = self.node.clock.seconds()
        for seat, (until, alive) in list(self._waiting.items()):
            link = self.node.links.get(seat)
            if (link is not None and link.up) or now >= until or not alive():
                del self._waiting[seat]
        return set(self._waiting)

    def unreachable(self) -> dict[int, str]:
        """`PeerNode.unreachable` without the seats still on their way back."""
        quiet = self.waiting()
        return {seat: why for seat, why in self.node.unreachable().items()
                if seat not in quiet}
