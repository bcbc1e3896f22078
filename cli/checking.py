"""How far `tractor resume` has come in checking the journal again, shown as it goes.

Replaying a journal checks every signed message of the game again: a moment for a short
game, longer for a long one or on a busy machine. A line that counts the messages up to
their total shows that the program works (a still terminal looks like a hang). On a
terminal the count is rewritten in place a few times a second; elsewhere (a pipe, a
script) a line is written every few seconds, and the last count always.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

TERMINAL_EVERY = 0.1  #: seconds between two counts on a terminal
PIPE_EVERY = 2.0  #: seconds between two count lines written to a pipe


def count_text(done: int, total: int) -> str:
    """The count's words (short: it must fit one line of a narrow terminal).

    >>> count_text(5, 120)
    'checked 5 of 120 signed messages'
    """
    return f"checked {done} of {total} signed messages"


class CheckingLine:
    """``progress(done, total)`` for `Journal.open_session`, writing to ``out``."""

    def __init__(self, out: TextIO, terminal: bool,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.out = out
        self.terminal = terminal
        self.clock = clock
        self._last: float | None = None
        self._shown: tuple[int, int] | None = None
        self._open = False  #: a count is on the terminal's line, without its newline

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        if done < total and self._last is not None \
                and now - self._last < (TERMINAL_EVERY if self.terminal else PIPE_EVERY):
            return
        if self._shown == (done, total):
            return
        self._last, self._shown = now, (done, total)
        text = count_text(done, total)
        if self.terminal:
            # Back to the line's start, the count, and the rest of the line erased.
            self.out.write("\r" + text + "\x1b[K" + ("\n" if done >= total else ""))
            self._open = done < total
        else:
            self.out.write(text + "\n")
        self.out.flush()

    def close(self) -> None:
        """End a count left open on the terminal's line (the replay stopped early)."""
        if self._open:
            self.out.write("\n")
            self.out.flush()
            self._open = False
