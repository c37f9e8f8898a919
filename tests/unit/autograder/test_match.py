"""autograder.match: a submitted file read as a notebook or refused with the reason, and the
chapter it answers found by its content before its name (a hostile class of files:
tests/tooling/autograder/test_grade.py)."""

from __future__ import annotations

import json

import nbformat
import pytest

from autograder.match import Unreadable, chapter_from_name, chapter_of, parse
from course.checks import check_cells, load_check
from tests.support import VALID_YAML, write_yaml

CHAPTERS = ["00-serving-many-users", "01-serving-engine"]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"  ", "empty"),
        (b"\xff\xfe\x00", "binary"),
        (b'{"cells": [', "not valid JSON"),
        (b'{"metadata": {}}', "no cells"),
        (b'{"cells": [{"cell_type": "nonsense"}]}', "not a valid notebook"),
    ],
)
def test_a_file_that_is_not_a_notebook_is_refused_with_the_reason(data, reason) -> None:
    with pytest.raises(Unreadable, match=reason):
        parse(data)


def test_a_notebook_is_upgraded_and_its_cells_get_ids_of_their_own() -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell("a"), nbformat.v4.new_code_cell("b")]
    notebook.cells[1].id = notebook.cells[0].id  # a hand copy
    parsed = parse(json.dumps(notebook).encode("utf-8"))
    assert len({cell.id for cell in parsed.cells}) == 2 and parsed.nbformat == 4


def test_the_chapter_is_read_from_the_content_before_the_name(tmp_path) -> None:
    notebook = nbformat.v4.new_notebook()
    name = ("class", "01-serving-engine (1).ipynb")
    assert chapter_of(notebook, name, CHAPTERS, {}) == "01-serving-engine"  # the name, last
    check = load_check(write_yaml(tmp_path, VALID_YAML, "00-serving-many-users.yml"))
    notebook.cells = check_cells(check)
    assert chapter_of(notebook, name, CHAPTERS, {}) == "00-serving-many-users"  # the cells' ids
    notebook.metadata["servelab"] = {"chapter": "01-serving-engine"}
    assert chapter_of(notebook, ("x.ipynb",), CHAPTERS, {}) == "01-serving-engine"  # its claim
    asked = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("Which is it?")])
    assert chapter_of(asked, ("x.ipynb",), CHAPTERS, {"00-serving-many-users": "Which is it?"}) == (
        "00-serving-many-users"
    )  # the question's text


def test_a_name_names_one_chapter_or_none() -> None:
    assert chapter_from_name(("00-serving-many-users", "mine.ipynb"), CHAPTERS) == (
        "00-serving-many-users"
    )
    assert chapter_from_name(("mine.ipynb",), CHAPTERS) is None
