"""The three check cells of the contract: question (markdown), answer (solution), test (graded).

The test cell is self-contained stdlib code, so graders and notebooks resaved by Colab never need
servelab. It writes only to stdout: nbgrader scores a test cell with stderr output as zero.
"""

from __future__ import annotations

import textwrap

import nbformat
from nbformat import NotebookNode

from servelab.checks.model import Check

CHECK_TAG = "check"
NBGRADER_SCHEMA = 3

_FORM_CHECK = '''\
# Checks that your answer is one letter. Grading also checks which letter it is.
_letters = ("A", "B", "C", "D")
_given = globals().get("answer")
_choice = None
if _given is None:
    print("no answer yet: set answer to one of the letters A, B, C or D, in quotes")
elif not isinstance(_given, str):
    raise ValueError(
        f"answer must be one letter in quotes, such as 'B'; got {_given!r}"
    )
elif _given.strip().upper() not in _letters:
    raise ValueError(
        f"answer must be exactly one of the letters A, B, C, D; got {_given!r}"
    )
else:
    _choice = _given.strip().upper()
    print(f"answer {_choice}: the form is right")
'''


def _pieces(text: str, width: int = 72) -> list[str]:
    """``text`` in pieces that concatenate back to it exactly, so generated lines stay short."""
    return textwrap.wrap(text, width, drop_whitespace=False, replace_whitespace=False) or [""]


def grade_id(check: Check, part: str) -> str:
    return f"{check.chapter}-check-{part}"


def question_source(check: Check) -> str:
    lines = ["## Check your understanding", "", check.question, ""]
    lines += [f"- **{option.letter}.** {option.text}" for option in check.options]
    lines += [
        "",
        "Set `answer` in the next cell to the letter of your choice, in quotes, "
        "then run the cell after it.",
    ]
    return "\n".join(lines)


def answer_source(check: Check) -> str:
    return f'### BEGIN SOLUTION\nanswer = "{check.correct}"\n### END SOLUTION'


def graded_source(check: Check) -> str:
    feedback = {option.letter: check.feedback(option.letter) for option in check.wrong_options}
    hidden = ["### BEGIN HIDDEN TESTS", "_feedback = {"]
    for letter, text in feedback.items():
        pieces = [f"        {piece!r}" for piece in _pieces(text)]
        hidden += [f"    {letter!r}: (", *pieces, "    ),"]
    hidden += [
        "}",
        f"assert _choice == {check.correct!r}, _feedback.get(",
        '    _choice, "no answer was given: set answer to one letter, A to D"',
        ")",
        "### END HIDDEN TESTS",
    ]
    return _FORM_CHECK + "\n".join(hidden)


def check_cells(check: Check) -> list[NotebookNode]:
    """The question, answer and test cells for ``check``, tagged and with nbgrader metadata."""
    question = nbformat.v4.new_markdown_cell(question_source(check))
    answer = nbformat.v4.new_code_cell(answer_source(check))
    test = nbformat.v4.new_code_cell(graded_source(check))
    roles = (
        (question, "question", {"locked": True, "solution": False, "grade": False}),
        (answer, "answer", {"locked": False, "solution": True, "grade": False}),
        (test, "test", {"locked": True, "solution": False, "grade": True, "points": 1}),
    )
    for cell, part, flags in roles:
        cell.id = grade_id(check, part)
        cell.metadata = {
            "tags": [CHECK_TAG],
            "nbgrader": {
                "grade_id": grade_id(check, part),
                "schema_version": NBGRADER_SCHEMA,
                "task": False,
                **flags,
            },
        }
    return [question, answer, test]


def is_check_cell(cell: NotebookNode) -> bool:
    return CHECK_TAG in cell.get("metadata", {}).get("tags", [])

