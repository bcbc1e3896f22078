"""Which seats this peer has no link with, and why, in words for the screen and the log.

No Twisted here: the node gives the time, since when each seat is without a link, and what
its pair links (an internet table's wormholes, if any) last said of each seat.
"""

from __future__ import annotations

from collections.abc import Mapping

from twisted.logger import Logger

#: Seconds without a link after which a seat is reported unreachable (screen and log).
UNREACHABLE = 3.0

NOT_CONNECTED = "it has not connected to this peer"
NO_ANSWER = "no answer yet from its address"
#: The reasons several seats may share, said of them all (the screen's banner names the
#: seats with one reason once: five seats' same words overflowed its lines).
_OF_SEVERAL = {NOT_CONNECTED: "they have not connected to this peer",
               NO_ANSWER: "no answer yet from their addresses"}


def said_of_several(why: str) -> str:
    """The reason ``why`` (of `Reachability.report`) said of several seats."""
    return _OF_SEVERAL.get(why, why)


class Reachability:
    """One peer's account of its lost links."""

    def __init__(self, log: Logger) -> None:
        self.log = log
        #: Seat -> (address, reason) of the last failed attempt to dial it (until it is up).
        self.dial_errors: dict[int, tuple[str, str]] = {}
        self._told: set[tuple[int, str]] = set()  #: (seat, why) said in the log already
        self._was = False  #: some seat was unreachable at the last look

    def failed(self, seat: int, address: str, reason: str) -> None:
        """An attempt to reach ``seat`` failed (it is tried again with backoff)."""
        self.dial_errors[seat] = (address, reason)

    def up(self, seat: int) -> None:
        self.dial_errors.pop(seat, None)
        self._told = {t for t in self._told if t[0] != seat}

    def report(self, me: int, down_since: Mapping[int, float], now: float,
               paired: Mapping[int, str], after: float = UNREACHABLE) -> dict[int, str]:
        """Seat -> why, for every seat without a link with seat ``me`` for ``after``
        seconds: the address and the last error when this peer dials it, what its pair link
        says (``paired``: seat -> state), else that it has not dialed us (lower seats dial
        higher ones)."""
        out = {}
        for seat, since in sorted(down_since.items()):
            if now - since < after:
                continue
            if seat in self.dial_errors:
                address, reason = self.dial_errors[seat]
                out[seat] = f"cannot reach it at {address}: {reason}"
            elif seat in paired:
                out[seat] = paired[seat]
            elif seat > me:
                out[seat] = NO_ANSWER
            else:
                out[seat] = NOT_CONNECTED
        return out

    def look(self, unreachable: Mapping[int, str]) -> bool:
        """Log each seat's reason once; whether the screen should be redrawn (a table
        waiting on a lost seat sends no frames: without this the screen would say nothing
        about it until a key was pressed, and its seconds count)."""
        for seat, why in unreachable.items():
            if (seat, why) not in self._told:
                self._told.add((seat, why))
                self.log.warn("no link with seat {seat}: {why}", seat=seat, why=why)
        redraw = bool(unreachable) or self._was
        self._was = bool(unreachable)
        return redraw
