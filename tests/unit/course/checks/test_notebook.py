"""course.checks.notebook: a chapter's check cells written into its notebook, once, never into
another chapter's, and old notebooks upgraded to carry cell ids."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat
import pytest

from course.checks import CHECK_TAG, Check, CheckError, load_check, write_check
from course.checks.notebook import write_checks
from course.paths import CHAPTERS, CHECKS_DIR, source_notebook
from tests.support import VALID_YAML, write_yaml


def make_notebook(path: Path, chapter: str = "99-test") -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["servelab"] = {"chapter": chapter}
    notebook.cells = [nbformat.v4.new_markdown_cell("# Title"), nbformat.v4.new_code_cell("1 + 1")]
    nbformat.write(notebook, path)
    return path


def test_write_check_is_idempotent_and_replaces_old_cells(tmp_path: Path, check: Check) -> None:
    notebook_path = make_notebook(tmp_path / "99-test.ipynb")
    assert write_check(notebook_path, check) is True
    first = notebook_path.read_bytes()
    assert write_check(notebook_path, check) is False
    assert notebook_path.read_bytes() == first

    notebook = nbformat.read(notebook_path, as_version=4)
    notebook.cells.append(nbformat.v4.new_markdown_cell("Written after the check."))
    nbformat.write(notebook, notebook_path)
    changed = copy.deepcopy(VALID_YAML)
    changed["correct"] = "A"
    changed["options"]["A"] = {"text": "First"}
    changed["options"]["B"] = {"text": "Second", "tempts": "It was right.", "wrong": "Not now."}
    assert write_check(notebook_path, load_check(write_yaml(tmp_path, changed))) is True

    notebook = nbformat.read(notebook_path, as_version=4)
    tagged = [cell for cell in notebook.cells if CHECK_TAG in cell.metadata.get("tags", [])]
    assert len(notebook.cells) == 6 and notebook.cells[-3:] == tagged
    assert 'answer = "A"' in tagged[1].source
    assert notebook.metadata["servelab"] == {"chapter": "99-test"}


def test_write_check_refuses_a_notebook_of_another_chapter(tmp_path: Path, check: Check) -> None:
    notebook_path = make_notebook(tmp_path / "other.ipynb", chapter="01-serving-engine")
    with pytest.raises(CheckError, match="metadata says chapter '01-serving-engine'"):
        write_check(notebook_path, check)
    with pytest.raises(CheckError, match="does not exist"):
        write_check(tmp_path / "missing.ipynb", check)


def test_old_notebooks_are_upgraded_to_carry_cell_ids(tmp_path: Path, check: Check) -> None:
    path = tmp_path / "old.ipynb"
    old = {
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# t"]}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    path.write_text(json.dumps(old), encoding="utf-8")
    write_check(path, check)
    nbformat.validate(nbformat.read(path, as_version=4))


def test_write_checks_command_covers_the_chapters_that_exist(tmp_path: Path) -> None:
    first, second = CHAPTERS[:2]
    path = source_notebook(second, tmp_path)
    path.parent.mkdir(parents=True)
    make_notebook(path, chapter=second)
    report = write_checks([], CHECKS_DIR, tmp_path)
    assert f"{first}: skipped, no source notebook yet" in report
    assert f"{second}: written" in report
    assert write_checks([second], CHECKS_DIR, tmp_path) == [f"{second}: unchanged"]
    with pytest.raises(CheckError, match="does not exist"):
        write_checks([first], CHECKS_DIR, tmp_path)
    with pytest.raises(CheckError, match="unknown chapter"):
        write_checks(["99-nope"], CHECKS_DIR, tmp_path)
