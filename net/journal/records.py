"""The journal's records of a game, as plain values: what it takes and what it gives back.

Nothing here knows a session: the table code (`net.table.journaled`) makes a `GameStart`
from its `GameSession` and rebuilds one from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tractor.rules import Rules

#: The shuffle proof this version's deck protocol carries (one linear proof per shuffle).
LINEAR = "linear"
#: The shuffle proof of protocol tractor-deck/1 (shadow decks, cut and choose): this version
#: can neither resume nor replay a game of it.
CUT_AND_CHOOSE = "cut-and-choose"


@dataclass(frozen=True)
class GameStart:
    """What a crash must not lose of a game's start: with the frames, enough to rebuild
    this seat's session. Keys are raw Ed25519 bytes (32 each)."""

    seat: int
    identity: bytes  #: this seat's private key
    master_seed: bytes  #: where this seat's secrets of every hand come from
    rules: Rules
    table: bytes
    public_keys: tuple[bytes, ...]  #: every seat's, by seat
    first: int  #: the first drawer of the first hand


@dataclass(frozen=True)
class GameRecord:
    """A game as `tractor history` lists it."""

    id: str
    seat: int
    rules: Rules
    table: bytes
    created: float
    finished: bool  #: it will not go on here (won, halted, or gone on at a new table)
    #: The seats that won it, by seat; None: not recorded (it goes on, it ended without a
    #: winner, or a tractor before journal layout 4 recorded it).
    winners: tuple[int, ...] | None = None


@dataclass(frozen=True)
class HandRecord:
    """A scored hand as the journal keeps it: its result (`HandResult.to_data`) and the
    seats that declared it (None: not recorded, before journal layout 4)."""

    result: dict[str, Any]
    declaring: tuple[int, ...] | None
