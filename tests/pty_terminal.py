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


class Terminal:
    """A child process on a pseudo-terminal, its screen kept by a terminal emulator."""

    def __init__(self, argv: list[str], env: dict[str, str], cols: int = 100,
                 rows: int = 30) -> None:
        import pty

        import pyte

        terminal = self

        class AnsweringScreen(pyte.Screen):  # type: ignore[misc]
            def write_process_input(self, data: str) -> None:
                terminal.send(data)

        self.screen = AnsweringScreen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.output = bytearray()  #: everything the program wrote (the screen scrolls)
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the program
            os.environ.update(env)
            os.environ["COLUMNS"], os.environ["LINES"] = str(cols), str(rows)
            os.execv(argv[0], argv)
        import fcntl
        import struct
        import termios

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
                self.output += data
                self.stream.feed(data)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def written(self) -> str:
        """Everything the program wrote so far, as text (escape sequences included)."""
        return self.output.decode("utf-8", "replace")

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def wait_for(self, needle: str, seconds: float) -> bool:
        end = time.time() + seconds
        while time.time() < end:
            self.pump(0.2)
            if needle in self.text():
                return True
        return False

    def exited(self, seconds: float) -> int | None:
        """The program's exit status if it ends within ``seconds`` (reading its output
        meanwhile), else None."""
        end = time.time() + seconds
        while time.time() < end:
            self.pump(0.1)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.pid = 0
                return status
        return None

    def close(self) -> int | None:
        if not self.pid:
            return None
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        for _ in range(50):
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.pid = 0
                return status
            time.sleep(0.1)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        self.pid = 0
        return None
