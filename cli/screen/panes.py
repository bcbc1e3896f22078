"""A prompt_toolkit control whose text is made for the size it is drawn at.

The log pane, the log panel, the banner, the hand and the message line wrap their text
themselves (between words, so never inside a card) and keep what matters in view (the
newest log lines at the bottom). For that they need the window's real size at drawing
time: the size of the previous drawing is wrong whenever the layout moved (a resize, a
banner, a longer message, the table pane growing), and prompt_toolkit's own wrapping
breaks lines at any character.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.formatted_text.utils import split_lines
from prompt_toolkit.layout.controls import GetLinePrefixCallable, UIContent, UIControl


def cannot_show(exc: Exception) -> StyleAndTextTuples:
    """What a pane shows when drawing it failed: a line saying so, never a crash."""
    return [("class:error", f"(cannot show this: {exc})")]


def safe(fn: Callable[[], Any]) -> Callable[[], Any]:
    """A pane's content; a failure to draw it shows as a line in the pane, not a crash."""

    def draw() -> Any:
        try:
            return fn()
        except Exception as exc:
            # A process edge: prompt_toolkit calls this while drawing, and a failure
            # there would end the screen (and the game) with a traceback.
            return cannot_show(exc)

    return draw


class FittedText(UIControl):
    """Text from ``get(width, height)`` (lines separated by ``\\n``), drawn as it is: the
    function fits it to the size it is given; nothing is wrapped again. ``get`` is also
    asked for the preferred height (with the most height there could be), so it must not
    change anything; ``drawn(width, height)`` is told the size it was really drawn at."""

    def __init__(self, get: Callable[[int, int], StyleAndTextTuples],
                 drawn: Callable[[int, int], None] | None = None) -> None:
        self.get = get
        self.drawn = drawn

    def _lines(self, width: int, height: int) -> list[StyleAndTextTuples]:
        try:
            fragments = self.get(max(1, width), max(1, height))
        except Exception as exc:
            # A process edge: called while prompt_toolkit draws; a pane that cannot be
            # drawn says so in its place instead of ending the screen.
            fragments = cannot_show(exc)
        return list(split_lines(fragments))

    def create_content(self, width: int, height: int) -> UIContent:
        failed: Exception | None = None
        if self.drawn is not None:
            try:
                self.drawn(max(1, width), max(1, height))
            except Exception as exc:  # a process edge, as in `_lines`
                failed = exc
        lines = [cannot_show(failed)] if failed is not None else self._lines(width, height)
        return UIContent(get_line=lambda i: lines[i], line_count=len(lines),
                         show_cursor=False)

    def preferred_height(self, width: int, max_available_height: int, wrap_lines: bool,
                         get_line_prefix: GetLinePrefixCallable | None) -> int | None:
        return len(self._lines(width, max_available_height))

    def is_focusable(self) -> bool:
        return False
