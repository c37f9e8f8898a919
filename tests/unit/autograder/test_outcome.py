"""autograder.outcome: an autograded notebook's status and reason for grades.csv, one branch each
(the same through a whole graded class: tests/tooling/autograder/test_grade.py)."""

from __future__ import annotations

import nbformat
import pytest

from autograder.answer import Answer
from autograder.outcome import judge
from course.checks import check_cells, load_check
from tests.support import VALID_YAML, write_yaml


def _graded(tmp_path, status: str = "ok", error: str | None = None, detail: str = ""):
    """A notebook with a check's cells, as the sandbox left it (``error``: the test cell's)."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = check_cells(load_check(write_yaml(tmp_path, VALID_YAML)))
    notebook.metadata["autograder"] = {"status": status, "detail": detail}
    if error is not None:
        notebook.cells[2].outputs = [
            nbformat.v4.new_output("error", ename="AssertionError", evalue=error, traceback=[])
        ]
    return notebook


@pytest.mark.parametrize(
    ("status", "detail", "expected", "named"),
    [
        ("timeout", "", "timeout", "30 s"),
        ("crashed", "bwrap failed", "error", "bwrap failed"),
        ("crashed", "", "error", "crashed"),
    ],
)
def test_a_run_that_did_not_finish_says_why(tmp_path, status, detail, expected, named) -> None:
    found, reason = judge(_graded(tmp_path, status, detail=detail), Answer("B"), 0, 1, 30)
    assert found == expected and named in reason


def test_an_answer_missing_unset_or_unreadable_is_its_own_status(tmp_path) -> None:
    notebook = _graded(tmp_path)
    assert judge(notebook, None, 0, 1, 30)[0] == "no-answer"
    assert judge(notebook, Answer(None), 0, 1, 30)[0] == "no-answer"
    assert judge(notebook, None, 0, 1, 30) != judge(notebook, Answer(None), 0, 1, 30)
    assert judge(notebook, Answer(None, "two letters"), 0, 1, 30) == ("bad-answer", "two letters")


def test_a_full_score_has_no_reason_and_a_wrong_option_quotes_the_test_cell(tmp_path) -> None:
    assert judge(_graded(tmp_path), Answer("B"), 1, 1, 30) == ("ok", "")
    wrong = _graded(tmp_path, error="  C tempts  ")
    assert judge(wrong, Answer("C"), 0, 1, 30) == ("ok", "C tempts")  # the message, stripped
    assert judge(_graded(tmp_path), Answer("C"), 0, 1, 30) == ("ok", "wrong option")
