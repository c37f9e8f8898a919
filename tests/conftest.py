"""Fixtures shared by the test modules, and the watch that keeps unit tests unit tests."""

from __future__ import annotations

import _posixsubprocess
import contextlib
import functools
import os
import platform
import signal
import subprocess
import sys
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

import pytest

from servelab.bench.client import RequestRecord
from tests.support import record

# pyproject.toml's test tiers: a test marked with neither is a unit test (CONTRIBUTING.md
# "Test tiers").
TIERS = ("engine", "tooling")
# Each tier's folder: a test under tests/engine or tests/tooling carries that mark, whether or not
# it says so itself, so `-m engine` and `-m "not engine and not tooling"` select by folder too.
TESTS = Path(__file__).parent
# Imported by a unit test (here or by the code it calls), either makes it an engine or tooling test.
HEAVY_IMPORTS = ("vllm", "nbgrader")
# The standard library asks `uname -p` once and keeps the answer; libraries ask for it (openai's
# request headers), so it is asked here, before any test is watched.
platform.processor()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-snapshots",
        action="store_true",
        help="rewrite each chapter's story snapshot (tests/snapshots) from its "
        "recorded findings, for review",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The mark of the tier folder (tests/engine, tests/tooling) each test sits in."""
    for item in items:
        for tier in TIERS:
            if item.path.is_relative_to(TESTS / tier) and not item.get_closest_marker(tier):
                item.add_marker(getattr(pytest.mark, tier))


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt while the test runs, as at a terminal. A process started
    in the background (as CI may start the tests) inherits SIGINT ignored, and then
    ``_thread.interrupt_main`` does nothing: an interrupted run went on to its time limit."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _command(args: object) -> str:
    words = args if isinstance(args, list | tuple) else [args]
    return " ".join(os.fsdecode(w) if isinstance(w, str | bytes) else str(w) for w in words)


@contextlib.contextmanager
def _recording_processes() -> Iterator[list[str]]:
    """Every process started meanwhile (subprocess, multiprocessing, ``os.fork``, ``os.system``),
    let run and recorded by its command."""
    started: list[str] = []

    def watched(original: Callable, command: Callable[[tuple], str]) -> Callable:
        @functools.wraps(original)
        def wrapper(*args: object, **kwargs: object) -> object:
            started.append(command(args))
            return original(*args, **kwargs)

        return wrapper

    patches = [
        (subprocess.Popen, "_execute_child", lambda a: _command(a[1])),
        (_posixsubprocess, "fork_exec", lambda a: _command(a[0])),
        (os, "fork", lambda a: "os.fork()"),
        (os, "system", lambda a: _command(a[0])),
    ]
    originals = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    for (owner, name, command), (_, _, original) in zip(patches, originals, strict=True):
        setattr(owner, name, watched(original, command))
    try:
        yield started
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)


def _unit_test_watched(item: pytest.Item) -> Generator[None, object, object]:
    """A unit test starts no process and imports neither vLLM nor nbgrader, in its fixtures
    (module-scoped ones included), its own code or the code it calls; one that does fails,
    naming what it did. tests/unit/test_tiers.py reads the test files for what they import."""
    if any(item.get_closest_marker(tier) for tier in TIERS):
        return (yield)
    already = {name for name in HEAVY_IMPORTS if name in sys.modules}
    with _recording_processes() as started:
        result = yield
    imported = [name for name in HEAVY_IMPORTS if name in sys.modules and name not in already]
    if started or imported:
        what = [f"started {', '.join(started)}"] if started else []
        what += [f"imported {', '.join(imported)}"] if imported else []
        pytest.fail(
            f"a unit test {' and '.join(what)}: mark it tooling or engine "
            "(pyproject.toml's markers, CONTRIBUTING.md 'Test tiers')",
            pytrace=False,
        )
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from _unit_test_watched(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from _unit_test_watched(item))


@pytest.fixture
def records() -> list[RequestRecord]:
    """Four made-up requests the bench's metrics, frames and plots tests share (unit and engine
    tiers): one that waited half a second for three tokens, one with a 20-token prompt and five
    quick gaps, one that gave a single token, and one with two uneven gaps."""
    return [
        record(0, 0.0, [0.1, 0.1, 0.2], ttft=0.5),
        record(1, 0.2, [0.05] * 5, ttft=0.3, prompt=20),
        record(2, 0.4, [], ttft=1.0),
        record(3, 0.5, [0.3, 0.1], ttft=0.2),
    ]
