"""Suite-wide hooks: the LAN lab scenarios' durations at the end of the run (gathered from
each test's report, so they arrive from pytest-xdist's workers too)."""

from __future__ import annotations

import sys

import pytest

_DURATIONS: dict[str, float] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "teardown":  # after the fixtures: a failed scenario's time too
        recorded = getattr(sys.modules.get("lanlab"), "DURATIONS", None)
        if recorded:
            report.user_properties.extend(("lab duration", [k, v]) for k, v in recorded.items())
            recorded.clear()


def pytest_runtest_logreport(report):
    for key, value in report.user_properties:
        if key == "lab duration":
            _DURATIONS[value[0]] = value[1]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if _DURATIONS:
        terminalreporter.section("LAN lab scenario durations")
        for name, seconds in _DURATIONS.items():
            terminalreporter.write_line(f"{name}: {seconds:.1f} s")
