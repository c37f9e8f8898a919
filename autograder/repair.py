"""Putting a submitted notebook's check cells back into the shape nbgrader expects.

nbgrader restores locked cells and cell types itself; this step handles what it cannot: foreign or
damaged nbgrader metadata (which can abort a whole nbgrader run) and check cells whose metadata an
editor dropped (Colab-style re-saves). It returns notes that explain what was found, for the reason
column.
"""

from __future__ import annotations

import copy
import re

from nbformat import NotebookNode

from course.checks import cell_grade_id, role_of

ANSWER_LINE = re.compile(r"^\s*answer\s*=", re.MULTILINE)


def repair(nb: NotebookNode, release: NotebookNode) -> list[str]:
    """Make `nb`'s nbgrader metadata the release's, re-attach stripped check cells; return notes."""
    canonical = {cell_grade_id(c): c for c in release.cells if cell_grade_id(c)}
    notes: list[str] = []
    copies = sum(role_of(c) == "answer" for c in nb.cells)
    for cell in nb.cells:
        if "nbgrader" not in cell.metadata:
            continue
        grade_id = cell_grade_id(cell)
        if grade_id in canonical:
            cell.metadata["nbgrader"] = copy.deepcopy(canonical[grade_id].metadata["nbgrader"])
        else:
            del cell.metadata["nbgrader"]
    _keep_last_of_each_id(nb)
    if _reattach(nb, canonical):
        notes.append(
            "check-cell metadata was missing (re-saved by another editor?) and was "
            "restored by matching cells"
        )
    return notes + _check_cell_notes(nb, canonical, copies)


def _check_cell_notes(
    nb: NotebookNode, canonical: dict[str, NotebookNode], copies: int
) -> list[str]:
    """What happened to the answer and test cells (``copies``: answer cells as submitted)."""
    notes: list[str] = []
    answers = [c for c in nb.cells if role_of(c) == "answer"]
    tests = [c for c in nb.cells if role_of(c) == "test"]
    if copies > 1:
        notes.append(f"the answer cell appears {copies} times; the last one was graded")
    elif not answers:
        notes.append("the answer cell was deleted")
    if answers and answers[-1].cell_type != "code":
        notes.append(f"the answer cell was changed to {answers[-1].cell_type}; graded as code")
    released_tests = [c for c in canonical.values() if role_of(c) == "test"]
    if released_tests and not tests:
        notes.append("the test cell was deleted; nbgrader put it back")
    elif released_tests and any(t.source != released_tests[0].source for t in tests):
        notes.append("the locked test cell was edited; nbgrader restored it")
    if any("skip-execution" in c.metadata.get("tags", []) for c in answers + tests):
        notes.append("a check cell was tagged skip-execution; it ran anyway")
    return notes


def _keep_last_of_each_id(nb: NotebookNode) -> None:
    """A cell copied with its metadata repeats a grade_id; only the last copy keeps it (nbgrader's
    own de-duplication leaves an empty nbgrader dict that its missing-cell restore trips over)."""
    seen: set[str] = set()
    for cell in reversed(nb.cells):
        grade_id = cell_grade_id(cell)
        if not grade_id:
            continue
        if grade_id in seen:
            del cell.metadata["nbgrader"]
        seen.add(grade_id)


def _reattach(nb: NotebookNode, canonical: dict[str, NotebookNode]) -> bool:
    """Give check cells that lost their metadata the release's metadata back; True if any did."""
    present = {cell_grade_id(c) for c in nb.cells}
    loose = [c for c in nb.cells if "nbgrader" not in c.metadata]
    restored = False
    for grade_id, released in canonical.items():
        if grade_id in present:
            continue
        if role_of(released) == "answer":
            match = [c for c in loose if c.cell_type == "code" and ANSWER_LINE.search(c.source)]
        else:
            match = [c for c in loose if c.source.strip() == released.source.strip()]
        if match:
            match[-1].metadata["nbgrader"] = copy.deepcopy(released.metadata["nbgrader"])
            loose.remove(match[-1])
            restored = True
    return restored
