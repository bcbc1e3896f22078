"""The hand pane's cursor and the input line, which together are the selection.

Typing cards and pressing Space on the card under the cursor edit the same text, so both
ways of choosing agree; an illegal play stays where it was typed. Tab completes the card
being typed from the cards held (when following, from those that can follow).
"""

from __future__ import annotations

from prompt_toolkit.buffer import Buffer, CompletionState
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import StyleAndTextTuples

from tractor.cli.screen import render
from tractor.cli.screen.cards_input import (
    HandCompleter,
    parse_partial,
    parse_selection,
    toggle_in_text,
)
from tractor.cli.seat.client import TableClient
from tractor.observation import Observation
from tractor.phases import Decision


class HandSelection:
    """The cursor (a position in the hand as shown) and the input line's text."""

    def __init__(self, client: TableClient) -> None:
        self.client = client
        self.cursor = 0
        self.completer = HandCompleter(self.hand, self.follow_allowed)
        # Completion only when asked (Tab): a menu popping up while typing covered the hand.
        self.input = Buffer(completer=self.completer, complete_while_typing=False,
                            multiline=False)
        #: The input's text as the screen last set it (a hint, a Space selection): while
        #: it is unchanged nothing is being typed, so the command letters still act.
        self._placed = ""
        #: The input's text right after Tab completed a card (None: no completion since):
        #: Space then separates instead of selecting the card under the cursor.
        self._completed: str | None = None

    # --- reading -----------------------------------------------------------------------------

    def _obs(self) -> Observation:
        return self.client.observation()

    def hand(self) -> list[int]:
        """The hand in display order (the cursor's positions)."""
        return render.hand_order(self._obs())

    def selected_positions(self) -> set[int]:
        """Positions of the hand named by the input text (each typed card takes the first
        copy not yet taken); none while the starter calls its friends (a called card is
        anybody's, not a card of the hand)."""
        if self.calling():
            return set()
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
        playing = self.client.decision() == Decision.PLAY
        return render.follow_allowed(self._obs(), playing, self.hand(), typed)

    def calling(self) -> bool:
        """Whether the input is the starter's calls (find-a-friend), not a selection."""
        return self.client.decision() == Decision.CALL

    def typing(self) -> bool:
        """Whether the person is typing: the input holds text the screen did not put there
        (after a hint, or cards selected with Space, the letters are still commands)."""
        return self.input.text != self._placed

    def fragments(self, width: int = 80, height: int = 8) -> StyleAndTextTuples:
        """The hand pane: a row per suit, the cursor and the selection marked."""
        return render.hand_fragments(self._obs(), self.cursor, self.selected_positions(),
                                     width=width)

    # --- the cursor --------------------------------------------------------------------------

    def keep_on_hand(self) -> None:
        """The hand changed: keep the cursor on one of its cards."""
        self.cursor = max(0, min(self.cursor, len(self.hand()) - 1))

    def move(self, delta: int) -> None:
        self._completed = None  # the cursor moved: Space picks the card under it
        n = len(self.hand())
        if n:
            self.cursor = (self.cursor + delta) % n

    def move_row(self, delta: int) -> None:
        """Jump to the first card of the previous/next suit row."""
        self._completed = None
        starts, pos = [], 0
        for _label, faces in render.hand_groups(self._obs()):
            starts.append(pos)
            pos += len(faces)
        if not starts:
            return
        row = max(i for i, s in enumerate(starts) if s <= self.cursor)
        self.cursor = starts[(row + delta) % len(starts)]

    def to_first(self) -> None:
        self._completed = None  # the cursor moved: Space picks the card under it
        self.cursor = 0

    def to_last(self) -> None:
        self._completed = None  # the cursor moved: Space picks the card under it
        self.cursor = len(self.hand()) - 1

    def point_at(self, face: int) -> None:
        """The cursor on the first copy of ``face`` in the hand, if it is there."""
        hand = self.hand()
        if face in hand:
            self.cursor = hand.index(face)

    # --- the text ----------------------------------------------------------------------------

    def place(self, text: str) -> None:
        """Set the input's text as the screen's own (not typed by the person)."""
        self.input.cancel_completion()
        self.input.set_document(Document(text, len(text)), bypass_readonly=True)
        self._placed = text
        self._completed = None

    def toggle(self) -> None:
        """Select or unselect the card under the cursor (edits the input text)."""
        hand = self.hand()
        if not hand:
            return
        face = hand[self.cursor]
        add = self.cursor not in self.selected_positions()
        self.place(toggle_in_text(self.input.text, face, add))

    def space(self) -> None:
        """Space ends a card being typed, or one Tab completed (the choices listed close on
        the one shown); otherwise it selects the card under the cursor."""
        buf = self.input
        state = buf.complete_state
        if state is not None and state.current_completion is not None:
            buf.apply_completion(state.current_completion)
            self._completed = buf.text
        if self._completed is not None and buf.text == self._completed:
            # Right after a completion ("KD "): the person separates, as after typing it
            # (Space selected the card under the cursor: "KD AH").
            self._completed = None
            if not buf.document.text_before_cursor.endswith((" ", ",")):
                buf.insert_text(" ")
            return
        before = self.input.document.text_before_cursor
        if before and before[-1] not in " ,":
            self.input.insert_text(" ")
        elif not self.calling():  # calls are typed: Space picks no card of the hand
            self.toggle()

    def complete(self, step: int = 1) -> str | None:
        """Tab: complete the card being typed. One card fits: it is typed; several: the
        first is typed and the others are listed under the hand, Tab (Shift-Tab) goes to
        the next (previous). Returns the note for the message line ("" clears it), or None
        to leave it as it is."""
        buf = self.input
        state = buf.complete_state
        if state is not None and state.completions:
            if step > 0:
                buf.complete_next()
            else:
                buf.complete_previous()
            return None
        if self.calling():
            return "Type the calls: any card may be called, not only the ones you hold."
        found = list(self.completer.get_completions(
            buf.document, CompleteEvent(completion_requested=True)))
        if not found:
            return "No card you hold fits there."
        if len(found) == 1:
            buf.apply_completion(found[0])
            self._completed = buf.text
            return ""
        buf.complete_state = CompletionState(original_document=buf.document, completions=found)
        buf.go_to_completion(0)
        return ""
