"""Every ``SERVELAB_*`` environment variable the book and its tooling read, each with its help.

A setting chooses what runs (a size, a device, a model, a folder); it never changes what a
measurement means, and no server reads one to choose its own policy. Code reads a setting here,
by name, so that this table is the whole list. Standard library only: the install cell's
bootstrap reads some of them before anything else is installed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    """One environment variable and what it does."""

    name: str
    help: str

    def value(self) -> str | None:
        """The variable's value, stripped of blanks; None when it is unset or empty."""
        return os.environ.get(self.name, "").strip() or None

    def on(self) -> bool:
        """Whether the variable is set to ``1``."""
        return self.value() == "1"


# -- what a chapter runs (servelab) -------------------------------------------------------------
SIZE = Setting(
    "SERVELAB_SIZE",
    "the size profile (smoke, cpu or gpu) in place of the one the "
    "device implies (servelab.sizes); smoke is for tests and nbval",
)
DEVICE = Setting(
    "SERVELAB_DEVICE", "cpu: take the CPU path even where a GPU exists (servelab.hardware)"
)
MODEL = Setting(
    "SERVELAB_MODEL",
    "a model to serve in place of the device's choice: a hub name "
    "or a local folder (servelab.models)",
)
CACHE = Setting(
    "SERVELAB_CACHE",
    "where converted weights, built wheels and each device's fitted "
    "model are kept, in place "
    "of ~/.cache/servelab",
)

# -- course tooling and its tests (never installed with a chapter) -----------------------------
LESSON_FILE = Setting(
    "SERVELAB_LESSON_FILE",
    "the lesson document chapter 00 follows, in place "
    "of shared/seed/ beside the repository (course.lesson)",
)
SITE_DIR = Setting(
    "SERVELAB_SITE_DIR",
    "a built html folder for the browser tests, in place of _build/html (course.edition)",
)
BUILD_SITE = Setting(
    "SERVELAB_BUILD_SITE", "1: the browser tests build the book first, once (course.edition)"
)
EXECUTED_DIR = Setting(
    "SERVELAB_EXECUTED_DIR",
    "a folder nbval's runs of the instructor sources "
    "are kept in, outputs and all, for the site (course.executed)",
)
REQUIRE_SITE = Setting(
    "SERVELAB_REQUIRE_SITE",
    "1: a missing built site, page or browser fails "
    "the site tests instead of skipping them (env/run-tests.sh sets it)",
)
TIMING = Setting(
    "SERVELAB_TIMING", "a file benchmarks/timing.py's kernel appends each server start and run to"
)

SETTINGS = (
    SIZE,
    DEVICE,
    MODEL,
    CACHE,
    LESSON_FILE,
    SITE_DIR,
    BUILD_SITE,
    EXECUTED_DIR,
    REQUIRE_SITE,
    TIMING,
)
