"""The hint (i): the client's search player, asked off the screen's thread.

The search takes up to a second, so it runs on a worker thread and the screen and the
table go on meanwhile; Enter pressed while it thinks plays the hint when it comes. A hint
for a position the table has left is dropped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prompt_toolkit.application import Application

from tractor.actions import Action, Bid, Call, NameTrump, Pass
from tractor.ai.players.explain import fit as fit_reason
from tractor.cli.screen import render
from tractor.cli.screen.cards_input import PASS_WORD, selection_text
from tractor.cli.screen.hidden_play import hint_refusal
from tractor.cli.screen.message_line import Notes
from tractor.cli.seat.client import Hint, TableClient
from tractor.friends import format_calls
from tractor.phases import Decision


class HintAsker:
    """Asks for a hint and hands it over (`answered`: the hint, and whether Enter was
    pressed meanwhile) on the screen's thread, if the position is still the one asked
    about."""

    def __init__(self, client: TableClient, notes: Notes,
                 answered: Callable[[Hint, bool], None],
                 screen: Callable[[], Application[Any] | None]) -> None:
        self.client = client
        self.notes = notes
        self._answered = answered
        self._screen = screen  #: the running screen, if any (redrawn when a hint comes)
        self.pending = False  #: a hint is being worked out
        self.accept = False  #: Enter was pressed meanwhile: play the hint when it comes

    def position(self) -> tuple[Any, ...]:
        """What a hint is for: the decision and how far the hand has gone."""
        obs = self.client.observation()
        return (self.client.decision(), render.hand_number(obs), obs.phase, len(obs.tricks),
                len(obs.current), len(obs.declarations), obs.cards_dealt)

    def ask(self) -> None:
        """Ask the search player; on a running screen it thinks on a worker thread."""
        if self.pending:
            self.notes.info = "Hint: still thinking…"
            return
        refused = hint_refusal(self.client.observation(), self.client.decision())
        if refused is not None:
            self.notes.info = refused
            return
        advisor = self.client.advisor()
        if advisor is None:
            self.notes.info = "Nothing for you to decide now."
            return
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        app = self._screen()
        if loop is None or app is None or not app.is_running:
            self._came(advisor, self.position())
            return
        key = self.position()
        self.pending = True
        self.accept = False
        self.notes.info = "Hint: thinking…"
        future = loop.run_in_executor(None, advisor)
        future.add_done_callback(lambda done: self._came(done.result, key))

    def play_when_it_comes(self) -> None:
        """Enter while it thinks: the hint is played as soon as it comes."""
        self.accept = True
        self.notes.info = "Hint: thinking… (it is played when it comes)"

    def _came(self, answer: Callable[[], Hint | None], key: tuple[Any, ...]) -> None:
        """The search answered (on the loop's thread): hand the hint over if the position
        is still the one it was asked about."""
        accept, self.accept, self.pending = self.accept, False, False
        try:
            advice = answer()
        except Exception as exc:
            # A process edge (called by the loop): the search player may fail in any way,
            # and a hint is a courtesy, so its failure is a note, never a broken screen.
            self.notes.info = f"No hint: {exc}"
            advice = None
        else:
            if key != self.position():
                if self.notes.info.startswith("Hint"):
                    self.notes.info = ""
                advice = None  # the table moved on meanwhile: the hint is for another move
            elif advice is None:
                self.notes.info = "Nothing for you to decide now."
        try:
            if advice is not None:
                self._answered(advice, accept)
        except Exception as exc:
            # A process edge (called by the loop, not by a key): playing the hint failing
            # becomes a message, as a key's failure does (`bindings`).
            self.notes.error = f"error: {exc}"
        app = self._screen()
        if app is not None:
            app.invalidate()


@dataclass(frozen=True)
class HintShown:
    """How a hint shows: the text put in the input line (None: the input stays as it is),
    the card the cursor goes to (None: it stays; a card also clears the error), and the
    note saying what the hint is and why."""

    typed: str | None
    note: str
    cursor_on: int | None = None


def hint_shown(action: Action, why: str, decision: Decision | None) -> HintShown:
    """How the hint ``action`` (for the reason ``why``) shows at ``decision``: on the
    message line, one line, so a long reason is cut (`--plain` prints it whole)."""
    because = f" — {fit_reason(why)}" if why else ""
    if isinstance(action, Pass):  # a bid, a declaration or the theft window: all take Enter
        return HintShown(PASS_WORD, f"Hint: pass{because} (Enter to accept)")
    if isinstance(action, Call):
        calls = ", ".join(str(c) for c in action.calls)
        return HintShown(format_calls(action.calls),
                         f"Hint: call {calls}{because} (Enter to accept)")
    if isinstance(action, (Bid, NameTrump)):
        typed = str(action.points) if isinstance(action, Bid) else (action.suit or "0")
        return HintShown(typed, f"Hint: {typed}{because} (Enter to accept)")
    faces = getattr(action, "faces", None)
    if not faces:
        return HintShown(None, f"Hint: {action}{because}")
    return HintShown(selection_text(faces) + " ",
                     f"Hint: {render.cards_label(list(faces))}{because} (Enter to accept)",
                     faces[0])
