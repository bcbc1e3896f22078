"""Ending a prompt_toolkit prompt that is still open (the table moved on meanwhile)."""

from __future__ import annotations

import asyncio
from typing import Any


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
