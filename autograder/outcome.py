"""Turning an autograded notebook into a status and a human reason for grades.csv."""

from __future__ import annotations

from nbformat import NotebookNode

LETTERS = ("A", "B", "C", "D")


def _role(cell: NotebookNode, role: str) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return isinstance(meta, dict) and meta.get("grade_id", "").endswith(f"-check-{role}")


def _message(cell: NotebookNode) -> str:
    """What a test cell said when it failed: the assertion's message, else any stderr line."""
    for output in cell.get("outputs", []):
        if output.output_type == "error":
            return (output.evalue or output.ename).strip()
    return ""


def _timed_out(nb: NotebookNode) -> bool:
    return any(o.output_type == "error" and o.ename == "CellTimeoutError"
               for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def judge(nb: NotebookNode, score: float, max_score: float, timeout: int) -> tuple[str, str]:
    """(status, reason) of a notebook nbgrader has autograded."""
    report = nb.metadata.get("autograder", {})
    probe = report.get("probe")
    tests = [c for c in nb.cells if _role(c, "test") and c.cell_type == "code"]
    said = next((m for m in map(_message, tests) if m), "")
    if _timed_out(nb):
        return "timeout", f"a check cell ran longer than {timeout} s and was stopped"
    if probe is None:
        return "error", "the checks did not finish, so the answer could not be read"
    if not probe["defined"]:
        return "no-answer", "`answer` was never set"
    if probe["type"] == "NoneType":
        return "no-answer", "`answer` is still None: the question was not answered"
    if probe["letter"] in LETTERS:
        return "ok", "" if score >= max_score else (said or "wrong option")
    return "bad-answer", said or f"`answer` must be one letter A-D in quotes, not {probe['repr']}"
