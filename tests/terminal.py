"""A program on a pseudo-terminal, its screen kept by a terminal emulator (pyte), keys typed:
how the full-screen client is tested as a person sees it."""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable


class Terminal:
    """``argv`` on a new pseudo-terminal of ``cols`` x ``rows`` (``cwd``, ``env``)."""

    def __init__(self, argv: list[str], env: dict[str, str], cols: int = 100,
                 rows: int = 30, cwd: str | None = None) -> None:
        import fcntl
        import pty
        import struct
        import termios

        import pyte

        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()  #: everything the program wrote (for failure messages)
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the program
            try:
                if cwd is not None:
                    os.chdir(cwd)
                env = {**env, "COLUMNS": str(cols), "LINES": str(rows), "TERM": "xterm"}
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.status: int | None = None

    def pump(self, seconds: float) -> None:
        """Read what the program writes for ``seconds``."""
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
                self.raw += data
                self.stream.feed(data)

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

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

    def exited(self, seconds: float) -> bool:
        """Whether the program ends within ``seconds`` (reading its screen meanwhile)."""
        end = time.time() + seconds
        while time.time() < end:
            if self.poll() is not None:
                return True
            self.pump(0.05)
        return self.poll() is not None

    def poll(self) -> int | None:
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
        return self.status

    def close(self) -> int | None:
        if self.poll() is None:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            if not self.exited(5.0):
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
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
            term.send("i")  # hint: the AI's move is preselected
            term.pump(0.2)
            term.send("\r")  # Enter plays it
            keys += 2
        term.pump(0.3)
    return keys
