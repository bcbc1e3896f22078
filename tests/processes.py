"""A test's processes: a `tractor --plain` session answered prompt by prompt, and finding
the AI peers a command started (their command line names the test's data folder)."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
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


PROMPTS = ("play> ", "bury> ", "declare> ", "bid> ", "show> ", "trump> ")


class Session:
    """A `tractor ... --plain` process answered one prompt at a time."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-P", "-m", "tractor.cli.main", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.out = ""
        self.chunks: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            data = os.read(self.proc.stdout.fileno(), 4096)
            if not data:
                return
            self.chunks.put(data)

    def until(self, test, seconds: float) -> bool:
        end = time.time() + seconds
        while time.time() < end:
            try:
                self.out += self.chunks.get(timeout=0.2).decode(errors="replace")
            except queue.Empty:
                pass
            if test(self.out):
                return True
        return False

    def answer_prompts(self, count: int, seconds: float, stop=lambda out: False) -> int:
        """Accept the hint at ``count`` prompts (or until ``stop``); returns how many."""
        done = 0
        seen = -1  # output length when the last question was answered
        while done < count:
            if not self.until(lambda out, seen=seen: out.endswith(PROMPTS) and len(out) > seen
                              or stop(out), seconds):
                break
            if stop(self.out):
                break
            asked = len(self.out)
            self.send("hint")
            self.until(lambda out, asked=asked: "hint" in out[asked:] and
                       out.endswith(PROMPTS), seconds)
            seen = len(self.out)  # any prompt after this one is a new question
            self.send("")
            done += 1
        return done

    def send(self, line: str) -> None:
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()
