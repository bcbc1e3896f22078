"""A child process on a pseudo-terminal, its screen kept by a terminal emulator (pyte).

The end-to-end tests of the full-screen client drive it through this: keys go in as bytes,
the screen comes back as text. Like a real terminal, it answers cursor position requests
(prompt_toolkit asks for them), so the program sees what it would see in a terminal.
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable


class Terminal:
    """``argv`` (looked up on PATH) on a new pseudo-terminal of ``cols`` x ``rows``, in
    ``cwd``, with exactly the environment ``env``."""

    def __init__(self, argv: list[str], env: dict[str, str], cols: int = 100,
                 rows: int = 30, cwd: str | None = None) -> None:
        import fcntl
        import pty
        import struct
        import termios

        import pyte

        terminal = self

        class AnsweringScreen(pyte.Screen):  # type: ignore[misc]
            def write_process_input(self, data: str) -> None:
                terminal.send(data)

        self.screen = AnsweringScreen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.output = bytearray()  #: everything the program wrote (the screen scrolls)
        self.status: int | None = None
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the program
            try:
                # As a terminal starts it: a suite run in the background of a script
                # ignores SIGINT, and an ignored signal is inherited (Ctrl-C before the
                # program's own handler, or after it leaves one ignored, did nothing).
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                if cwd is not None:
                    os.chdir(cwd)
                os.execvpe(argv[0], argv, {**env, "COLUMNS": str(cols), "LINES": str(rows),
                                           "TERM": env.get("TERM", "xterm")})
            finally:
                os._exit(127)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def pump(self, seconds: float) -> None:
        """Read what the program writes for ``seconds`` (less if it ends)."""
        end = time.time() + seconds
        while True:
            left = end - time.time()
            if left <= 0:
                return
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:
                    return
                if not data:
                    return
                self.feed(data)

    def feed(self, data: bytes) -> None:
        """Take what the program wrote (`pump`, or a reader of one's own)."""
        self.output += data
        self.stream.feed(data)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def written(self) -> str:
        """Everything the program wrote so far, as text (escape sequences included)."""
        return self.output.decode("utf-8", "replace")

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def wait_until(self, test: Callable[[str], bool], seconds: float) -> bool:
        end = time.time() + seconds
        while time.time() < end:
            self.pump(0.2)
            if test(self.text()):
                return True
        return False

    def wait_for(self, needle: str, seconds: float) -> bool:
        return self.wait_until(lambda text: needle in text, seconds)

    def poll(self) -> int | None:
        """The exit status once the program has ended, else None."""
        if self.status is None and self.pid:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
        return self.status

    def exited(self, seconds: float) -> int | None:
        """The program's exit status if it ends within ``seconds`` (reading its output
        meanwhile), else None."""
        end = time.time() + seconds
        while self.poll() is None and time.time() < end:
            self.pump(0.05)
        status = self.poll()
        if status is not None:
            # What it wrote just before it ended may still wait in the terminal: read it
            # (a loaded machine ran a test's check before its last line was read).
            self.pump(1.0)
        return status

    def close(self) -> int | None:
        if self.poll() is None:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            if self.exited(5.0) is None:
                os.kill(self.pid, signal.SIGKILL)
                _, self.status = os.waitpid(self.pid, 0)
        try:
            os.close(self.fd)
        except OSError:
            pass
        return self.status


def play_full_screen_hand(term: Terminal, seconds: float) -> int:
    """Answer every decision of the full-screen client until the hand is over: pass on
    declarations, take the hint (i, then Enter) for burials and plays. Returns the keys
    typed."""
    deadline = time.time() + seconds
    keys = 0
    while time.time() < deadline and "is over" not in term.text():
        lines = term.text().splitlines()
        status = lines[0] if lines else ""
        if "you may declare trumps" in status:
            term.send("p")  # pass in the declaration panel
            keys += 1
        elif "your turn" in status:
            take_hint(term)
            keys += 2
        term.pump(0.3)
    return keys


def quit_screen(term: Terminal, seconds: float = 10.0) -> int | None:
    """Leave the full-screen client as a person does: Ctrl-Q asks, a second Ctrl-Q quits.
    Returns the exit status if the program ends within ``seconds`` of the second press."""
    term.send("\x11")
    if not term.wait_for("Quit?", 10):
        raise AssertionError("the first Ctrl-Q did not ask:\n" + term.text())
    term.send("\x11")
    return term.exited(seconds)


def hint_shown(text: str) -> bool:
    """The hint is on screen (preselected), or the turn has gone."""
    lines = text.splitlines()
    thinking = "Hint: thinking" in text or "still thinking" in text
    return (("Hint:" in text and not thinking) or "No hint" in text
            or not lines or "your turn" not in lines[0])


def take_hint(term: Terminal, seconds: float = 15.0) -> None:
    """``i`` asks for the hint (the search thinks up to a second, off the screen's thread);
    once it is shown, Enter plays it. Waiting for it, as a person does, keeps a second
    ``i`` from landing on the next turn."""
    term.send("i")
    term.wait_until(hint_shown, seconds)
    term.send("\r")
