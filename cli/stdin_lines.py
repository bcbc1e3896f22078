"""Lines from standard input when it is a pipe, for every prompt of one process.

One reader thread feeds a queue; the lobby prompt and the plain game screen both take
their lines from it, so a line typed (or scripted) is never swallowed by a reader that a
finished prompt left behind.
"""

from __future__ import annotations

import asyncio
import sys
import threading

_queue: asyncio.Queue[str | None] | None = None


def _start(loop: asyncio.AbstractEventLoop) -> asyncio.Queue[str | None]:
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def pump() -> None:
        while True:
            line = sys.stdin.readline()
            loop.call_soon_threadsafe(queue.put_nowait, line if line else None)
            if not line:
                return

    threading.Thread(target=pump, name="stdin-lines", daemon=True).start()
    return queue


async def read_line() -> str | None:
    """The next line without its newline, or None at the end of input."""
    global _queue
    if _queue is None:
        _queue = _start(asyncio.get_running_loop())
    line = await _queue.get()
    if line is None:
        _queue.put_nowait(None)  # every later read sees the end too
        return None
    return line.rstrip("\r\n")
