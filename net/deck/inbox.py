"""`TableInbox`: the table messages (a declaration, a play, a chat line ...) this peer
accepted, in order, for the table to read; bounded in all and per seat.

They travel as deck messages (``app``), signed and chained like every other, so every
peer orders them the same way against the deal and the shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tractor.net.table.messages import TableMessage

from .errors import BadMessage
from .holdings import MAX_APP_PER_SEAT

MAX_INBOX = 4096  #: table messages kept for the table to read


@dataclass
class TableInbox:
    """(seat, message, its message number) in the order this peer accepted them; per
    seat they keep the sender's order. The table pops them."""

    counts: list[int]  #: table messages each seat sent in this hand
    messages: list[tuple[int, TableMessage, int]] = field(default_factory=list)

    def on_app(self, seat: int, body: dict[str, Any], seq: int) -> None:
        data = body["data"]  # typed as it arrived (`engine._opened`)
        self.counts[seat] += 1
        if len(self.messages) >= MAX_INBOX or self.counts[seat] > MAX_APP_PER_SEAT:
            self.counts[seat] -= 1
            raise BadMessage(seat, "too many table messages")
        self.messages.append((seat, data, seq))
