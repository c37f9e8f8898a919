"""A small demo course that follows the check-cell contract, and synthetic classes built from it.

Tests and benchmarks/grading.py use it while the real chapter sources are being written; it is also
a quick way to try the autograder. Every demo chapter has measurement cells that would fail loudly
(and leave a marker file) if grading ever ran them.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from servelab.checks import LETTERS
from servelab.checks.course import CHAPTERS

MEASUREMENT_MARKER = "measurement-cell-ran"

CONFIG = '''\
"""nbgrader configuration of the demo course (written by autograder.synthetic)."""

c = get_config()  # noqa: F821
c.ClearSolutions.code_stub = {
    "python": "answer = None  # replace None with one letter, e.g. \\"B\\"",
}
'''

TEST_TEMPLATE = '''\
options = ("A", "B", "C", "D")
if answer is None:
    print("no answer yet: set answer to one letter, for example \\"B\\"")
else:
    if not isinstance(answer, str):
        raise ValueError(f"answer must be one letter in quotes, not a {{type(answer).__name__}}")
    if answer.strip().upper() not in options:
        raise ValueError(f"answer must be exactly one of A, B, C or D, not {{answer!r}}")
    print("answer recorded:", answer.strip().upper())
### BEGIN HIDDEN TESTS
why_wrong = {why_wrong!r}
assert answer is not None, "no answer was given"
assert answer.strip().upper() == {correct!r}, why_wrong[answer.strip().upper()]
### END HIDDEN TESTS
'''


def correct_letter(chapter: str) -> str:
    """The right option of a demo chapter (varies by chapter so 'always C' cannot pass)."""
    return LETTERS[int(chapter[:2]) % len(LETTERS)]


def explanation(chapter: str, letter: str) -> str:
    """Why option `letter` of a demo chapter is wrong; the feedback must carry this text."""
    return f"Option {letter} of {chapter} is tempting but wrong because of reason {letter.lower()}7"


def _nbgrader(grade_id: str, *, grade: bool, solution: bool, locked: bool, points: int = 0) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
            "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    return meta


def source_notebook(chapter: str) -> NotebookNode:
    """Instructor edition of a demo chapter: prose, measurement cells, then the 3 check cells."""
    correct = correct_letter(chapter)
    why_wrong = {x: explanation(chapter, x) for x in LETTERS if x != correct}
    measurement = (
        "import pathlib\n"
        f"pathlib.Path({MEASUREMENT_MARKER!r}).touch()\n"
        "raise SystemExit('measurement cell ran: grading must never start a server')\n"
    )
    locked_setup = new_code_cell(measurement)
    locked_setup.metadata["nbgrader"] = _nbgrader(
        f"{chapter}-setup", grade=False, solution=False, locked=True)
    question = new_markdown_cell(
        f"**Check.** Which option is right for {chapter}?\n\n"
        + "\n".join(f"- **{x}.** statement {x.lower()} about {chapter}" for x in LETTERS))
    answer = new_code_cell(f'### BEGIN SOLUTION\nanswer = "{correct}"\n### END SOLUTION')
    test = new_code_cell(TEST_TEMPLATE.format(why_wrong=why_wrong, correct=correct))
    question.metadata["nbgrader"] = _nbgrader(
        f"{chapter}-check-question", grade=False, solution=False, locked=True)
    answer.metadata["nbgrader"] = _nbgrader(
        f"{chapter}-check-answer", grade=False, solution=True, locked=False)
    test.metadata["nbgrader"] = _nbgrader(
        f"{chapter}-check-test", grade=True, solution=False, locked=True, points=1)
    for cell in (question, answer, test):
        cell.metadata["tags"] = ["check"]
    cells = [new_markdown_cell(f"# {chapter}\n\nA demo chapter."), locked_setup,
             new_code_cell(measurement), question, answer, test]
    nb = new_notebook(cells=cells)
    nb.metadata["servelab"] = {"chapter": chapter}
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    return nb


def write_course(root: Path, chapters: tuple[str, ...] = CHAPTERS) -> Path:
    """Write a demo nbgrader course (config and source notebooks) under `root`."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "nbgrader_config.py").write_text(CONFIG)
    for chapter in chapters:
        folder = root / "source" / chapter
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(source_notebook(chapter), folder / f"{chapter}.ipynb")
    return root


def answer_cell(nb: NotebookNode) -> NotebookNode:
    """The answer cell of an edition (the solution cell of the check)."""
    return next(c for c in nb.cells
                if c.metadata.get("nbgrader", {}).get("grade_id", "").endswith("-check-answer"))


def answered(edition: NotebookNode, source: str) -> NotebookNode:
    """A copy of a student edition whose answer cell holds `source`."""
    nb = nbformat.from_dict(json.loads(json.dumps(edition)))
    answer_cell(nb).source = source
    return nb
