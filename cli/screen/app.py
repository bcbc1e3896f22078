"""The full-screen terminal client: a prompt_toolkit `Application` on a `TableClient`.

The screen is the table (left) and the event log (right) above the hand, a message line,
the selection input and a key bar. The input line *is* the selection: typing cards and
pressing Space on the hand cursor edit the same text, so both ways of choosing agree and
an illegal play stays where it was typed, with the rules core's reason under it. The
command letters (``e i l o g m n p ?``) act while nothing is being typed (the input empty,
or holding only what the hint or Space selected): once the person types, every key is
text. Tab completes the card being typed from the cards held (when
following, those that can follow), its choices listed in the message line, never over
the hand. Panels (help, tracker, last trick, log, declarations, hand summary) take the
table's place and keep the hand in view.

Run it with ``await run_app(client)`` on the asyncio loop (the Twisted asyncio reactor
included, see ENGINEERING-NOTES.md); never ``app.run()`` inside a running loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.buffer import Buffer, CompletionState
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition, has_completions
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import (
    ConditionalContainer,
    Dimension,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.layout.screen import Char, Screen, WritePosition
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import Style

from tractor.actions import Action, Bid, Bury, Declare, NameTrump, Pass, Play, Show
from tractor.cli.screen import render, table_view
from tractor.cli.screen.cards_input import (
    HandCompleter,
    SelectionError,
    auction_answer,
    parse_partial,
    parse_selection,
    selection_text,
    toggle_in_text,
)
from tractor.cli.screen.panes import FittedText, cannot_show
from tractor.cli.seat.client import BID, BURY, DECLARE, NAME, PLAY, SHOW, Hint, TableClient
from tractor.observation import Observation
from tractor.rules import Rules

#: Every key of the play screen, for the help panel and the README.
KEYS: list[tuple[str, str]] = [
    ("← →", "move along your hand"),
    ("↑ ↓", "previous / next suit row"),
    ("Space", "select card under cursor"),
    ("type", "cards: AS AS, 10h, ♠A, BJ"),
    ("Tab", "complete the typed card"),
    ("Enter", "play / bury / declare"),
    ("Bksp", "delete typed text"),
    ("Esc", "clear selection, close"),
    ("e", "declarations you may make"),
    ("p", "pass; at a bid: p Enter"),
    ("85 Enter", "auction: bid 85 points"),
    ("H Enter", "auction: trump (0 = none)"),
    ("i", "hint: preselect AI's move"),
    ("l", "last trick"),
    ("o", "cards still out (tracker)"),
    ("g", "whole event log"),
    ("PgUp PgDn", "scroll the log (g)"),
    ("m", "chat: say something"),
    ("n", "next hand (after summary)"),
    ("?", "this help"),
    ("Ctrl-Q", "quit (asks first)"),
]

#: The keys of the auction variant only (not listed at a table that declares by revealing).
AUCTION_KEYS = {"85 Enter", "H Enter"}


def keys_for(rules: Rules | None) -> list[tuple[str, str]]:
    """The keys that work at a table of ``rules`` (every key when they are not known)."""
    if rules is None or rules.declaration == "auction":
        return list(KEYS)
    return [(key, what) for key, what in KEYS if key not in AUCTION_KEYS]


#: What the marks at the table mean (the help panel, the README).
LEGEND = ("At the table: ▶ the seat to play · ★ the starter · led / won: the trick's "
          "leader and the winner of the trick just played · in your hand, + a card from "
          "the talon (while you bury).")

#: What the first Ctrl-Q (or Ctrl-C) asks (the message line), naming the key pressed.
QUIT_PLAIN = "Quit? {key} again leaves. Any other key goes on."
QUIT_QUESTION = ("Quit? {key} again leaves; your game is saved and `tractor resume` "
                 "continues it. Any other key goes on.")

_COLORS = {
    "status": "reverse bold",
    "keys": "reverse",
    "banner": "bg:ansired fg:ansiwhite bold",
    "card.red": "fg:ansired",
    "selected": "reverse",
    "cursor": "underline bold",
    "cursor-mark": "bold",
    "selected-mark": "bold",
    "talon": "bold fg:ansigreen",
    "error": "fg:ansired bold",
    "info": "fg:ansicyan",
    "dim": "fg:ansibrightblack",
    "me": "bold",
    "turn": "bold fg:ansiyellow",
    "trump": "bold fg:ansimagenta",
    "points": "bold",
    "label": "bold",
    "header": "underline",
    "warn": "fg:ansired",
    "separator": "fg:ansibrightblack",
    "panel.title": "bold underline",
}
_MONO = {
    "status": "reverse bold", "keys": "reverse", "banner": "reverse bold",
    "selected": "reverse", "cursor": "underline bold", "cursor-mark": "bold",
    "selected-mark": "bold", "talon": "bold", "error": "bold", "me": "bold", "turn": "bold",
    "trump": "bold",
    "points": "bold", "label": "bold", "header": "underline", "panel.title": "bold underline",
}

class PlayView:
    """The screen's state around one client: cursor, selection text, panel, messages.

    Its methods are what the keys do; the tests drive them through the keys and read the
    state here rather than the rendered bytes.
    """

    def __init__(self, client: TableClient) -> None:
        self.client = client
        self.cursor = 0
        self.error = ""  #: a refusal or a mistake: shown under the input, input kept
        self.info = ""  #: a neutral note (a hint, a chat sent)
        self.panel: str | None = None
        self.chatting = False
        self.quit_requested = False
        #: The first Ctrl-Q asks; a second one quits, any other key takes the question back.
        self.quit_pending = False
        self.quit_key = "Ctrl-Q"  #: the key that asked: the question names it
        self._quit_asked_now = False
        #: A hint is being worked out; Enter meanwhile plays it when it comes.
        self.hint_pending = False
        self.accept_hint = False
        #: The first line shown of a panel taller than its window, and which panel it was.
        self.panel_top = 0
        self.panel_page = 10  #: the lines of a page at the panel's last drawing
        self._panel_seen: str | None = None
        self._last_decision: str | None = None
        self._last_turn: tuple[Any, ...] | None = None
        self._summary_shown = False
        self.app: Application[Any] | None = None
        #: The log panel's scroll: lines back from the newest; and its page and line count
        #: at its last drawing (what PgUp/PgDn move by, how far back there is).
        self.log_back = 0
        self._log_page = 10
        self._log_lines = 0
        self.completer = HandCompleter(self.hand, self.follow_allowed)
        # Completion only when asked (Tab): a menu popping up while typing covered the hand.
        self.input = Buffer(completer=self.completer, complete_while_typing=False,
                            multiline=False)
        #: The input's text as the screen last set it (a hint, a Space selection): while
        #: it is unchanged nothing is being typed, so the command letters still act.
        self._placed = ""
        self.chat_buffer = Buffer(multiline=False)
        self.sync()

    # --- reading the client ----------------------------------------------------------------

    def obs(self) -> Observation:
        return self.client.observation()

    def hand(self) -> list[int]:
        """The hand in display order (the cursor's positions)."""
        return render.hand_order(self.obs())

    def selected_positions(self) -> set[int]:
        """Positions of the hand named by the input text (each typed card takes the first
        copy not yet taken)."""
        faces, _bad = parse_partial(self.input.text)
        hand = self.hand()
        taken: set[int] = set()
        for face in faces:
            for pos, f in enumerate(hand):
                if f == face and pos not in taken:
                    taken.add(pos)
                    break
        return taken

    def selection(self) -> list[int]:
        """The selected faces; raises `SelectionError` for text that is not a selection."""
        return parse_selection(self.input.text, self.hand())

    def follow_allowed(self, typed: list[int]) -> set[int] | None:
        """When following: the cards that can still go with ``typed`` into a legal follow
        (the rules core decides); None (every card held) when leading, burying, declaring."""
        return render.follow_allowed(self.obs(), self.client.decision() == PLAY, self.hand(),
                                     typed)

    # --- reacting to the table -------------------------------------------------------------

    def sync(self) -> None:
        """Follow a change of the table: open the summary or the declaration panel when they
        become due, and keep the cursor on the hand."""
        n = len(self.hand())
        self.cursor = max(0, min(self.cursor, n - 1))
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
            if decision == DECLARE and self.panel is None:
                self.panel = "declare"
            elif decision != DECLARE and self.panel == "declare":
                self.panel = None
        obs = self.obs()
        turn = (decision, render.hand_number(obs), obs.phase, len(obs.tricks),
                len(obs.current))
        if turn != self._last_turn and decision is not None:
            # A message about an earlier move is stale now ("You passed." stood in the
            # place of the instruction to follow).
            self.error = ""
            if not self.hint_pending:
                self.info = ""
        self._last_decision = decision
        self._last_turn = turn

    def changed(self) -> None:
        """The client's on_change: redraw (called on the loop's thread)."""
        try:
            self.sync()
        except Exception as exc:  # never a traceback on screen
            self.error = f"error: {exc}"
        if self.app is not None:
            self.app.invalidate()

    # --- what the keys do ------------------------------------------------------------------

    def move(self, delta: int) -> None:
        n = len(self.hand())
        if n:
            self.cursor = (self.cursor + delta) % n

    def move_row(self, delta: int) -> None:
        """Jump to the first card of the previous/next suit row."""
        starts, pos = [], 0
        for _label, faces in render.hand_groups(self.obs()):
            starts.append(pos)
            pos += len(faces)
        if not starts:
            return
        row = max(i for i, s in enumerate(starts) if s <= self.cursor)
        self.cursor = starts[(row + delta) % len(starts)]

    def toggle(self) -> None:
        """Select or unselect the card under the cursor (edits the input text)."""
        hand = self.hand()
        if not hand:
            return
        face = hand[self.cursor]
        add = self.cursor not in self.selected_positions()
        self._set_input(toggle_in_text(self.input.text, face, add))

    def space(self) -> None:
        """Space ends a card being typed; otherwise it selects the card under the cursor."""
        before = self.input.document.text_before_cursor
        if before and before[-1] not in " ,":
            self.input.insert_text(" ")
        else:
            self.toggle()

    def complete(self, step: int = 1) -> None:
        """Tab: complete the card being typed. One card fits: it is typed; several: the
        first is typed and the others are listed under the hand, Tab (Shift-Tab) goes to
        the next (previous)."""
        buf = self.input
        state = buf.complete_state
        if state is not None and state.completions:
            if step > 0:
                buf.complete_next()
            else:
                buf.complete_previous()
            return
        found = list(self.completer.get_completions(
            buf.document, CompleteEvent(completion_requested=True)))
        if not found:
            self.info = "No card you hold fits there."
            return
        self.info = ""
        if len(found) == 1:
            buf.apply_completion(found[0])
            return
        buf.complete_state = CompletionState(original_document=buf.document, completions=found)
        buf.go_to_completion(0)

    def scroll_log(self, lines: int | None) -> None:
        """Scroll the log panel ``lines`` back (negative: forward; None: to the oldest)."""
        top = max(0, self._log_lines - self._log_page)
        # To the oldest: as far back as there are lines (the drawing stops at the top,
        # whatever the size it is drawn at).
        self.log_back = self._log_lines if lines is None else max(
            0, min(top, self.log_back + lines))

    def clear(self) -> None:
        self._set_input("")
        self.error = ""
        self.info = ""

    def _set_input(self, text: str) -> None:
        self.input.cancel_completion()
        self.input.set_document(Document(text, len(text)), bypass_readonly=True)
        self._placed = text

    def typing(self) -> bool:
        """Whether the person is typing: the input holds text the screen did not put there
        (after a hint, or cards selected with Space, the letters are still commands)."""
        return self.input.text != self._placed

    def enter(self) -> None:
        """Enter: play, bury or declare the selection (or go on after the summary)."""
        if self.hint_pending and not self.input.text:
            self.accept_hint = True
            self.info = "Hint: thinking… (it is played when it comes)"
            return
        if self.client.summary() is not None:
            self.next_hand()
            return
        decision = self.client.decision()
        seat = self.client.seat
        if decision is None:
            self.error = "It is not your turn."
            return
        typed = self.input.text.strip()
        if decision == DECLARE and typed.isdigit():  # the number of an offer, typed
            self.declare_option(int(typed) - 1)
            return
        if decision in (BID, NAME):
            answer = auction_answer(decision, self.input.text, seat)
            if answer is None:
                self.error = ("Type the points to bid, or pass (then Enter)." if decision == BID
                              else "Type S, H, D or C, or 0 for no trump suit.")
                return
            self.send(answer)
            return
        try:
            faces = self.selection()
        except SelectionError as exc:
            self.error = str(exc)
            return
        action: Action
        if decision == PLAY:
            if not faces:
                self.error = "Choose cards first: type them, or Space on a card."
                return
            action = Play(seat, tuple(faces))
        elif decision == BURY:
            need = render.talon_size(self.obs())
            if len(faces) != need:
                self.error = f"Choose exactly {need} cards to bury ({len(faces)} chosen)."
                return
            action = Bury(seat, tuple(faces))
        elif decision == SHOW:
            if len(faces) != 1:
                self.error = f"Show exactly one card ({len(faces)} chosen)."
                return
            action = Show(seat, tuple(faces))
        else:
            if not faces:
                self.panel = "declare"
                return
            action = Declare(seat, tuple(faces))
        self.send(action)

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

    def declare_option(self, index: int) -> None:
        options = self.client.declaration_options()
        if not 0 <= index < len(options):
            self.error = "No such declaration."
            return
        self.send(Declare(self.client.seat, tuple(options[index])))

    def pass_declaration(self) -> None:
        if self.client.decision() == BID:
            if self.send(Pass(self.client.seat)):
                self.info = "You passed: you are out of the auction."
            return
        if self.client.decision() != DECLARE:
            self.error = "There is no declaration to pass on now."
            return
        if self.send(Pass(self.client.seat)):
            self.info = "You passed."

    def open_declare(self) -> None:
        if self.client.decision() != DECLARE and not self.client.declaration_options():
            self.info = "You have no declaration to make now."
            return
        self.panel = "declare"

    def _turn_key(self) -> tuple[Any, ...]:
        obs = self.obs()
        return (self.client.decision(), render.hand_number(obs), obs.phase, len(obs.tricks),
                len(obs.current), len(obs.declarations), obs.cards_dealt)

    def hint(self) -> None:
        """Ask the client's search player, and preselect its move with its reason. The
        search runs on a worker thread (up to a second) so the screen and the table go
        on meanwhile; Enter pressed while it thinks plays the hint when it comes."""
        if self.hint_pending:
            self.info = "Hint: still thinking…"
            return
        advisor = self.client.advisor()
        if advisor is None:
            self.info = "Nothing for you to decide now."
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or self.app is None or not self.app.is_running:
            self._hint_came(advisor, None, self._turn_key())
            return
        key = self._turn_key()
        self.hint_pending = True
        self.accept_hint = False
        self.info = "Hint: thinking…"
        future = loop.run_in_executor(None, advisor)
        future.add_done_callback(lambda done: self._hint_came(None, done, key))

    def _hint_came(self, advisor: Callable[[], Hint | None] | None,
                   done: asyncio.Future[Hint | None] | None, key: tuple[Any, ...]) -> None:
        """The search answered (on the loop's thread): show it if the position is still the
        one it was asked about, and play it when Enter was pressed meanwhile."""
        accept, self.accept_hint, self.hint_pending = self.accept_hint, False, False
        try:
            advice = advisor() if advisor is not None else done.result()  # type: ignore[union-attr]
        except Exception as exc:  # a hint is a courtesy: never let it break the screen
            self.info = f"No hint: {exc}"
            advice = None
        else:
            if key != self._turn_key():
                if self.info.startswith("Hint"):
                    self.info = ""
                advice = None  # the table moved on meanwhile: the hint is for another move
            elif advice is None:
                self.info = "Nothing for you to decide now."
        try:  # called by the loop, not by a key: a failure becomes a message here
            if advice is not None:
                self._show_hint(advice)
                if accept:
                    if isinstance(advice.action, Pass) and self.client.decision() == DECLARE:
                        self.pass_declaration()
                    else:
                        self.enter()
        except Exception as exc:
            self.error = f"error: {exc}"
        if self.app is not None:
            self.app.invalidate()

    def _show_hint(self, advice: Hint) -> None:
        action, why = advice.action, advice.reason
        because = f" — {why}" if why else ""
        if isinstance(action, Pass) and self.client.decision() == BID:
            self._set_input("pass")
            self.info = f"Hint: pass{because} (Enter to accept)"
            return
        if isinstance(action, Pass):
            self.info = f"Hint: pass{because} (press p)."
            return
        if isinstance(action, (Bid, NameTrump)):
            typed = str(action.points) if isinstance(action, Bid) else (action.suit or "0")
            self._set_input(typed)
            self.info = f"Hint: {typed}{because} (Enter to accept)"
            return
        faces = getattr(action, "faces", None)
        if not faces:
            self.info = f"Hint: {action}{because}"
            return
        self._set_input(selection_text(faces) + " ")
        hand = self.hand()
        if faces[0] in hand:
            self.cursor = hand.index(faces[0])
        self.error = ""
        self.info = f"Hint: {render.cards_label(list(faces))}{because} (Enter to accept)"

    def show(self, panel: str) -> None:
        """Open an information panel, or close it when it is open."""
        self.panel = None if self.panel == panel else panel
        if self.panel == "log":
            self.log_back = 0  # the newest first
        self._restore_due_panel()

    def close_panel(self) -> None:
        self.panel = None
        self._restore_due_panel()

    def _restore_due_panel(self) -> None:
        if self.panel is None and self.client.summary() is not None:
            self.panel = "summary"

    def next_hand(self) -> None:
        if self.client.summary() is None:
            self.info = "The hand is not over."
            return
        if self.client.summary().get("game_over"):  # type: ignore[union-attr]
            self.info = "The game is over: Ctrl-Q quits."
            return
        self.panel = None
        self.client.next_hand()
        self.sync()

    def ask_quit(self, key: str = "Ctrl-Q") -> None:
        """Ctrl-Q (or Ctrl-C, ``key``): the first asks, the second quits (the game stays
        in the journal)."""
        self.quit_key = key
        summary = self.client.summary()
        if self.quit_pending or (summary is not None and summary.get("game_over")):
            self.quit_requested = True
            if self.app is not None:
                self.app.exit()
            return
        self.quit_pending = True
        self._quit_asked_now = True

    def key_pressed(self) -> None:
        """After every key: a key other than the one that asked takes the question back."""
        if self._quit_asked_now:
            self._quit_asked_now = False
        elif self.quit_pending and not self.quit_requested:
            self.quit_pending = False

    def start_chat(self) -> None:
        self.chatting = True
        self.chat_buffer.reset()
        self._focus()  # now: the keys typed right after m are chat, even before a redraw

    def send_chat(self) -> None:
        text = self.chat_buffer.text.strip()
        self.cancel_chat()
        if text:
            self.client.chat(text)
            self.info = "Said it."

    def cancel_chat(self) -> None:
        self.chatting = False
        self.chat_buffer.reset()
        self._focus()

    def _focus(self) -> None:
        """Keys go to the chat line while chatting, else to the card input."""
        target = self.chat_buffer if self.chatting else self.input
        if self.app is not None and self.app.layout.current_buffer is not target:
            self.app.layout.focus(target)

    # --- what the panes show ---------------------------------------------------------------

    def status_fragments(self, width: int = 80, height: int = 1) -> StyleAndTextTuples:
        """The status bar, fitted to its width (never cut inside a word or a name)."""
        obs = self.obs()
        text = render.status_text(obs, self.client.names, self.client.decision(),
                                  self.client.summary(), max(1, width - 2))
        return [("class:status", f" {text} ")]

    def table_fragments(self) -> StyleAndTextTuples:
        return render.table_fragments(self.obs(), self.client.names)

    def table_pane(self, width: int, height: int) -> StyleAndTextTuples:
        """The seats around the trick, and the log beside or under them."""
        return table_view.table_pane(self.obs(), self.client.names, self.client.events(),
                                     width, height)

    def log_fragments(self, width: int, height: int) -> StyleAndTextTuples:
        """The log pane: the newest events that fit, wrapped between words."""
        return [("class:dim", render.events_text(self.client.events(), width, height,
                                                  self.client.names))]

    def log_panel_fragments(self, width: int, height: int) -> StyleAndTextTuples:
        """The whole log (g): a page of it, the newest at the bottom unless scrolled."""
        lines = render.log_lines(self.client.events(), width, self.client.names)
        page = max(1, height - 2)
        end = len(lines) - max(0, min(self.log_back, len(lines) - page))
        start = max(0, end - page)
        where = f" · lines {start + 1}-{end} of {len(lines)}" if len(lines) > page else ""
        more = "PgUp/PgDn ↑↓ scroll · Home/End oldest/newest · " if len(lines) > page else ""
        return ([("class:panel.title", f"Event log (latest last){where}"), ("", "\n")]
                + [("", line + "\n") for line in lines[start:end]]
                + [("class:dim", f"{more}Esc closes")])

    def log_panel_drawn(self, width: int, height: int) -> None:
        """The log panel was drawn at this size: what PgUp/PgDn move by, and how far back
        it goes (a scroll past the oldest line stops there)."""
        self._log_page = max(1, height - 2)
        self._log_lines = len(render.log_lines(self.client.events(), width,
                                                self.client.names))
        self.log_back = max(0, min(self.log_back, self._log_lines - self._log_page))

    def banner_fragments(self, width: int, height: int) -> StyleAndTextTuples:
        """Network trouble, wrapped to the screen's width (never cut)."""
        lines = render.wrap_words(self.client.banner() or "", width - 2, keep=self.client.names)
        return [("class:banner", f" {line:<{width - 2}} " + ("\n" if i < len(lines) - 1
                                                             else ""))
                for i, line in enumerate(lines)]

    def hand_fragments(self, width: int = 80, height: int = 8) -> StyleAndTextTuples:
        return render.hand_fragments(self.obs(), self.cursor, self.selected_positions(),
                                     width=width)

    def message_pane(self, width: int, height: int) -> StyleAndTextTuples:
        """The message line under the hand, wrapped between words (two lines at most)."""
        fragments = self.message_fragments(width)
        style = fragments[0][0] if len(fragments) == 1 else None
        if style is None:
            return fragments
        lines = render.wrap_words(fragments[0][1], width, keep=self.client.names)[:2]
        return [(style, "\n".join(lines))]

    def message_fragments(self, width: int = 80) -> StyleAndTextTuples:
        if self.quit_pending:
            # A table that stopped (a halt, a verdict) is not one `tractor resume` goes on.
            trouble = self.client.banner()
            question = QUIT_QUESTION if trouble is None else QUIT_PLAIN
            return [("class:warn", question.format(key=self.quit_key))]
        state = self.input.complete_state
        if state is not None and state.completions:
            return _choices(state, width)
        if self.error:
            return [("class:error", self.error)]
        if self.info:
            return [("class:info", self.info)]
        obs = self.obs()
        decision = self.client.decision()
        prompt = render.decision_prompt(decision, obs, self.client.names,
                                        self.client.declaration_options())
        if decision == BURY and render.talon_positions(obs):
            prompt += " + marks the cards from the talon."
        return [("", prompt)]

    def prompt_text(self) -> str:
        decision = self.client.decision()
        if self.client.summary() is not None:
            return "next (Enter)> "
        if decision == BURY:
            return f"bury {render.talon_size(self.obs())}> "
        return {DECLARE: "declare> ", PLAY: "play> ", BID: "bid> ", SHOW: "show> ",
                NAME: "trump> "}.get(decision or "", "wait> ")

    def _panel_lines(self, width: int, height: int) -> list[str]:
        lines: list[str] = []
        for line in self.panel_text(width, height).split("\n"):
            indent = " " * (len(line) - len(line.lstrip()) + 2)
            lines += (render.wrap_words(line, width, indent, self.client.names) if line.strip()
                      else [""])
        return lines

    def panel_fragments(self, width: int, height: int) -> StyleAndTextTuples:
        """An information panel fitted to its window: wrapped between words; when it is
        taller than the window, a page of it and a line saying how to see the rest. It
        changes nothing (it is also asked for the height it would like, at other sizes):
        `panel_drawn` keeps the scroll within the panel's lines."""
        lines = self._panel_lines(width, height)
        if len(lines) <= height:
            return [("", "\n".join(lines))]
        page = max(1, height - 1)
        top = 0 if self._panel_seen != self.panel else max(0, min(self.panel_top,
                                                                   len(lines) - page))
        shown = lines[top:top + page]
        more = (f"── lines {top + 1}-{top + len(shown)} of {len(lines)} · PgUp PgDn ↑ ↓ "
                "scroll · Esc closes")
        return [("", "\n".join(shown) + "\n"), ("class:dim", more[:width])]

    def panel_drawn(self, width: int, height: int) -> None:
        """The panel was drawn at this size: a new panel starts at its top; the scroll
        stays within its lines; a page is what PgUp/PgDn move by."""
        if self._panel_seen != self.panel:
            self._panel_seen, self.panel_top = self.panel, 0
        lines = len(self._panel_lines(width, height))
        self.panel_page = max(1, height - 1)
        self.panel_top = max(0, min(self.panel_top, lines - self.panel_page))

    def scroll_panel(self, lines: int) -> None:
        """Scroll an information panel (the drawing keeps it within its lines)."""
        self.panel_top = max(0, self.panel_top + lines)

    def panel_text(self, width: int = 80, height: int = 16) -> str:
        obs = self.obs()
        names = self.client.names
        if self.panel == "help":
            keys = keys_for(render.rules_of(obs))
            return ("Keys\n" + render.help_text(keys, columns=2 if width >= 64 else 1)
                    + "\n\n" + LEGEND + "\n\nEsc closes this help.")
        if self.panel == "tracker":
            return render.tracker_text(obs, names, width) + "\n\nEsc closes."
        if self.panel == "last":
            return render.last_trick_text(obs, names) + "\n\nEsc closes."
        if self.panel == "log":
            return render.to_text(self.log_panel_fragments(80, 16))
        if self.panel == "summary":
            summary = self.client.summary()
            if summary is None:
                return ""
            last = "Enter: next hand." if not summary.get("game_over") else "Ctrl-Q: quit."
            return (render.summary_text(summary, obs, names, width, height - 2)
                    + f"\n\n{last}  l: last trick  g: log")
        if self.panel == "declare":
            return self._declare_text(obs)
        return ""

    def _declare_text(self, obs: Observation) -> str:
        options = self.client.declaration_options()
        lines = [f"Declare trumps (trump rank {obs.trump_rank})"]
        decls = obs.declarations
        if decls:
            seat, cards = decls[-1]
            lines.append(f"Declared so far: {render.cards_label(cards)} by "
                         f"{self.client.names[seat]}")
        if options:
            lines.append("You may declare:")
            lines += [f"  {i}) {render.cards_label(list(o))}" for i, o in enumerate(options, 1)]
        else:
            lines.append("You hold no declaration now.")
        dealing = obs.phase == "deal"
        lines.append("  p) pass" + (" (let these go by)" if dealing else ""))
        lines.append("")
        if dealing:
            lines.append("The cards keep coming while you choose: a declaration goes out")
            lines.append("with the next card.")
        lines.append("Press a number or p; or type the cards and Enter. Esc hides this panel,")
        lines.append("e shows it again.")
        return "\n".join(lines)

    def keys_text(self) -> str:
        if self.chatting:
            return " Enter send · Esc cancel "
        if self.panel == "summary":
            return " Enter next hand · l last trick · g log · ? help · Ctrl-Q quit "
        if self.panel == "declare":
            return " 1-9 declare · p pass · i suggest · Esc hide · ? help "
        if self.panel is not None:
            return " Esc close · ? help · Ctrl-Q quit "
        decision = self.client.decision()
        if decision == DECLARE:  # the log's "you may declare ♥2 now" says no key
            return " e declare · p let it go by · i suggest · ? help · Ctrl-Q quit "
        verb = {PLAY: "play", BURY: "bury", SHOW: "show", BID: "bid",
                NAME: "name trump"}.get(decision or "", "play")
        return f" Enter {verb} · ←→ Space select · Tab complete · i hint · l last · ? help "



def _choices(state: CompletionState, width: int) -> StyleAndTextTuples:
    """The cards Tab goes through, the current one in reverse video, as many as fit in
    one line around it."""
    labels = [c.display_text + (c.display_meta_text or "") for c in state.completions]
    current = state.complete_index
    at = current or 0
    start = 0
    room = width - len("Tab: ") - 2
    while start < at and sum(len(t) + 2 for t in labels[start:at + 1]) > room:
        start += 1
    out: StyleAndTextTuples = [("class:label", "Tab: ")]
    used = 0
    for i in range(start, len(labels)):
        if used + len(labels[i]) + 2 > room:
            out.append(("class:dim", "…"))
            break
        out.append(("class:selected" if i == current else "", labels[i]))
        out.append(("", "  "))
        used += len(labels[i]) + 2
    return out


def _safe(fn: Callable[[], Any]) -> Callable[[], Any]:
    """A pane's content; a failure to draw it shows as a line in the pane, not a crash."""

    def draw() -> Any:
        try:
            return fn()
        except Exception as exc:
            return cannot_show(exc)

    return draw


def _guard(view: PlayView, fn: Callable[[KeyPressEvent], None]) -> Callable[[KeyPressEvent], None]:
    """Run a key's action; any failure becomes a message instead of a traceback."""

    def handler(event: KeyPressEvent) -> None:
        try:
            fn(event)
        except Exception as exc:
            view.error = f"error: {exc}"

    handler.__name__ = getattr(fn, "__name__", "key")
    return handler


def _key_name(event: KeyPressEvent) -> str:
    """"Ctrl-C" or "Ctrl-Q": the quit question names the key the person pressed."""
    return "Ctrl-C" if event.key_sequence[0].key == Keys.ControlC else "Ctrl-Q"


def _key_bindings(view: PlayView) -> KeyBindings:
    kb = KeyBindings()
    panel_open = Condition(lambda: view.panel is not None)
    chatting = Condition(lambda: view.chatting)
    normal = ~panel_open & ~chatting
    declaring = Condition(lambda: view.panel == "declare") & ~chatting
    summary = Condition(lambda: view.panel == "summary") & ~chatting
    info_panel = panel_open & ~declaring & ~summary & ~chatting
    log_panel = Condition(lambda: view.panel == "log") & ~chatting
    # Command letters act unless the person types: then letters are text.
    idle = normal & Condition(lambda: not view.typing())

    def bind(*keys: str | Keys, filter: Any = True, eager: bool = False) -> Callable[..., Any]:
        def deco(fn: Callable[[KeyPressEvent], None]) -> Callable[[KeyPressEvent], None]:
            kb.add(*keys, filter=filter, eager=eager)(_guard(view, fn))
            return fn
        return deco

    @bind("c-q")
    @bind("c-c")
    def _quit(event: KeyPressEvent) -> None:
        view.ask_quit(_key_name(event))

    # While the quit question is open, any other key only takes it back (Enter must not
    # play the selection the person forgot was there).
    asked = Condition(lambda: view.quit_pending)

    @bind(Keys.Any, filter=asked, eager=True)
    def _not_quitting(event: KeyPressEvent) -> None:
        if event.key_sequence[0].key in (Keys.ControlQ, Keys.ControlC):
            view.ask_quit(_key_name(event))
        else:
            view.quit_pending = False

    # Normal play: the hand cursor and the selection.
    bind("left", filter=normal)(lambda e: view.move(-1))
    bind("right", filter=normal)(lambda e: view.move(1))
    bind("home", filter=normal)(lambda e: setattr(view, "cursor", 0))
    bind("end", filter=normal)(lambda e: setattr(view, "cursor", len(view.hand()) - 1))
    bind("up", filter=normal & ~has_completions)(lambda e: view.move_row(-1))
    bind("down", filter=normal & ~has_completions)(lambda e: view.move_row(1))
    bind(" ", filter=normal)(lambda e: view.space())
    bind("tab", filter=normal)(lambda e: view.complete(1))
    bind("s-tab", filter=normal)(lambda e: view.complete(-1))

    @bind("enter", filter=normal)
    def _enter(event: KeyPressEvent) -> None:
        state = view.input.complete_state
        if state is not None and state.current_completion is not None:
            view.input.apply_completion(state.current_completion)  # Enter plays the line
        view.input.cancel_completion()
        view.enter()

    @bind("escape", filter=normal, eager=True)
    def _escape(event: KeyPressEvent) -> None:
        view.clear()

    # Commands: letters that are never part of card text, and only while nothing is typed.
    def command(letter: str, action: Callable[[], None], filter: Any = idle) -> None:
        for key in {letter, letter.upper()}:
            bind(key, filter=filter)(lambda e, _a=action: _a())

    command("i", view.hint, idle | declaring)  # in the declaration panel: a suggestion
    command("l", lambda: view.show("last"), idle | info_panel | summary)
    command("o", lambda: view.show("tracker"), idle | info_panel)
    command("g", lambda: view.show("log"), idle | info_panel | summary)
    command("?", lambda: view.show("help"), idle | info_panel | declaring | summary)
    command("e", view.open_declare)
    # At a bid, p is text: a pass is final, so it takes Enter ("p" or "pass"); as a
    # command the p of a typed "pass" passed at once and "ass" spilled into the next prompt.
    bidding = Condition(_safe(lambda: view.client.decision() == BID))
    command("p", view.pass_declaration, (idle & ~bidding) | declaring)
    command("m", view.start_chat)
    command("n", view.next_hand, idle | summary)

    # The log panel scrolls (its page is what was drawn last).
    # Other panels scroll when they are taller than their window.
    scrolling = panel_open & ~log_panel & ~chatting
    bind("pageup", filter=scrolling)(lambda e: view.scroll_panel(-max(1, view.panel_page - 1)))
    bind("pagedown", filter=scrolling)(lambda e: view.scroll_panel(max(1, view.panel_page - 1)))
    bind("up", filter=scrolling)(lambda e: view.scroll_panel(-1))
    bind("down", filter=scrolling)(lambda e: view.scroll_panel(1))
    bind("pageup", filter=log_panel)(lambda e: view.scroll_log(max(1, view._log_page - 1)))
    bind("pagedown", filter=log_panel)(lambda e: view.scroll_log(-max(1, view._log_page - 1)))
    bind("up", filter=log_panel)(lambda e: view.scroll_log(1))
    bind("down", filter=log_panel)(lambda e: view.scroll_log(-1))
    bind("home", filter=log_panel)(lambda e: view.scroll_log(None))
    bind("end", filter=log_panel)(lambda e: setattr(view, "log_back", 0))

    # Panels: information panels close; the declaration panel takes numbers.
    for key in ("escape", "enter", "q", " "):
        bind(key, filter=info_panel, eager=key == "escape")(lambda e: view.close_panel())
    bind("escape", filter=declaring, eager=True)(lambda e: setattr(view, "panel", None))
    # Enter in the declaration panel: the typed offer or cards, else a word on what to do.
    bind("enter", filter=declaring)(lambda e: view.enter() if view.input.text.strip() else
                                    setattr(view, "info", "Press the number of a "
                                            "declaration, or p to let it go by."))
    for i in range(1, 10):
        bind(str(i), filter=declaring)(lambda e, _i=i: view.declare_option(_i - 1))
    bind("0", filter=declaring)(lambda e: view.pass_declaration())
    bind("enter", filter=summary)(lambda e: view.next_hand())
    bind(" ", filter=summary)(lambda e: view.next_hand())
    bind(Keys.Any, filter=panel_open & ~chatting)(lambda e: None)  # panels swallow typing

    # Chat line.
    bind("enter", filter=chatting)(lambda e: view.send_chat())

    bind("escape", filter=chatting, eager=True)(lambda e: view.cancel_chat())

    return kb


def _style(color: bool) -> Style:
    return Style.from_dict(_COLORS if color else _MONO)


def _layout(view: PlayView) -> Layout:
    panel_open = Condition(lambda: view.panel is not None)
    chatting = Condition(lambda: view.chatting)
    banner = Condition(_safe(lambda: bool(view.client.banner())))

    log_panel = Condition(lambda: view.panel == "log")
    # The table (with the log beside it or under it), the banner, the hand and the message
    # are made for the size they are drawn at (cli/screen/panes.py): wrapped between words, the
    # newest log lines kept in view.
    main = Window(FittedText(view.table_pane))
    panel = Window(FittedText(view.panel_fragments, view.panel_drawn))
    log_page = Window(FittedText(view.log_panel_fragments, view.log_panel_drawn))
    input_line = Window(
        BufferControl(view.input, input_processors=[BeforeInput(lambda: view.prompt_text(),
                                                                style="class:label")]),
        height=1)
    chat_line = Window(
        BufferControl(view.chat_buffer,
                      input_processors=[BeforeInput("say> ", style="class:label")]),
        height=1)
    body = HSplit([
        Window(FittedText(view.status_fragments), height=1,
               style="class:status"),
        ConditionalContainer(
            Window(FittedText(view.banner_fragments), height=Dimension(min=1, max=4),
                   dont_extend_height=True, style="class:banner"), filter=banner),
        ConditionalContainer(main, filter=~panel_open),
        ConditionalContainer(panel, filter=panel_open & ~log_panel),
        ConditionalContainer(log_page, filter=log_panel),
        Window(height=1, char="─", style="class:separator"),
        Window(FittedText(view.hand_fragments), height=Dimension(min=1, max=8),
               dont_extend_height=True),
        Window(FittedText(view.message_pane), height=Dimension(min=1, max=2),
               dont_extend_height=True),
        ConditionalContainer(input_line, filter=~chatting),
        ConditionalContainer(chat_line, filter=chatting),
        Window(FormattedTextControl(lambda: [("class:keys", view.keys_text())]), height=1,
               style="class:keys"),
    ])
    return Layout(body, focused_element=view.input)


def build_app(client: TableClient, input: Input | None = None,
              output: Output | None = None) -> Application[Any]:
    """The play screen on ``client``; ``input``/``output`` for tests (pipe input, dummy
    output). Sets ``client.on_change`` so the screen redraws when the table moves. The view
    state is ``app.tractor_view`` (`PlayView`)."""
    view = PlayView(client)
    color = render.use_color()
    app: Application[Any] = Application(
        layout=_layout(view),
        key_bindings=_key_bindings(view),
        style=_style(color),
        full_screen=True,
        mouse_support=False,
        input=input,
        output=output,
        color_depth=None if color else ColorDepth.DEPTH_1_BIT,
    )
    app.ttimeoutlen = 0.1  # a lone Esc closes a panel without a long wait
    view.app = app
    app.tractor_view = view  # type: ignore[attr-defined]

    def focus_follows() -> None:
        target = view.chat_buffer if view.chatting else view.input
        if app.layout.current_buffer is not target:
            app.layout.focus(target)

    app.before_render += lambda _app: focus_follows()
    app.key_processor.after_key_press += lambda _kp: view.key_pressed()
    client.on_change = view.changed
    return app


def view_of(app: Application[Any]) -> PlayView:
    """The `PlayView` of an app made by `build_app`."""
    return app.tractor_view  # type: ignore[attr-defined,no-any-return]


async def run_app(client: TableClient, input: Input | None = None,
                  output: Output | None = None) -> None:
    """Run the play screen until the person quits (await it on the running loop)."""
    app = build_app(client, input=input, output=output)
    try:
        await app.run_async()
    finally:
        client.on_change = None


def capture(app: Application[Any], width: int = 80, height: int = 24) -> str:
    """The screen as text at ``width`` x ``height`` without a terminal (README captures and
    layout checks). Works with or without a running event loop."""

    async def draw() -> str:
        screen = Screen(default_char=Char(" ", ""), initial_width=width, initial_height=height)
        app.render_counter += 1  # controls cache their content per render
        with set_app(app):
            app.layout.container.write_to_screen(
                screen, MouseHandlers(), WritePosition(0, 0, width, height), parent_style="",
                erase_bg=False, z_index=None)
            screen.draw_all_floats()
        rows = [screen.data_buffer[y] for y in range(height)]
        return "\n".join("".join(r[x].char for x in range(width)).rstrip() for r in rows)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(draw())
    coro = draw()
    try:  # inside a running loop: the drawing itself never awaits
        coro.send(None)
    except StopIteration as done:
        return str(done.value)
    raise RuntimeError("capture could not draw synchronously")
