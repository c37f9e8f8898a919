"""Every lesson topic in one shape (issue #52 item 2): a module under ``servelab/lessons`` either
holds records (classes: findings, their verdicts, what is measured) or the words that state them
(functions returning text), never both, and none is larger than ``MOST_INK``.

A text function is a top-level function annotated ``-> str`` (but those in ``NOT_WORDS``); a
method such as ``__str__`` that writes prose counts as words too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from course.paths import REPO_ROOT

LESSONS = REPO_ROOT / "servelab" / "lessons"
# A module's size in characters other than whitespace, which ruff's formatter does not change
# (it lays a long call or string out over more lines): the hand-wrapped limit of 350 lines held
# at most 16,412 (chunking/words.py).
MOST_INK = 16_500
# Functions that return text but word nothing: what a server said, kept as it said it.
NOT_WORDS = {"_refusal_message"}  # dials/runs.py: vLLM's refusal of a request, whitespace collapsed
MODULES = sorted(LESSONS.rglob("*.py"))


def _is_text(function: ast.FunctionDef) -> bool:
    return (
        isinstance(function.returns, ast.Name)
        and function.returns.id == "str"
        and function.name not in NOT_WORDS
    )


def mixes_records_and_words(source: str) -> bool:
    """Whether a module defines a class and also a text function (or a class that words itself
    in ``__str__``)."""
    tree = ast.parse(source)
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    texts = [node for node in tree.body if isinstance(node, ast.FunctionDef) and _is_text(node)]
    worded = [
        method
        for cls in classes
        for method in cls.body
        if isinstance(method, ast.FunctionDef) and method.name == "__str__"
    ]
    return bool(classes) and bool(texts or worded)


def _name(path: Path) -> str:
    return path.relative_to(LESSONS).as_posix()


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_a_lesson_module_holds_records_or_words_not_both(path: Path) -> None:
    assert not mixes_records_and_words(path.read_text(encoding="utf-8")), (
        f"{_name(path)} holds both records and words; split it"
    )


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_no_lesson_module_is_larger_than_the_limit(path: Path) -> None:
    ink = ink_of(path.read_text(encoding="utf-8"))
    assert ink <= MOST_INK, f"{_name(path)} holds {ink:,} characters besides whitespace"


def ink_of(source: str) -> int:
    """The characters of ``source`` other than whitespace."""
    return sum(not character.isspace() for character in source)


def test_a_modules_ink_does_not_change_with_its_layout() -> None:
    one_line = "total = first(alpha, beta) + second(gamma)\n"
    laid_out = "total = first(\n    alpha,\n    beta,\n) + second(gamma)\n"
    assert ink_of(one_line) + 1 == ink_of(laid_out)  # the formatter's trailing comma
    assert ink_of("a\n" * 20_000) > MOST_INK


@pytest.mark.parametrize(
    ("source", "mixed"),
    [
        ("class A:\n    pass\n\ndef a_text(a: A) -> str:\n    return ''\n", True),
        ("class A:\n    def __str__(self) -> str:\n        return 'a'\n", True),
        ("class A:\n    def half(self) -> float:\n        return 0.5\n", False),
        ("def a_text(a: int) -> str:\n    return ''\n", False),
    ],
)
def test_the_rule_tells_a_mixed_module(source: str, mixed: bool) -> None:
    assert mixes_records_and_words(source) is mixed
