"""The chapters read as lessons (issue #52 item 4): every hand-written code cell is short enough
to read as one step of the lesson, and ``print`` shows values with their labels, never prose.

The page's sentences come from the chapter's words functions and are shown as Markdown; a
``print`` labels what a cell computed (``predicted from config.json: 1,024 tokens``). A print
whose own text (its string parts, not the values put into it) runs past ``PRINT_WORDS`` words or
holds a sentence break is prose, and belongs in a words function. The cells the edition writes
(install, check) are not hand-written and are left out.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re

import nbformat
import pytest

from course.paths import CHAPTERS, source_notebook

MOST_LINES = 25
PRINT_WORDS = 12
WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
SENTENCE_BREAK = re.compile(r"[.!?] +[A-Z]")


def _hand_written(chapter: str) -> list[nbformat.NotebookNode]:
    """The chapter's code cells but those the edition generates (their ids start with the
    chapter's own)."""
    notebook = nbformat.read(source_notebook(chapter), as_version=4)
    return [
        cell
        for cell in notebook.cells
        if cell.cell_type == "code" and not cell.get("id", "").startswith(chapter)
    ]


def printed_text(call: ast.Call) -> str:
    """The words a ``print`` call writes of its own: its string literals and the literal parts
    of its f-strings, without the values formatted into them."""
    parts: list[str] = []
    for argument in call.args:
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            parts.append(argument.value)
        elif isinstance(argument, ast.JoinedStr):
            parts += [
                value.value
                for value in argument.values
                if isinstance(value, ast.Constant) and isinstance(value.value, str)
            ]
    return " ".join(parts)


def is_prose(text: str) -> bool:
    return len(WORD.findall(text)) > PRINT_WORDS or bool(SENTENCE_BREAK.search(text))


def _python(source: str) -> str:
    """A cell's source without IPython's magics."""
    return "\n".join(
        line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))
    )


def _prints(source: str) -> list[str]:
    return [
        printed_text(node)
        for node in ast.walk(ast.parse(_python(source)))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "print"
    ]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_no_hand_written_cell_is_longer_than_a_step(chapter: str) -> None:
    long = {
        cell.id: len(cell.source.splitlines())
        for cell in _hand_written(chapter)
        if len(cell.source.splitlines()) > MOST_LINES
    }
    assert not long, f"cells over {MOST_LINES} lines: {long}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_prints_label_values_and_never_write_prose(chapter: str) -> None:
    prose = [
        (cell.id, text)
        for cell in _hand_written(chapter)
        for text in _prints(cell.source)
        if is_prose(text)
    ]
    assert not prose, f"prose printed (write it as words, shown as Markdown): {prose}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_name_a_cell_imports_from_servelab_exists(chapter: str) -> None:
    """A module split or a name moved breaks a chapter at its import: caught here, in the unit
    tier, before nbval runs the chapter against an engine."""
    missing = []
    for cell in _hand_written(chapter):
        for node in ast.walk(ast.parse(_python(cell.source))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("servelab"):
                module = importlib.import_module(node.module or "")
                missing += [
                    f"{cell.id}: {node.module}.{alias.name}"
                    for alias in node.names
                    if not hasattr(module, alias.name)
                    and importlib.util.find_spec(f"{node.module}.{alias.name}") is None
                ]
    assert not missing, f"imports that no longer resolve: {missing}"


@pytest.mark.parametrize(
    ("source", "prose"),
    [
        ('print(f"engine reported: {n:,} tokens; blocks for sequences: {b}")', False),
        ('print(f"peak KV usage {u:.0%} with {r:.0f} sequences running")', False),
        ('print(f"One token of KV cache: {f}. The sweep server\'s {n} tokens are {g} GiB.")', True),
        (
            'print("This device cannot be split between two servers; the side-by-side run is '
            'skipped for now.")',
            True,
        ),
    ],
)
def test_the_rule_tells_a_label_from_prose(source: str, prose: bool) -> None:
    (text,) = _prints(source)
    assert is_prose(text) is prose
