"""Suite-wide hooks: the LAN lab scenarios' durations at the end of the run."""

from __future__ import annotations

import sys


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    lab = sys.modules.get("lanlab")
    durations = getattr(lab, "DURATIONS", None)
    if durations:
        terminalreporter.section("LAN lab scenario durations")
        for name, seconds in durations.items():
            terminalreporter.write_line(f"{name}: {seconds:.1f} s")
