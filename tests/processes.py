"""Finding a test's processes: the AI peers a command started (their command line names
the test's data folder)."""

from __future__ import annotations

import os
from pathlib import Path


def ai_processes(home: str | os.PathLike[str]) -> list[int]:
    """Pids of the `tractor ai` processes whose command line names ``home``."""
    pids = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if str(home) in cmd and "\0ai\0" in cmd:
                pids.append(int(pid))
    return pids
