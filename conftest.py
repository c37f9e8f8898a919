"""pytest hooks: under nbval, how long each instructor source took, and at what size; nbval's
cells are engine tests; where SERVELAB_EXECUTED_DIR is set, each source as nbval ran it is kept
there (course.executed), for the site to be built from."""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

import pytest

from course.executed import Kept
from servelab import settings

_seconds: dict[str, float] = defaultdict(float)
_kept = Kept()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.fspath.endswith(".ipynb"):
        _seconds[report.fspath] += report.duration


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _seconds:
        return
    size = os.environ.get("SERVELAB_SIZE") or "device default"
    terminalreporter.section(f"nbval: time per chapter at size '{size}'")
    for path, seconds in sorted(_seconds.items()):
        terminalreporter.write_line(f"{seconds:8.1f} s  {path}")
    terminalreporter.write_line(f"{sum(_seconds.values()):8.1f} s  all chapters")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """nbval runs each instructor source against the real engine: its cells are ``engine`` tests
    (pyproject.toml's markers), so ``-m "not engine"`` leaves them out."""
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.engine)


def pytest_runtest_teardown(item: pytest.Item) -> None:
    if settings.EXECUTED_DIR.value():
        _kept.cell_ran(item)


def pytest_sessionfinish(session: pytest.Session) -> None:
    folder = settings.EXECUTED_DIR.value()
    if folder and _kept.notebooks:
        _kept.write(Path(folder))
