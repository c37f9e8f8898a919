"""Reading a student's answer cell without running it.

The accepted form is one assignment of a string literal, ``answer = "B"``, on a line of its own.
Other lines in the cell (a leftover ``print``, an import) are never run: when the cell binds
``answer`` exactly once, in that form, the literal is graded and the other lines are named in
the feedback. Two bindings of ``answer``, or a computed value, are ``bad-answer``. The grader
normalises the letter (spaces stripped, upper case) and writes it back as a plain literal, so the
kernel never runs code a student wrote.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TypedDict

from course.checks import ACCEPTED_FORM, LETTERS, answer_line

FORM_HINT = (
    f"the answer cell must hold one line, {ACCEPTED_FORM}, with one of the letters "
    f"{', '.join(LETTERS)} in quotes"
)
NEWLINE = re.compile(r"\r\n|\r|\n")
SHOWN_CHARS = 60  # of each line that was not run, in the note


@dataclass(frozen=True)
class Answer:
    """A parsed answer: a letter, or None with `problem` saying why (empty: not answered).

    `not_run` numbers the cell's other lines, which were not run, and `not_run_code` shows
    them (printable characters only, each cut short) for the grader's reason column.
    """

    letter: str | None
    problem: str = ""
    not_run: tuple[int, ...] = ()
    not_run_code: tuple[str, ...] = ()

    @property
    def source(self) -> str:
        """The answer cell's code as the kernel runs it."""
        return answer_line(self.letter)

    @property
    def not_run_note(self) -> str:
        """'line 2 of the answer cell was not run', '' when every line was the answer."""
        if not self.not_run:
            return ""
        numbers = ", ".join(map(str, self.not_run))
        if len(self.not_run) == 1:
            return f"line {numbers} of the answer cell was not run"
        return f"lines {numbers} of the answer cell were not run"

    @property
    def reason_note(self) -> str:
        """The note for the grades.csv reason: what was graded, and which code was not run."""
        if not self.not_run:
            return ""
        code = ", ".join(f"`{line}`" for line in self.not_run_code)
        return f"only {self.source} was graded; {self.not_run_note}: {code}"

    @property
    def cell_source(self) -> str:
        """The answer cell as the grader writes it back: the literal, then a comment saying
        which line numbers were not run (never their code), so the feedback shows it."""
        if not self.not_run:
            return self.source
        return f"{self.source}\n# The grader graded only the line above; {self.not_run_note}."


def _binds_answer(node: ast.AST) -> bool:
    """Whether `node` (re)binds or deletes the name `answer` anywhere in the cell."""
    if isinstance(node, ast.Name):
        return node.id == "answer" and isinstance(node.ctx, (ast.Store, ast.Del))
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == "answer"
    if isinstance(node, ast.alias):
        return (node.asname or node.name.split(".")[0]) == "answer"
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return "answer" in node.names
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return node.name == "answer"
    return False


def _shown(line: str) -> str:
    text = "".join(ch if ch.isprintable() else "?" for ch in line.strip())
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


class _NotRun(TypedDict):
    not_run: tuple[int, ...]
    not_run_code: tuple[str, ...]


def _not_run(source: str, tree: ast.Module, kept: ast.stmt) -> _NotRun:
    """The numbers and code of the lines of statements other than `kept` (Answer's fields)."""
    lines = NEWLINE.split(source)  # as Python numbers lines: not str.splitlines's breaks
    own = set(range(kept.lineno, (kept.end_lineno or kept.lineno) + 1))
    skipped = sorted(
        {
            n
            for stmt in tree.body
            if stmt is not kept
            for n in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1)
        }
        - own
    )
    code = tuple(_shown(lines[n - 1]) for n in skipped if n <= len(lines) and lines[n - 1].strip())
    return {"not_run": tuple(skipped), "not_run_code": code}


def parse_answer(source: str) -> Answer:
    """The letter an answer cell's source assigns, read with `ast`, never executed."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return Answer(None, f"{FORM_HINT}; this is not valid Python")
    if not tree.body:
        return Answer(None)
    bindings = [node for node in ast.walk(tree) if _binds_answer(node)]
    if not bindings:
        return Answer(None, f"{FORM_HINT}; the cell does not assign `answer`")
    if len(bindings) > 1:
        return Answer(
            None,
            f"{FORM_HINT}; the cell sets `answer` {len(bindings)} times, so "
            "which letter is meant is not plain",
        )
    assign = next(
        (
            s
            for s in tree.body
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and s.targets[0] is bindings[0]
        ),
        None,
    )
    if assign is None:
        return Answer(None, f"{FORM_HINT}; `answer` is set in another form")
    not_run = _not_run(source, tree, assign)
    try:
        value = ast.literal_eval(assign.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return Answer(None, f"{FORM_HINT}; the value is computed, not written as a literal")
    if value is None:
        return Answer(None, **not_run)
    if type(value) is not str:
        return Answer(None, f"{FORM_HINT}; the value is of type {type(value).__name__}")
    letter = value.strip().upper()
    if letter not in LETTERS:
        return Answer(None, f"{FORM_HINT}; {value[:40]!r} is not one of them")
    return Answer(letter, **not_run)
