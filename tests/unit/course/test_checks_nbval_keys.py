"""nbval guards the answer keys: the check cells of a source carry the output they print with the
key, so `pytest --nbval-lax` fails when a key no longer passes its own hidden test.

Runs nbval on a copy holding only a chapter's check cells (no server needed), once as generated
and once with the key broken.
"""

from __future__ import annotations

import pytest

from course.checks import check_cells, load_check
from course.paths import CHECKS_DIR

CHAPTER = "02-continuous-batching"


@pytest.fixture(scope="module")
def check():
    return load_check(CHECKS_DIR / f"{CHAPTER}.yml", CHAPTER)


def test_the_test_cell_asks_nbval_to_compare_its_output(check) -> None:
    test_cell = check_cells(check)[-1]
    assert "nbval-check-output" in test_cell.metadata["tags"]
    printed = "".join(output.get("text", "") for output in test_cell.outputs)
    assert f"answer {check.correct}" in printed
