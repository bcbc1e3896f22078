"""Suite-wide hooks: the deck's scalar multiplications remembered in each test process
(`crypto_memo`); the `unit` mark on every test of no other tier; the tests' temporary
folders in memory where the machine has a RAM file system; the LAN lab scenarios' durations
at the end of the run (gathered from each test's report, so they arrive from pytest-xdist's
workers too)."""

from __future__ import annotations

import os
import sys
import tempfile

import pytest

_DURATIONS: dict[str, float] = {}

#: A RAM file system for the tests' temporary folders (`tmp_path`), with at least this much
#: room left in it.
RAM_TEMPROOT = "/dev/shm"
RAM_NEEDED = 2 << 30


def pytest_configure(config: pytest.Config) -> None:
    """Every peer writes its journal before it sends (an fsync per SQLite commit, one per
    frame): on this machine's disk the processes of an end-to-end game spent about a third
    of their time waiting on fsync (a practice hand: 51 s on disk, 25 s in /dev/shm, the
    same code run). The folders go where pytest puts them (pytest-of-<user>, the last 3
    runs kept) under /dev/shm instead of the system's temporary folder, unless a folder was
    asked for (--basetemp, TMPDIR) or there is no such file system. xdist's workers get
    theirs from the controller."""
    if (config.option.basetemp is not None or hasattr(config, "workerinput")
            or "TMPDIR" in os.environ or "PYTEST_DEBUG_TEMPROOT" in os.environ):
        return
    try:
        room = os.statvfs(RAM_TEMPROOT)
    except OSError:
        return
    if room.f_bavail * room.f_frsize >= RAM_NEEDED and os.access(RAM_TEMPROOT, os.W_OK):
        tempfile.tempdir = RAM_TEMPROOT


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """The deck's scalar multiplications remembered in this process (`crypto_memo` says
    why and what it leaves unchanged), unless TRACTOR_TEST_NO_MEMO=1."""
    if os.environ.get("TRACTOR_TEST_NO_MEMO") != "1":
        import crypto_memo

        crypto_memo.install()


#: The tiers besides `unit` (pyproject.toml registers them; README says how to run each).
OTHER_TIERS = ("slow", "e2e", "lab")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test not marked slow, e2e or lab is a unit test, so `pytest -m unit` runs the
    fast tier without a mark on each unit test. First, before `-m` deselects by marks."""
    for item in items:
        if not any(item.get_closest_marker(tier) for tier in OTHER_TIERS):
            item.add_marker(pytest.mark.unit)


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
