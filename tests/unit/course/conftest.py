"""The check every test of course.checks starts from: the valid YAML of tests/support.py, loaded."""

from __future__ import annotations

from pathlib import Path

import pytest

from course.checks import Check, load_check
from tests.support import VALID_YAML, write_yaml


@pytest.fixture
def check(tmp_path: Path) -> Check:
    return load_check(write_yaml(tmp_path, VALID_YAML))
