"""nbval guards the answer keys: the check cells of a source carry the output they print with the
key, so `pytest --nbval-lax` fails when a key no longer passes its own hidden test.

Runs nbval on a copy holding only a chapter's check cells (no server needed), once as generated
and once with the key broken.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from course.checks import LETTERS, check_cells, load_check
from course.paths import CHECKS_DIR, REPO_ROOT

SANITIZER = REPO_ROOT / "assignments" / "nbval-sanitize.cfg"
CHAPTER = "02-continuous-batching"


def _nbval(notebook: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--nbval-lax",
            "--nbval-current-env",
            "--nbval-sanitize-with",
            str(SANITIZER),
            str(notebook),
        ],
        capture_output=True,
        text=True,
        cwd=notebook.parent,
        timeout=300,
    )


def _write(cells: list, path: Path) -> Path:
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(notebook, path)
    return path


@pytest.fixture(scope="module")
def check():
    return load_check(CHECKS_DIR / f"{CHAPTER}.yml", CHAPTER)


@pytest.mark.tooling  # nbval runs the notebook in a kernel, in a child pytest
def test_nbval_passes_with_the_key_and_fails_with_a_broken_one(check, tmp_path: Path) -> None:
    cells = check_cells(check)
    passing = _nbval(_write(cells, tmp_path / "key.ipynb"))
    assert passing.returncode == 0, passing.stdout[-3000:]

    wrong = next(letter for letter in LETTERS if letter != check.correct)
    cells[1].source = cells[1].source.replace(f'"{check.correct}"', f'"{wrong}"')
    failing = _nbval(_write(cells, tmp_path / "broken.ipynb"))
    assert failing.returncode != 0, failing.stdout[-3000:]
    assert "AssertionError" in failing.stdout
