"""Ctrl-C, whenever it comes: an orderly stop, one plain line, exit status 130.

Left to Python, SIGINT raises KeyboardInterrupt in whatever line runs (people saw
tracebacks from inside an import), and Twisted's own handler stops the reactor under a
command that awaits an asyncio prompt (a CancelledError traceback). `CtrlC` takes SIGINT
from the first line of `main`: while the command is still starting (imports, arguments)
it unwinds with KeyboardInterrupt, since nothing is open yet; once the reactor has the
command it asks the reactor to stop, so the command's own clean-up runs first (AI children
stopped, tables closed; see ``main._networked``). A prompt that reads Ctrl-C as a key (the
terminal then sends no signal) raises `Interrupted` instead. Either way `main` prints
`CtrlC.farewell` and exits with `INTERRUPTED`.
"""

from __future__ import annotations

import os
import signal
from types import FrameType
from typing import Any

from tractor.cli.errors import CliError

#: The exit status of a command ended by Ctrl-C (128 + SIGINT, as shells report it).
INTERRUPTED = 128 + signal.SIGINT


#: Set for the children `tractor.ai.hosting.children.spawn` starts (its PARENT_ENV; imported from
#: there it would bring Twisted in before Ctrl-C is taken).
PARENT_ENV = "TRACTOR_PARENT_PID"


class Interrupted(CliError):
    """Ctrl-C typed at a prompt that reads it as a key."""


class CtrlC:
    """What Ctrl-C does for one run of `main`."""

    def __init__(self) -> None:
        self.pressed = False
        #: The person's game is in the journal (`tractor resume` can continue it).
        self.game_kept = False
        self._reactor: Any = None
        self._previous: Any = None
        self._installed = False

    def install(self) -> None:
        """Take SIGINT, unless it is ignored (a job started in the background keeps
        ignoring it, as the shell meant). An AI child of a person's command ignores it:
        Ctrl-C at the terminal reaches the whole process group, and the parent stops its
        children in order (a child that died of it first was reported as a failure)."""
        global _current
        _current = self
        self._previous = signal.getsignal(signal.SIGINT)
        if self._previous is signal.default_int_handler and PARENT_ENV in os.environ:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            self._installed = True
        elif self._previous is signal.default_int_handler:
            signal.signal(signal.SIGINT, self._on_signal)
            self._installed = True

    def uninstall(self, exiting: bool) -> None:
        """Give SIGINT back (`main` called by a program that goes on, as tests do); a
        process about to exit ignores it instead (Python's handler would print a traceback
        from wherever the exit is, waiting for a thread for instance)."""
        global _current
        if self._installed:
            signal.signal(signal.SIGINT, signal.SIG_IGN if exiting else self._previous)
            self._installed = False
        if _current is self:
            _current = None

    def hand_to(self, reactor: Any) -> None:
        """From now on Ctrl-C stops ``reactor`` (running or about to run) instead of
        unwinding: Twisted leaves a SIGINT handler that is not Python's default alone."""
        self._reactor = reactor

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self.pressed:
            return  # the stop is under way, and bounded (AI children are killed after 5 s)
        self.pressed = True
        _end_echoed_line()
        if self._reactor is None:
            raise KeyboardInterrupt
        # The reactor's own way from a signal handler (as its sigInt does).
        self._reactor.callFromThread(_stop, self._reactor)

    def farewell(self) -> str:
        if self.game_kept:
            return ("tractor: interrupted; the journal is kept (`tractor resume` continues "
                    "the game)")
        return "tractor: interrupted"


_current: CtrlC | None = None


def game_kept() -> None:
    """The person's seat is in the journal from now on: an interruption says how to go
    on."""
    if _current is not None:
        _current.game_kept = True


def ctrl_c_pressed() -> bool:
    return _current is not None and _current.pressed


def typed() -> None:
    """Ctrl-C came as a key at a prompt: the same ending as the signal."""
    if _current is not None:
        _current.pressed = True


def _end_echoed_line() -> None:
    """A terminal in line mode echoed "^C": what follows starts on a line of its own, as
    after Ctrl-C in a shell."""
    try:
        # Imported here: not on every system (no POSIX terminals on Windows), and this
        # module comes first of all in `main`, before it takes Ctrl-C.
        import termios
    except ImportError:  # no terminals of this kind
        return
    try:
        if not (os.isatty(0) and os.isatty(2)):
            return
        lflag = termios.tcgetattr(0)[3]
        if lflag & termios.ICANON and lflag & termios.ECHO and lflag & termios.ECHOCTL:
            os.write(2, b"\n")
    except (OSError, termios.error):
        pass


def _stop(reactor: Any) -> None:
    # Imported here, for start-up speed: this module is imported before `main` takes
    # Ctrl-C, Twisted only once a reactor runs.
    from twisted.internet.error import ReactorNotRunning

    try:
        reactor.stop()
    except ReactorNotRunning:
        pass  # already stopping
