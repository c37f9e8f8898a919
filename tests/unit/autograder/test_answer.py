"""Issue 27, part A: an answer cell with more than the answer (pure parsing, nothing runs).

One assignment of a string literal to `answer` is graded even with other lines around it; those
lines are named, never run. Two bindings of `answer`, another form, or a computed value stay
`bad-answer`.
"""

from __future__ import annotations

import pytest

from autograder.answer import parse_answer


@pytest.mark.parametrize(
    ("source", "letter", "lines"),
    [
        ('answer = "B"', "B", ()),
        ('answer = "B"\nprint(answer)', "B", (2,)),
        ('import sys\nanswer = " c "\nsys.stderr.write("x")\n', "C", (1, 3)),
        ('for i in range(3):\n    print(i)\n\nanswer = "d"  # my pick', "D", (1, 2)),
        ('answer = "A"; import os', "A", ()),  # same line: it is the answer's line, not run anyway
        ("x = 1\nanswer = None", None, (1,)),
    ],
)
def test_one_literal_is_graded_and_the_other_lines_are_named(source, letter, lines):
    answer = parse_answer(source)
    assert (answer.letter, answer.problem, answer.not_run) == (letter, "", lines)
    assert answer.source == f'answer = "{letter}"'.replace('"None"', "None")
    if lines:
        assert answer.cell_source.startswith(answer.source + "\n# ")
        assert parse_answer(answer.cell_source) == type(answer)(letter)  # the comment is inert
    else:
        assert answer.cell_source == answer.source


def test_the_reason_shows_the_code_that_was_not_run_the_cell_only_its_numbers():
    answer = parse_answer('print("a\\tb")\nanswer = "B"\nimport os')
    assert answer.reason_note == (
        'only answer = "B" was graded; lines 1, 3 of the answer cell '
        'were not run: `print("a\\tb")`, `import os`'
    )
    assert "print" not in answer.cell_source and "lines 1, 3" in answer.cell_source
    hidden = parse_answer('answer = "B"\nx = "\x0b\\r"  # \u2028 ' + "y" * 200)
    assert all(part.isprintable() for part in hidden.not_run_code)
    assert hidden.not_run_code[0].endswith("...") and len(hidden.not_run_code[0]) < 70


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ('answer = "A"\nanswer = "C"', "2 times"),
        ('answer = "C"\nanswer += ""', "2 times"),
        ('answer = "C"\nif True:\n    answer = "A"', "2 times"),
        ('answer = "C"\nfor answer in "AB":\n    pass', "2 times"),
        ('answer = "C"\nimport os as answer', "2 times"),
        ('answer = "C"\ndef answer():\n    pass', "2 times"),
        ('answer = "C"\ndel answer', "2 times"),
        ('answer = "C"\n(answer := "A")', "2 times"),
        ('if True:\n    answer = "C"', "another form"),
        ('answer: str = "C"', "another form"),
        ('answer = other = "C"', "another form"),
        ('answer = "C".lower()\nprint(answer)', "computed"),
        ('answer = "".join(["C"])', "computed"),
        ('print("C")', "does not assign"),
        ('answer = ["C"]\nprint(1)', "of type list"),
        ('answer = "A or B"\nprint(1)', "is not one of them"),
        ("answer = 'C'\nprint(", "not valid Python"),
    ],
)
def test_anything_else_stays_bad_answer(source, why):
    answer = parse_answer(source)
    assert answer.letter is None and why in answer.problem and 'answer = "B"' in answer.problem
    assert answer.source == "answer = None"
