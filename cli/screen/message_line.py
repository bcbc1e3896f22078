"""The message line under the hand: the quit question, the cards Tab goes through, a
refusal or mistake, a neutral note, or else what the person is asked to do now."""

from __future__ import annotations

from dataclasses import dataclass

from prompt_toolkit.buffer import Buffer, CompletionState
from prompt_toolkit.formatted_text import StyleAndTextTuples

from tractor.cli.screen import render
from tractor.cli.screen.quitting import QuitQuestion
from tractor.cli.seat.client import TableClient
from tractor.phases import Decision


@dataclass
class Notes:
    """What the message line has to say besides the prompt; the table moving on to the
    next decision clears both."""

    error: str = ""  #: a refusal or a mistake: shown under the input, the input kept
    info: str = ""  #: a neutral note (a hint, a chat sent)

    def clear(self) -> None:
        self.error = ""
        self.info = ""


class MessageLine:
    """The message line's text, first of: the quit question, the Tab choices, the error,
    the note, the decision prompt."""

    def __init__(self, client: TableClient, notes: Notes, quitting: QuitQuestion,
                 typed: Buffer) -> None:
        self.client = client
        self.notes = notes
        self.quitting = quitting
        self.typed = typed  #: the input line (its Tab completions are listed here)

    def fragments(self, width: int = 80) -> StyleAndTextTuples:
        if self.quitting.pending:
            return [("class:warn", self.quitting.question(self.client.banner() is not None))]
        state = self.typed.complete_state
        if state is not None and state.completions:
            return tab_choices(state, width)
        if self.notes.error:
            return [("class:error", self.notes.error)]
        if self.notes.info:
            return [("class:info", self.notes.info)]
        obs = self.client.observation()
        decision = self.client.decision()
        prompt = render.decision_prompt(decision, obs, self.client.names,
                                        self.client.declaration_options())
        if decision == Decision.BURY and render.talon_positions(obs):
            prompt += f" + marks the cards from the {render.taken_word(obs)}."
        return [("", prompt)]

    def pane(self, width: int, height: int) -> StyleAndTextTuples:
        """The line as drawn under the hand: wrapped between words, two lines at most."""
        fragments = self.fragments(width)
        style = fragments[0][0] if len(fragments) == 1 else None
        if style is None:
            return fragments
        lines = render.wrap_words(fragments[0][1], width, keep=self.client.names)[:2]
        return [(style, "\n".join(lines))]


def tab_choices(state: CompletionState, width: int) -> StyleAndTextTuples:
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
