"""course.checks.cells: the check cells follow the contract, and a cell's role is read only from a
check's grade id."""

from __future__ import annotations

import nbformat
import pytest

from course.checks import CHECK_TAG, NBVAL_TAG, Check, check_cells, grade_id, role_of


def test_cells_follow_the_contract(check: Check) -> None:
    question, answer, test = check_cells(check)
    assert [c.cell_type for c in (question, answer, test)] == ["markdown", "code", "code"]
    for cell, part in ((question, "question"), (answer, "answer"), (test, "test")):
        assert cell.metadata["tags"] == ([CHECK_TAG, NBVAL_TAG] if part == "test" else [CHECK_TAG])
        assert cell.metadata["nbgrader"]["grade_id"] == grade_id("99-test", part)
        assert cell.metadata["nbgrader"]["schema_version"] == 3
        assert role_of(cell) == part
    assert [o["text"] for o in test.outputs] == ["answer B: the form is right\n"]
    assert answer.outputs == []
    assert question.metadata["nbgrader"] == {
        "grade_id": "99-test-check-question",
        "schema_version": 3,
        "task": False,
        "locked": True,
        "solution": False,
        "grade": False,
    }
    assert answer.metadata["nbgrader"]["solution"] and not answer.metadata["nbgrader"]["locked"]
    assert test.metadata["nbgrader"]["grade"] and test.metadata["nbgrader"]["points"] == 1
    assert answer.source == '### BEGIN SOLUTION\nanswer = "B"\n### END SOLUTION'
    assert "- **C.** Third" in question.source
    assert "import" not in test.source and "servelab" not in test.source


def test_role_of_reads_only_check_grade_ids(check: Check) -> None:
    roles = [role_of(cell) for cell in check_cells(check)]
    assert roles == ["question", "answer", "test"]
    other = nbformat.v4.new_code_cell("x = 1")
    assert role_of(other) is None
    other.metadata["nbgrader"] = {"grade_id": "99-test-setup"}
    assert role_of(other) is None
    other.metadata["nbgrader"] = "broken"
    assert role_of(other) is None
    with pytest.raises(ValueError, match="role"):
        grade_id("99-test", "hint")
