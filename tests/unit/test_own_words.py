"""The book's prose is its own: no run of seven words repeats the lesson it is based on.

Compared, after lower-casing and dropping punctuation, numbers and code: the lesson's body and
its check (``course.lesson.lesson_file()``) against every markdown cell of every
source notebook, every check file, ``intro.md`` and the text written by chapter 00's helpers
(``servelab.lessons.serving_many_users.words``, ``course.lesson``).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import nbformat
import pytest
import yaml

from course import lesson as course_lesson
from course.lesson import lesson_file
from course.paths import CHECKS_DIR, REPO_ROOT, SOURCE_DIR
from servelab import settings
from servelab.lessons.serving_many_users import words as lesson_module

RUN = 7
_FENCED = re.compile(r"```.*?```", re.DOTALL)
_INLINE = re.compile(r"`[^`\n]*`")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)*")


def words(text: str) -> list[str]:
    """Lower-case words of ``text`` without code, link targets, punctuation or numbers."""
    text = _INLINE.sub(" ", _FENCED.sub(" ", text))
    text = _LINK_TARGET.sub("] ", text).lower().replace("\u2019", "'")
    return [token for token in _TOKEN.findall(text) if not any(c.isdigit() for c in token)]


def runs(text: str, length: int = RUN) -> set[str]:
    tokens = words(text)
    return {" ".join(tokens[i : i + length]) for i in range(len(tokens) - length + 1)}


def shared_runs(text: str, source_runs: set[str]) -> list[str]:
    return sorted(runs(text) & source_runs)


def lesson_texts(lesson: dict) -> list[str]:
    """The lesson's body and every text of its check."""
    check = lesson["check"]
    texts = [lesson["body"]["text"], check["question"]]
    for option in check["options"]:
        texts += [option["text"], option.get("tempting") or ""]
    return texts


def book_texts() -> dict[str, str]:
    """Where each piece of the book's prose lives -> its text."""
    texts: dict[str, str] = {"intro.md": (REPO_ROOT / "intro.md").read_text(encoding="utf-8")}
    for path in sorted(SOURCE_DIR.glob("*/*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type == "markdown":
                texts[f"{path.name} cell {index} ({cell.get('id')})"] = cell.source
    for path in sorted(CHECKS_DIR.glob("*.yml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        texts[f"{path.name} question"] = data["question"]
        for letter, option in data["options"].items():
            option = option if isinstance(option, dict) else {"text": option}
            for field, text in option.items():
                texts[f"{path.name} {letter}.{field}"] = text
    for module in (Path(lesson_module.__file__), Path(course_lesson.__file__)):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                texts[f"{module.parent.name}/{module.name} line {node.lineno}"] = node.value
    return texts


@pytest.fixture(scope="module")
def lesson_runs() -> set[str]:
    path = lesson_file()
    assert path.exists(), (
        f"the lesson document is missing: {path}; set {settings.LESSON_FILE.name} to its path"
    )
    lesson = json.loads(path.read_text(encoding="utf-8"))
    return set().union(*(runs(text) for text in lesson_texts(lesson)))


def test_words_ignore_case_punctuation_numbers_and_code() -> None:
    assert words("A 2,000-token *prompt*, `--max-num-seqs 64` and\n```bash\nvllm serve\n```") == [
        "a",
        "token",
        "prompt",
        "and",
    ]
    assert words("See [the lesson](https://example.org/a-b-c) now") == [
        "see",
        "the",
        "lesson",
        "now",
    ]


def test_a_copied_run_is_found_and_a_paraphrase_is_not() -> None:
    source = runs("Requests finish at different times, so the batch waits for its slowest one.")
    copied = "On a server, requests finish at different times, so the batch stalls."
    assert shared_runs(copied, source) == [
        "finish at different times so the batch",
        "requests finish at different times so the",
    ]
    assert shared_runs("Answers end at different moments and slots sit empty.", source) == []


def test_the_book_shares_no_seven_word_run_with_the_lesson(lesson_runs: set[str]) -> None:
    copied = {
        where: found
        for where, text in book_texts().items()
        if (found := shared_runs(text, lesson_runs))
    }
    assert not copied, "prose repeating the lesson word for word:\n" + "\n".join(
        f"  {where}: {found}" for where, found in copied.items()
    )
