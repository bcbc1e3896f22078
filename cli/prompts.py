"""The commands' prompts outside the play screen: lines read from a terminal or a pipe
(`LineReader`), a prompt ended while it is still open (`end_prompt`), and the person who
gives up at one (`GaveUp`)."""

from __future__ import annotations

import asyncio
import shutil
import sys
import textwrap
from typing import Any, TextIO

from tractor.cli.errors import CliError

from .interrupts import Interrupted, typed
from .stdin_lines import read_line


class GaveUp(CliError):
    """The person left before the game began (quit in the lobby, no passphrase given)."""


def fit(text: str, stream: TextIO | None = None) -> str:
    """``text`` folded to the terminal's width between words, the lines after the first of
    a paragraph indented, when ``stream`` (standard output) is a terminal: the terminal
    itself would cut inside a word or a path. A pipe gets it as it is (one line a message,
    for scripts). A word longer than the line (a path) stands alone on its line.

        >>> print(fit("there is no hand 9 to replay in game abc", _Width(20)))
        there is no hand 9
          to replay in game
          abc
    """
    stream = stream if stream is not None else sys.stdout
    try:
        width = getattr(stream, "columns", None) or (
            shutil.get_terminal_size().columns if stream.isatty() else 0)
    except (AttributeError, ValueError, OSError):  # a closed or odd stream: as it is
        width = 0
    if width < 20:
        return text
    return "\n".join(textwrap.fill(line, width - 1, subsequent_indent="  ",
                                   break_long_words=False, break_on_hyphens=False)
                     if len(line) >= width else line for line in text.split("\n"))


class _Width:
    """A stand-in for a terminal of ``columns`` (the doctest's)."""

    def __init__(self, columns: int) -> None:
        self.columns = columns

    def isatty(self) -> bool:
        return True


def say(text: str, stream: TextIO | None = None) -> None:
    """A line for the person: on standard output, or ``stream`` (standard error), folded
    to the terminal's width (`fit`)."""
    out = stream if stream is not None else sys.stdout
    print(fit(text, out), file=out, flush=True)


class LineReader:
    """Lines typed by the person: with prompt_toolkit on a terminal, else from the pipe
    (scripts). Call it with a prompt for the next line (None at the end of input: Ctrl-D,
    or the pipe closed); Ctrl-C raises `Interrupted`. `say` prints a line above an open
    prompt, leaving what is being typed in place."""

    def __init__(self) -> None:
        self.session: Any = None
        if sys.stdin.isatty() and sys.stdout.isatty():
            # Imported here, for start-up speed: prompt_toolkit takes a tenth of a
            # second and more, and the headless commands (`tractor ai`, one process per
            # AI seat) never prompt.
            from prompt_toolkit import PromptSession

            self.session = PromptSession()

    @property
    def on_terminal(self) -> bool:
        """A person types the lines (a script's lines come from a pipe)."""
        return self.session is not None

    async def __call__(self, prompt: str) -> str | None:
        if self.session is None:
            return await read_line()
        try:
            return str(await self.session.prompt_async(prompt))
        except EOFError:
            return None
        except KeyboardInterrupt:  # the terminal was raw: Ctrl-C came as a key, no signal
            typed()
            raise Interrupted() from None

    def say(self, text: str) -> None:
        app = self.session.app if self.session is not None else None
        if app is None or not app.is_running:
            say(text)
            return
        # Imported here, for start-up speed, as in `__init__` (a prompt is open: it is loaded).
        from prompt_toolkit.application import run_in_terminal

        # The prompt steps aside (erased, the line printed, then drawn again with its
        # text); lines said one after another keep their order.
        run_in_terminal(lambda: say(text))


async def end_prompt(task: asyncio.Future[Any]) -> None:
    """Cancel a running ``prompt_async`` and wait until it has really ended.

    A cancelled prompt goes on tearing down for a while (it awaits its background tasks
    and cursor reports), and at its end it restores what it found when it started: the
    terminal's cooked mode, no reader on stdin, no current application. If the next prompt
    or the play screen has started by then, it loses the terminal: input line-buffered or
    gone, Ctrl-Q and Esc lost, every pane drawn from a stale cache (a frozen screen)."""
    if not task.done():
        task.cancel()
    await asyncio.wait({task})
