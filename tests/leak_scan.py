"""The answer-key scanner both tiers run (tests/unit/course/test_self_study_leaks.py on book/
and the self-study tree, tests/tooling/course/test_self_study_leaks.py on built sites): every
answer key, hidden-test marker and check explanation found in a tree of published files (no
tests)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path

from course.checks import load_check
from course.paths import CHAPTERS, CHECKS_DIR
from course.self_study import ANSWERS_CLASS, SELF_STUDY_TAG

MARKERS = (
    "BEGIN SOLUTION",
    "END SOLUTION",
    "BEGIN HIDDEN TESTS",
    "END HIDDEN TESTS",
    "_feedback = {",  # the hidden part's table of explanations
)
# `answer = "C"` or the hidden `_choice == "C"`: quotes of either kind, maybe backslash-escaped
# as in a JavaScript string, and the letter in any case.
ANSWER = re.compile(r"""\b(?:answer|_choice)\s*(?:=|==)\s*\\?(["'])\s*([A-Da-d])\s*\\?\1""")
TEXT_SUFFIXES = {".html", ".ipynb", ".js", ".json", ".md", ".txt", ".py"}
SKIPPED_DIRS = {"_static"}  # the theme's own assets


def correct_letters(checks_dir: Path = CHECKS_DIR) -> dict[str, str]:
    return {
        chapter: load_check(checks_dir / f"{chapter}.yml").correct
        for chapter in CHAPTERS
        if (checks_dir / f"{chapter}.yml").exists()
    }


def readable_text(path: Path) -> str:
    """What a reader could see in ``path``: notebook strings, or HTML without tags and escapes."""
    raw = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".ipynb":
        return "\n".join(_strings(json.loads(raw)))
    if path.suffix == ".html":
        raw = re.sub(r"<[^>]+>", "", raw)
    return html.unescape(raw)


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        joined = all(isinstance(item, str) for item in value)
        if joined:  # notebook sources and stream texts are stored as lists of lines
            yield "".join(value)
        else:
            for item in value:
                yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def scan(root: Path, letters: dict[str, str]) -> list[str]:
    """Every leak under ``root`` as ``path: what``.

    An answer-shaped letter counts as a leak when it is the correct letter of the chapter the
    file belongs to; in a file that belongs to no chapter (a search index, say) any such letter
    is one.
    """
    leaks = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.suffix not in TEXT_SUFFIXES:
            continue
        if SKIPPED_DIRS & set(path.relative_to(root).parts):
            continue
        text = readable_text(path)
        chapter = next((part for part in path.parts if part in CHAPTERS), None)
        leaks += [f"{path}: {marker}" for marker in MARKERS if marker in text]
        for match in ANSWER.finditer(text):
            letter = match.group(2).upper()
            if chapter is None or letters.get(chapter) == letter:
                leaks.append(f"{path}: {match.group(0)}")
    return leaks


def _words(text: str) -> str:
    """``text`` as lowercase words: markdown, HTML tags, typographic quotes and dashes drop out,
    so an explanation is found in a notebook's source and on a rendered page alike."""
    return " ".join(re.findall(r"[0-9a-z]+", text.lower()))


def explanations(checks_dir: Path = CHECKS_DIR) -> dict[str, list[str]]:
    """Each chapter's explanations of its options (why a wrong one looks right, why it is wrong),
    as :func:`_words`: text only the hidden test and the self-study output may hold."""
    found = {}
    for chapter in CHAPTERS:
        if (checks_dir / f"{chapter}.yml").exists():
            check = load_check(checks_dir / f"{chapter}.yml")
            found[chapter] = [
                _words(text)
                for option in check.options
                for text in (option.tempts, option.wrong)
                if text
            ]
    return found


def explained(root: Path, explained_by: dict[str, list[str]]) -> list[str]:
    """Every place under ``root`` that explains a check, as ``path: what``: a self-study block
    (its tag or class) or one of any chapter's option explanations."""
    hits = []
    every = [text for texts in explained_by.values() for text in texts]
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.suffix not in TEXT_SUFFIXES:
            continue
        if SKIPPED_DIRS & set(path.relative_to(root).parts):
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        hits += [
            f"{path}: {marker}"
            for marker in (ANSWERS_CLASS, f'"{SELF_STUDY_TAG}"')
            if marker in raw
        ]
        words = _words(readable_text(path))
        hits += [f"{path}: explains {text[:40]!r}" for text in every if text in words]
    return hits


def assert_explains_only_its_own_chapter(
    pages: list[Path], explained_by: dict[str, list[str]]
) -> None:
    """Each page holds every explanation of its own chapter's check and none of another's."""
    for page in pages:
        chapter = next(part for part in page.parts if part in CHAPTERS)
        words = _words(readable_text(page))
        missing = [text[:40] for text in explained_by[chapter] if text not in words]
        assert missing == [], f"{page} lacks its check's explanations: {missing}"
        foreign = [
            text[:40]
            for other, texts in explained_by.items()
            if other != chapter
            for text in texts
            if text in words
        ]
        assert foreign == [], f"{page} explains another chapter's check: {foreign}"
