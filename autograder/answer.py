"""Reading a student's answer cell without running it.

The one accepted form is a single assignment of a string literal, ``answer = "B"``; the grader
normalises the letter (spaces stripped, upper case) and writes it back as a plain literal, so the
kernel never runs code a student wrote.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from course.checks import ACCEPTED_FORM, LETTERS, answer_line

FORM_HINT = (f"the answer cell must hold one line, {ACCEPTED_FORM}, with one of the letters "
             f"{', '.join(LETTERS)} in quotes")


@dataclass(frozen=True)
class Answer:
    """A parsed answer: a letter, or None with `problem` saying why (empty: not answered)."""

    letter: str | None
    problem: str = ""

    @property
    def source(self) -> str:
        """The answer cell's code as the kernel runs it."""
        return answer_line(self.letter)


def parse_answer(source: str) -> Answer:
    """The letter an answer cell's source assigns, read with `ast`, never executed."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return Answer(None, f"{FORM_HINT}; this is not valid Python")
    if not tree.body:
        return Answer(None)
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assign):
        return Answer(None, f"{FORM_HINT}; found {len(tree.body)} statements instead"
                      if len(tree.body) != 1 else f"{FORM_HINT}; found another statement")
    assign = tree.body[0]
    if len(assign.targets) != 1 or not (isinstance(assign.targets[0], ast.Name)
                                        and assign.targets[0].id == "answer"):
        return Answer(None, f"{FORM_HINT}; the cell assigns something else")
    try:
        value = ast.literal_eval(assign.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return Answer(None, f"{FORM_HINT}; the value is computed, not written as a literal")
    if value is None:
        return Answer(None)
    if type(value) is not str:
        return Answer(None, f"{FORM_HINT}; the value is of type {type(value).__name__}")
    letter = value.strip().upper()
    if letter not in LETTERS:
        return Answer(None, f"{FORM_HINT}; {value[:40]!r} is not one of them")
    return Answer(letter)
