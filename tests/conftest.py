"""Fixtures shared by the test modules."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt while the test runs, as at a terminal. A process started
    in the background (as CI may start the tests) inherits SIGINT ignored, and then
    ``_thread.interrupt_main`` does nothing: an interrupted run went on to its time limit."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
