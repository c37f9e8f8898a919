"""The book's two hand-written lists of chapters follow ``servelab.book.CHAPTERS`` (issue #65
item 4: chapter 10 was once missing from both): intro.md's numbered list has one entry a chapter,
and chapter 00's closing list links every later chapter, in reading order. Read as text."""

from __future__ import annotations

import json
import re

from course.paths import REPO_ROOT
from servelab.book import CHAPTERS

INTRO = REPO_ROOT / "intro.md"
OVERVIEW = REPO_ROOT / "assignments" / "source" / CHAPTERS[0].id / f"{CHAPTERS[0].id}.ipynb"
ENTRY = re.compile(r"^(\d+)\. \*\*", re.MULTILINE)
LINK = re.compile(r"\]\(\.\./([\w-]+)/\1\.ipynb\)")


def numbered_entries(markdown: str) -> list[int]:
    """The numbers of a Markdown text's numbered entries that open with a bold title."""
    return [int(number) for number in ENTRY.findall(markdown)]


def linked_chapters(cells: list[str]) -> list[str]:
    """The chapters the cell with the most chapter links links to, in its order."""
    return max((LINK.findall(cell) for cell in cells), key=len, default=[])


def _markdown_cells() -> list[str]:
    notebook = json.loads(OVERVIEW.read_text(encoding="utf-8"))
    return [
        "".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "markdown"
    ]


def test_intro_lists_every_chapter_once_in_order() -> None:
    assert numbered_entries(INTRO.read_text(encoding="utf-8")) == list(range(len(CHAPTERS)))


def test_chapter_00_closes_with_every_later_chapter_in_order() -> None:
    assert linked_chapters(_markdown_cells()) == [chapter.id for chapter in CHAPTERS[1:]]


def test_the_readers_find_a_missing_chapter() -> None:
    assert numbered_entries("0. **One**: a\n1. **Two**: b\n3. **Four**\n2. plain") == [0, 1, 3]
    cells = [
        "[01 · a](../01-a/01-a.ipynb) and [03 · c](../03-c/03-c.ipynb)",
        "[02 · b](../02-b/02-b.ipynb)",
        "[x](../01-a/other.ipynb)",
    ]
    assert linked_chapters(cells) == ["01-a", "03-c"]
