"""The play screen's state around one client, and what its keys do (`PlayView`).

The parts each have a module of their own: the hand's cursor and the input line that is
the selection (`selection`), the panel in the table's place (`panels`), the message line
and its notes (`message_line`), the quit question (`quitting`), the hint (`hints`), the
chat line (`chat`), the move typed text makes (`moves`). `PlayView` puts them together:
it follows the table as it moves (`sync`) and turns keys into moves. The key bindings
(`bindings`) call it; the layout (`layout`) draws it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from prompt_toolkit.application import Application

from tractor.actions import Action, Declare, Pass, TakeBack
from tractor.cli.screen import render
from tractor.cli.screen.chat import ChatLine
from tractor.cli.screen.hints import HintAsker, hint_shown
from tractor.cli.screen.message_line import MessageLine, Notes
from tractor.cli.screen.moves import typed_move
from tractor.cli.screen.panels import Panels
from tractor.cli.screen.quitting import QuitQuestion
from tractor.cli.screen.selection import HandSelection
from tractor.cli.screen.trick_hold import TrickHold
from tractor.cli.seat.client import Hint, TableClient
from tractor.observation import Observation
from tractor.phases import Decision


class PlayView:
    """The screen's state around one client: cursor, selection text, panel, messages.

    Its methods are what the keys do; the tests drive them through the keys and read the
    state here rather than the rendered bytes.
    """

    def __init__(self, client: TableClient) -> None:
        self.client = client
        self.app: Application[Any] | None = None
        self.notes = Notes()
        self.hand_line = HandSelection(client)
        self.input = self.hand_line.input  #: the input line (a prompt_toolkit Buffer)
        self.panels = Panels(client)
        self.quitting = QuitQuestion()
        self.chat = ChatLine()
        self.hints = HintAsker(client, self.notes, self._take_hint, lambda: self.app)
        self.message_line = MessageLine(client, self.notes, self.quitting, self.input)
        self.trick_hold = TrickHold()
        # What the table showed at the last `sync`: a change opens or closes a panel,
        # and a new decision clears the messages about the last one.
        self._last_decision: str | None = None
        self._last_turn: tuple[Any, ...] | None = None
        self._summary_shown = False
        self.sync()

    # --- the state, as the tests and the bindings read it -----------------------------------

    @property
    def cursor(self) -> int:
        return self.hand_line.cursor

    @property
    def error(self) -> str:
        return self.notes.error

    @error.setter
    def error(self, text: str) -> None:
        self.notes.error = text

    @property
    def info(self) -> str:
        return self.notes.info

    @info.setter
    def info(self, text: str) -> None:
        self.notes.info = text

    @property
    def panel(self) -> str | None:
        """The panel in the table's place (None: the table shows)."""
        return self.panels.current

    @panel.setter
    def panel(self, panel: str | None) -> None:
        self.panels.current = panel

    @property
    def panel_top(self) -> int:
        return self.panels.pages.top

    @property
    def log_back(self) -> int:
        return self.panels.log.back

    @property
    def hint_pending(self) -> bool:
        return self.hints.pending

    @property
    def quit_pending(self) -> bool:
        return self.quitting.pending

    @property
    def quit_requested(self) -> bool:
        return self.quitting.requested

    @property
    def chatting(self) -> bool:
        return self.chat.chatting

    def obs(self) -> Observation:
        return self.client.observation()

    def hand(self) -> list[int]:
        """The hand in display order (the cursor's positions)."""
        return self.hand_line.hand()

    def selected_positions(self) -> set[int]:
        return self.hand_line.selected_positions()

    def selection(self) -> list[int]:
        """The selected faces; raises `SelectionError` for text that is not a selection."""
        return self.hand_line.selection()

    def typing(self) -> bool:
        return self.hand_line.typing()

    def panel_text(self, width: int = 80, height: int = 16) -> str:
        return self.panels.text(width, height)

    def message_fragments(self, width: int = 80) -> list[Any]:
        return self.message_line.fragments(width)

    # --- reacting to the table -------------------------------------------------------------

    def sync(self) -> None:
        """Follow a change of the table: open the summary or the declaration panel when they
        become due, and keep the cursor on the hand."""
        self.hand_line.keep_on_hand()
        decision = self.client.decision()
        summary = self.client.summary()
        if summary is not None and not self._summary_shown:
            self._summary_shown = True
            self.panel = "summary"
            self.input.reset()
        elif summary is None and self._summary_shown:
            self._summary_shown = False
            if self.panel == "summary":
                self.panel = None
        if decision != self._last_decision:
            if decision == Decision.DECLARE and self.panel is None:
                self.panel = "declare"
            elif decision != Decision.DECLARE and self.panel == "declare":
                self.panel = None
        obs = self.obs()
        turn = (decision, render.hand_number(obs), obs.phase, len(obs.tricks),
                len(obs.current))
        if turn != self._last_turn and decision is not None:
            # A message about an earlier move is stale now ("You passed." stood in the
            # place of the instruction to follow).
            self.error = ""
            if not self.hints.pending:
                self.info = ""
        self._last_decision = decision
        self._last_turn = turn
        if self.trick_hold.look(obs):
            self._redraw_after(self.trick_hold.pace)

    def _redraw_after(self, seconds: float) -> None:
        """Draw again when ``seconds`` have passed (a held trick's pace is over)."""
        if self.app is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop running (a test drives the view alone): no redraw
            return
        loop.call_later(seconds + 0.01, lambda: self.app.invalidate() if self.app else None)

    def changed(self) -> None:
        """The client's on_change: redraw (called on the loop's thread)."""
        try:
            self.sync()
        except Exception as exc:
            # A process edge: the table's callback into the screen. Whatever went wrong
            # becomes a line on screen, never a traceback over the game.
            self.error = f"error: {exc}"
        if self.app is not None:
            self.app.invalidate()

    # --- moves -----------------------------------------------------------------------------

    def enter(self) -> None:
        """Enter: play, bury or declare the selection (or go on after the summary)."""
        if self.hints.pending and not self.input.text:
            self.hints.play_when_it_comes()
            return
        if self.client.summary() is not None:
            self.next_hand()
            return
        decision = self.client.decision()
        if decision is None:
            self.error = "It is not your turn."
            return
        typed = self.input.text.strip()
        if decision == Decision.DECLARE and typed.isdigit():  # the number of an offer, typed
            self.declare_option(int(typed) - 1)
            return
        move = typed_move(decision, self.input.text, self.client.seat, self.hand(), self.obs())
        if move is None:
            self.panel = "declare"
        elif isinstance(move, str):
            self.error = move
        else:
            self.send(move)

    def send(self, action: Action) -> bool:
        """Submit to the table; a refusal stays on screen with the typed selection."""
        reason = self.client.submit(action)
        if reason:
            self.error = reason
            return False
        self.clear()
        if self.panel == "declare":
            self.panel = None
        self.sync()
        return True

    def clear(self) -> None:
        self.hand_line.place("")
        self.notes.clear()

    def complete(self, step: int = 1) -> None:
        note = self.hand_line.complete(step)
        if note is not None:
            self.info = note

    def declare_option(self, index: int) -> None:
        options = self.client.declaration_options()
        if not 0 <= index < len(options):
            self.error = "No such declaration."
            return
        self.send(Declare(self.client.seat, tuple(options[index])))

    def pass_declaration(self) -> None:
        if self.client.decision() == Decision.BID:
            if self.send(Pass(self.client.seat)):
                self.info = "You passed: you are out of the auction."
            return
        if self.client.decision() != Decision.DECLARE:
            self.error = "There is no declaration to pass on now."
            return
        if self.send(Pass(self.client.seat)):
            self.info = "You passed."

    def take_back(self) -> None:
        """u: take back this seat's last play (`Rules.takebacks`); a refusal says why."""
        reason = self.client.submit(TakeBack(self.client.seat))
        if reason:
            self.error = reason
            return
        self.info = "Take-back asked: it stands unless the next seat has played."
        self.sync()

    def open_declare(self) -> None:
        if self.client.decision() != Decision.DECLARE and not self.client.declaration_options():
            self.info = "You have no declaration to make now."
            return
        self.panel = "declare"

    def next_hand(self) -> None:
        summary = self.client.summary()
        if summary is None:
            self.info = "The hand is not over."
            return
        if summary.get("game_over"):
            self.info = "The game is over: Ctrl-Q quits."
            return
        self.panel = None
        self.client.next_hand()
        self.sync()

    # --- the hint --------------------------------------------------------------------------

    def hint(self) -> None:
        """Ask the client's search player, and preselect its move with its reason (Enter
        pressed while it thinks plays it when it comes: `HintAsker`)."""
        self.hints.ask()

    def _take_hint(self, advice: Hint, accept: bool) -> None:
        """A hint came: show it, and play it if Enter was pressed while it was worked out."""
        shown = hint_shown(advice.action, advice.reason, self.client.decision())
        if shown.typed is not None:
            self.hand_line.place(shown.typed)
        if shown.cursor_on is not None:
            self.hand_line.point_at(shown.cursor_on)
            self.error = ""
        self.info = shown.note
        if accept:
            if isinstance(advice.action, Pass) and self.client.decision() == Decision.DECLARE:
                self.pass_declaration()
            else:
                self.enter()

    # --- panels, quitting, chat ------------------------------------------------------------

    def show(self, panel: str) -> None:
        """Open an information panel, or close it when it is open."""
        self.panels.show(panel)

    def close_panel(self) -> None:
        self.panels.close()

    def ask_quit(self, key: str = "Ctrl-Q") -> None:
        """Ctrl-Q (or Ctrl-C, ``key``): the first asks, the second quits (the game stays
        in the journal)."""
        summary = self.client.summary()
        game_over = summary is not None and bool(summary.get("game_over"))
        if self.quitting.press(key, game_over) and self.app is not None:
            self.app.exit()

    def key_pressed(self) -> None:
        """After every key: a key other than the one that asked takes the question back,
        and a finished trick held on the table gives way to the next."""
        self.quitting.key_pressed()
        self.trick_hold.key_pressed()

    def start_chat(self) -> None:
        self.chat.start()
        self.focus()  # now: the keys typed right after m are chat, even before a redraw

    def send_chat(self) -> None:
        text = self.chat.stop()
        self.focus()
        if text:
            self.client.chat(text)
            self.info = "Said it."

    def cancel_chat(self) -> None:
        self.chat.stop()
        self.focus()

    def focus(self) -> None:
        """Keys go to the chat line while chatting, else to the card input."""
        target = self.chat.buffer if self.chat.chatting else self.input
        if self.app is not None and self.app.layout.current_buffer is not target:
            self.app.layout.focus(target)
