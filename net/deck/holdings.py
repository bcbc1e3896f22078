"""What one seat's frames of one hand make this peer hold, bounded seat by seat.

A frame costs what keeping it takes (`Envelope.held`: its signed content as received and
as re-encoded, and its decoded header and body, an upper bound; all computed from the
content, so every peer counts a frame the same however a relay encoded it).

- Frames waiting for their turn (a seat may run ahead with its chat and moves; a frame
  lost with a link leaves a gap): at most `MAX_AHEAD` messages past those applied,
  `MAX_AHEAD_BYTES` of frames (the journal keeps them as they come) and `AHEAD_HELD`
  held. Beyond, a frame is refused unread (`NoRoom`), blaming nobody: what waits depends
  on what arrived when, and a peer that is further on applies it.
- Frames applied: at most `CHAIN_BYTES` of signed content (the seat's share of this
  hand's journal) and `CHAIN_HELD` held. Beyond, the frame is the seat's `BadMessage`:
  every peer applies the same chain in the same order, so every honest peer refuses the
  same frame, and halts naming the seat with that signed frame as evidence.

So one seat makes this peer hold at most ``AHEAD_HELD + CHAIN_HELD`` = 32 MiB for one
hand's deck; a session keeps two decks live (the hand played and the next one, shuffled
meanwhile): 64 MiB a seat. An honest seat's hand at the largest table (12 seats, 6 decks)
takes about a twentieth of each chain bound: 190 KB of frames, 1.2 MB held (measured on a
whole hand played between 12 in-memory peers).
"""

from __future__ import annotations

from dataclasses import dataclass

from .envelope import Envelope, NoRoom
from .errors import BadMessage

MAX_APP_PER_SEAT = 1024  #: table messages one seat may send in a hand
#: Messages of one seat kept past those applied, until their turn.
MAX_AHEAD = MAX_APP_PER_SEAT + 256
MAX_AHEAD_BYTES = 4 << 20  #: bytes of one seat's frames kept until their turn
AHEAD_HELD = 8 << 20  #: what one seat's frames waiting for their turn may hold
#: Signed content of one seat's applied frames in one hand: what the journal keeps of it.
#: An honest seat sends about 190 KB in a hand at the largest table (12 seats, 6 decks:
#: its lock alone is 78 KB); 4 MiB leaves room besides for every table message it may
#: send (`MAX_APP_PER_SEAT` of them, each at most a chat line of 280 characters: 1.6 MB).
CHAIN_BYTES = 4 << 20
CHAIN_HELD = 24 << 20  #: what one seat's applied frames of one hand may hold


def _amount(size: int) -> str:
    return f"{size >> 20} MiB" if size >= 1 << 20 else f"{size} bytes"


@dataclass
class SeatLoads:
    """What each seat's applied frames of one hand hold here, and the checks of the bounds
    (see the module docstring)."""

    content: list[int]  #: signed bytes of each seat's applied frames
    held: list[int]  #: what they hold

    @classmethod
    def empty(cls, seats: int) -> SeatLoads:
        return cls([0] * seats, [0] * seats)

    @staticmethod
    def make_room(env: Envelope, waiting: dict[int, Envelope], loaded: set[int],
                  applied: int) -> None:
        """Refuse ``env`` (`NoRoom`) if keeping it until its turn passes a bound: beside
        the seat's ``waiting`` frames (by number; those in ``loaded`` came back from this
        peer's journal and do not count: they were accepted before) and ``applied``
        frames."""
        seat, seq = env.seat, env.header.seq
        if seq >= applied + MAX_AHEAD:
            raise NoRoom(f"message {seq} is too far ahead of this peer", seat)
        fresh = [e for q, e in waiting.items() if q not in loaded]
        if sum(len(e.frame) for e in fresh) + len(env.frame) > MAX_AHEAD_BYTES:
            raise NoRoom(f"more than {_amount(MAX_AHEAD_BYTES)} of its messages wait here",
                         seat)
        if sum(e.held for e in fresh) + env.held > AHEAD_HELD:
            raise NoRoom(f"its messages waiting here would hold more than "
                         f"{_amount(AHEAD_HELD)}", seat)

    def check(self, env: Envelope) -> None:
        """Raise the seat's `BadMessage` if applying ``env`` passes a bound of its chain."""
        seat = env.seat
        if self.content[seat] + len(env.content) > CHAIN_BYTES:
            raise BadMessage(seat, f"its messages of this hand pass {_amount(CHAIN_BYTES)} "
                                   "(the journal's bound for one seat)")
        if self.held[seat] + env.held > CHAIN_HELD:
            raise BadMessage(seat, f"its messages of this hand would make this peer hold "
                                   f"more than {_amount(CHAIN_HELD)}")

    def add(self, env: Envelope) -> None:
        """Count ``env``, applied."""
        self.content[env.seat] += len(env.content)
        self.held[env.seat] += env.held
