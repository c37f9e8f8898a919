"""Turning an autograded notebook into a status and a human reason for grades.csv."""

from __future__ import annotations

from nbformat import NotebookNode

from autograder.answer import Answer
from course.checks import role_of


def _message(cell: NotebookNode) -> str:
    """What a test cell said when it failed: the assertion's message (the chosen option's
    explanation)."""
    for output in cell.get("outputs", []):
        if output.output_type == "error":
            return (output.evalue or output.ename).strip()
    return ""


def judge(
    nb: NotebookNode, answer: Answer | None, score: float, max_score: float, timeout: int
) -> tuple[str, str]:
    """(status, reason) of a notebook nbgrader has autograded; `answer` as parsed at intake
    (None: the notebook had no answer cell)."""
    report = nb.metadata.get("autograder", {})
    status = report.get("status")
    if status == "timeout":
        return "timeout", f"a check cell ran longer than {timeout} s and was stopped"
    if status != "ok":
        detail = report.get("detail") or status
        return "error", f"the checks did not finish in the sandbox: {detail}"
    if answer is None or (answer.letter is None and not answer.problem):
        return "no-answer", (
            "`answer` was never set"
            if answer is None
            else "`answer` is still None: the question was not answered"
        )
    if answer.problem:
        return "bad-answer", answer.problem
    if score >= max_score:
        return "ok", ""
    tests = [c for c in nb.cells if role_of(c) == "test" and c.cell_type == "code"]
    return "ok", next((m for m in map(_message, tests) if m), "wrong option")
