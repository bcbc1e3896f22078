"""What the terminal client talks to: one seat at a table, whatever runs the table.

`TableClient` is the whole surface the screens (`cli/screen/app.py`, `cli/screen/plain.py`) use.
`LocalClient` (in-process, the rules core and AI strategies, no network) and
`NetClient` (a seat of a peer-to-peer table, `cli/seat/netclient.py`) implement it, so the
screens are tested without sockets and play the same over the network.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from tractor.actions import Action
from tractor.observation import Observation
from tractor.phases import Decision
from tractor.rules import Rules


@dataclass(frozen=True, slots=True)
class Hint:
    """A suggested move with its one-line reason (`tractor.ai.players.explain.reason`: short,
    and true of the position, e.g. "ruffs: the trick holds 25 points")."""

    action: Action
    reason: str


class TableClient(Protocol):
    seat: int
    rules: Rules
    names: list[str]  #: per seat ("You", "AI 1", ...)
    #: Called (no arguments) after anything changed; the screen redraws. Set by the screen.
    on_change: Callable[[], None] | None

    def observation(self) -> Observation:
        """The seat's view of the current hand (`tractor.hand.Hand.observe`), with the
        game's record: the rules, the hands played before it (``game.hand_no``), the
        winner once the game is over."""
        ...

    def decision(self) -> Decision | None:
        """What the table waits for from this person (the rules core's `Decision`):
        DECLARE (a declaration window is open: declare one of `declaration_options` or
        pass), BURY (choose talon_size cards to bury), PLAY (lead or follow), BID (bid
        points or pass), SHOW (show one card for the starter), NAME (name the trump suit),
        CALL (find-a-friend: the starter calls its friends by card, a `Call`), or None
        (someone else's move)."""
        ...

    def declaration_options(self) -> list[tuple[int, ...]]:
        """The declarations this seat may make now (faces), strongest last; [] if none."""
        ...

    def submit(self, action: Action) -> str | None:
        """Make this seat's move (Declare, Pass, Bury, Play, Bid, Show, NameTrump or Call).
        Returns None when the table took it, or the rules core's reason why it is refused
        (nothing changes)."""
        ...

    def hint(self) -> Action | None:
        """What the AI would do in this seat now (None when there is no decision): the
        search player at the hint level (its thinking capped at about a second,
        `tractor.ai.hosting.hints`); in a declaration window a `Declare` of one of
        `declaration_options`, or `Pass`."""
        ...

    def advice(self) -> Hint | None:
        """`hint` with its reason, for the screen to show both (None when no decision)."""
        ...

    def advisor(self) -> Callable[[], Hint | None] | None:
        """The advice for the position as it is now, to work out later: a function that
        reads only what was taken when it was made, so the screen may run it on another
        thread while the table goes on (a search takes up to a second); None when there
        is no decision."""
        ...

    def chat(self, text: str) -> None:
        """Send a table chat line (signed like a move over the network)."""
        ...

    def events(self) -> list[str]:
        """The log so far, oldest first: plays, trick winners, declarations, chat, results."""
        ...

    def banner(self) -> str | None:
        """Trouble to show prominently (a peer gone, a halt with its verdict), else None."""
        ...

    def summary(self) -> dict[str, Any] | None:
        """After a hand: {"result": HandResult.to_data(), "buried": text or None,
        "levels": [team0, team1] (find-a-friend: one per player; the result then has the
        final "side" and the "gaining" seats), "audit": "4 of 4 peers verified the hand:
        no rule broken" (or the violations), "game_over": bool, "strip": [...]}; None while
        the hand goes on. "strip" is the game so far, one plain-data entry per finished
        hand, this one last (`cli.screen.summary_view.strip_entry`: hand number, starter,
        declaring team, the seat whose declaration set the trump, the trump, the
        defenders' points, the level change and the levels after it; in find-a-friend
        also the side and the gaining seats); a network seat lists the hands of its
        table."""
        ...

    def next_hand(self) -> None:
        """The person has read the summary: go on with the next hand."""
        ...

    def takeback_refusal(self) -> str | None:
        """Why this seat may not take back a play now, in the rules core's words
        (`tractor.takeback`); None: a take-back (`TakeBack`) may be asked now."""
        ...
