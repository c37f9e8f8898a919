"""The check-cell contract: three cells per chapter, their roles, grade ids, tags and builders.

Everything that needs to know which cell of a notebook is the question, the answer or the hidden
test (the edition generator, the autograder, the demo course, the tests) asks this module.

The test cell is self-contained stdlib code, so graders and notebooks resaved by Colab never need
servelab. It writes only to stdout: nbgrader scores a test cell with stderr output as zero. In the
instructor source it carries the output it prints when `answer` is the key, tagged for nbval, so
`pytest --nbval-lax` asserts that the key passes its own hidden test (nbgrader clears outputs
from the student edition).
"""

from __future__ import annotations

import re
import textwrap

import nbformat
from nbformat import NotebookNode

from course.checks.model import LETTERS, Check

CHECK_TAG = "check"
NBVAL_TAG = "nbval-check-output"
NBGRADER_SCHEMA = 3
ROLES: tuple[str, ...] = ("question", "answer", "test")
GRADE_ID = re.compile(r"^(?P<chapter>.+)-check-(?P<role>question|answer|test)$")
ACCEPTED_FORM = 'answer = "B"'  # the one form of an answer cell (any of the letters, in quotes)


def _spelled(letters: tuple[str, ...], last: str) -> str:
    """``A, B, C or D`` (``last`` is the word before the final letter)."""
    return f"{', '.join(letters[:-1])} {last} {letters[-1]}"


_QUOTED_LETTERS = ", ".join(f'"{letter}"' for letter in LETTERS)
_FORM_RIGHT = "the form is right"  # what the test cell prints after the letter it was given

# The test cell's first part: stdlib code that checks the answer's form, its letters written out
# from LETTERS.
_FORM_CHECK = f"""\
# Checks that your answer is one letter. Grading also checks which letter it is.
_letters = ({_QUOTED_LETTERS})
_given = globals().get("answer")
_choice = None
if _given is None:
    print("no answer yet: set answer to one of the letters {_spelled(LETTERS, "or")}, in quotes")
elif not isinstance(_given, str):
    raise ValueError(
        f"answer must be one letter in quotes, such as 'B'; got {{_given!r}}"
    )
elif _given.strip().upper() not in _letters:
    raise ValueError(
        f"answer must be exactly one of the letters {", ".join(LETTERS)}; got {{_given!r}}"
    )
else:
    _choice = _given.strip().upper()
    print(f"answer {{_choice}}: {_FORM_RIGHT}")
"""


def _pieces(text: str, width: int = 72) -> list[str]:
    """``text`` in pieces that concatenate back to it exactly, so generated lines stay short."""
    return textwrap.wrap(text, width, drop_whitespace=False, replace_whitespace=False) or [""]


def grade_id(chapter: str, role: str) -> str:
    """The nbgrader grade_id of a chapter's check cell in ``role`` (question, answer, test)."""
    if role not in ROLES:
        raise ValueError(f"a check cell's role is one of {', '.join(ROLES)}; got {role!r}")
    return f"{chapter}-check-{role}"


def cell_grade_id(cell: NotebookNode) -> str:
    """The nbgrader grade_id a cell carries, '' when it has none (or damaged metadata)."""
    metadata = cell.get("metadata", {})
    meta = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    value = meta.get("grade_id", "") if isinstance(meta, dict) else ""
    return value if isinstance(value, str) else ""


def role_of(cell: NotebookNode) -> str | None:
    """ "question", "answer" or "test" for a check cell (by its grade_id), else None."""
    match = GRADE_ID.match(cell_grade_id(cell))
    return match["role"] if match else None


def chapter_of_cell(cell: NotebookNode) -> str | None:
    """The chapter a check cell's grade_id names, else None."""
    match = GRADE_ID.match(cell_grade_id(cell))
    return match["chapter"] if match else None


def cells_with_role(notebook: NotebookNode, role: str) -> list[NotebookNode]:
    return [cell for cell in notebook.cells if role_of(cell) == role]


def question_source(check: Check) -> str:
    lines = ["## Check your understanding", "", check.question, ""]
    lines += [f"- **{option.letter}.** {option.text}" for option in check.options]
    lines += [
        "",
        "Set `answer` in the next cell to the letter of your choice, in quotes, "
        "then run the cell after it.",
    ]
    return "\n".join(lines)


def answer_line(letter: str | None) -> str:
    """An answer cell's whole code as a plain literal: ``answer = "C"`` or ``answer = None``."""
    if letter is not None and letter not in LETTERS:
        raise ValueError(f"an answer is one of {', '.join(LETTERS)} or None; got {letter!r}")
    return f"answer = {letter!r}".replace("'", '"')


def answer_source(check: Check) -> str:
    return f"### BEGIN SOLUTION\n{answer_line(check.correct)}\n### END SOLUTION"


def key_output(check: Check) -> str:
    """What the test cell prints when ``answer`` is the key."""
    return f"answer {check.correct}: {_FORM_RIGHT}\n"


def graded_source(check: Check) -> str:
    feedback = {option.letter: check.feedback(option.letter) for option in check.wrong_options}
    hidden = ["### BEGIN HIDDEN TESTS", "_feedback = {"]
    for letter, text in feedback.items():
        pieces = [f"        {piece!r}" for piece in _pieces(text)]
        hidden += [f"    {letter!r}: (", *pieces, "    ),"]
    hidden += [
        "}",
        f"assert _choice == {check.correct!r}, _feedback.get(",
        f'    _choice, "no answer was given: set answer to one letter, {LETTERS[0]} to '
        f'{LETTERS[-1]}"',
        ")",
        "### END HIDDEN TESTS",
    ]
    return _FORM_CHECK + "\n".join(hidden)


def check_cells(check: Check) -> list[NotebookNode]:
    """The question, answer and test cells for ``check``, tagged and with nbgrader metadata.

    The test cell holds the output the key produces, for nbval to compare against.
    """
    question = nbformat.v4.new_markdown_cell(question_source(check))
    answer = nbformat.v4.new_code_cell(answer_source(check))
    test = nbformat.v4.new_code_cell(graded_source(check))
    test.outputs = [nbformat.v4.new_output("stream", name="stdout", text=key_output(check))]
    test.execution_count = 1  # nbval ignores (and reports) outputs of a cell that never ran
    flags: dict[str, dict[str, bool | int]] = {
        "question": {"locked": True, "solution": False, "grade": False},
        "answer": {"locked": False, "solution": True, "grade": False},
        "test": {"locked": True, "solution": False, "grade": True, "points": 1},
    }
    for cell, role in zip((question, answer, test), ROLES, strict=True):
        cell.id = grade_id(check.chapter, role)
        cell.metadata = {
            "tags": [CHECK_TAG, NBVAL_TAG] if role == "test" else [CHECK_TAG],
            "nbgrader": {
                "grade_id": grade_id(check.chapter, role),
                "schema_version": NBGRADER_SCHEMA,
                "task": False,
                **flags[role],
            },
        }
    return [question, answer, test]


def is_check_cell(cell: NotebookNode) -> bool:
    """Whether ``cell`` is one of a chapter's check cells: decided by :func:`role_of`, like every
    other question about check cells (their ``check`` tag only labels them)."""
    return role_of(cell) is not None
