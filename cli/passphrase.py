"""Asking for a passphrase: hidden on a terminal, a line from a pipe.

On a terminal the prompt is prompt_toolkit's, on the reactor's own loop (getpass held the
loop, ignored Ctrl-C and Ctrl-D, and the person was stuck). Ctrl-C there ends the command
(`Interrupted`), Ctrl-D gives up (`GaveUp`, naming what did not happen), an empty answer
says why one is needed and asks again, a few times. A passphrase that sets one (a host's,
an AI server's) is typed twice on a terminal: a typo there would lock out everybody.
From a pipe (scripts) it is the next line of the one shared standard-input reader (a
getpass there would race that reader for the line), once.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from typing import Any

from twisted.internet.defer import Deferred

from .interrupts import Interrupted, typed
from .prompts import GaveUp, say
from .stdin_lines import read_line

TRIES = 3  #: empty answers (or two that differ) before asking gives up


@dataclass(frozen=True)
class Asking:
    """One passphrase to ask for."""

    what: str  #: the prompt's words: "table passphrase"
    why: str  #: said after an empty answer
    unless: str  #: what does not happen without one: "the table was not opened"
    twice: bool = False  #: it sets a passphrase: typed twice on a terminal


HOSTING = Asking("table passphrase", "without one, anyone could sit at your table",
                 "the table was not opened", twice=True)
JOINING = Asking("table passphrase", "this table lets no one sit without its passphrase",
                 "the table was not joined")
AI_JOINING = Asking("table passphrase", "this table lets no one sit without its passphrase",
                    "no AI seat joined")
AI_SERVER_USE = Asking("AI server passphrase",
                       "the AI server gives players only to hosts who know it",
                       "the table was not opened")
AI_SERVING = Asking("AI server passphrase",
                    "without one, any host on the LAN gets your AI players",
                    "the AI server was not started", twice=True)


async def ask_passphrase(given: str | None, needed: bool, asking: Asking) -> str | None:
    """The passphrase given, else (``-``, or a table that needs one) asked for."""
    if not (given == "-" or (given is None and needed)):
        return given
    ask = _on_terminal if sys.stdin.isatty() else _from_pipe
    for _ in range(TRIES):
        typed_in = await ask(asking)
        if typed_in is None:
            raise GaveUp(f"no passphrase given: {asking.unless}")
        if typed_in:
            return typed_in
    raise GaveUp(f"no passphrase given after {TRIES} tries: {asking.unless}")


async def _from_pipe(asking: Asking) -> str | None:
    """The next line, stripped ('' after saying why an empty one will not do)."""
    say(f"{asking.what}: ")
    line: str | None = await _on_loop(read_line())
    if line is None:
        return None
    if not line.strip():
        say(f"an empty passphrase: type one ({asking.why})")
    return line.strip()


async def _on_terminal(asking: Asking) -> str | None:
    """Typed hidden, twice when it sets one ('' after saying what went wrong)."""
    first = await _hidden(f"{asking.what}: ")
    if first is None:
        return None
    if not first.strip():
        say(f"an empty passphrase: type one ({asking.why}), or Ctrl-D to give up")
        return ""
    if not asking.twice:
        return first
    again = await _hidden(f"{asking.what} again: ")
    if again is None:
        return None
    if again != first:
        say("the two passphrases differ: type it again")
        return ""
    return first


def _on_loop(coro: Any) -> Any:
    """Await an asyncio coroutine from the Twisted coroutines that ask (one loop)."""
    return Deferred.fromFuture(asyncio.ensure_future(coro))


async def _hidden(prompt: str) -> str | None:
    """One line typed without echo; None on Ctrl-D."""
    # Imported here, for start-up speed: prompt_toolkit takes a tenth of a second and
    # more, and the headless commands (`tractor ai`, one process per AI seat) never prompt.
    from prompt_toolkit import PromptSession
    from prompt_toolkit.output import create_output

    # Standard output may go to a file: the prompt is then drawn on standard error.
    session: PromptSession[str] = PromptSession(output=create_output(always_prefer_tty=True))
    try:
        answer: Any = await _on_loop(session.prompt_async(prompt, is_password=True))
    except EOFError:
        return None
    except KeyboardInterrupt:  # raw mode: Ctrl-C came as a key
        typed()
        raise Interrupted() from None
    return str(answer)
