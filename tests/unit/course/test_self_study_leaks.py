"""Answer keys never leave the instructor source: scan book/ and the built site for them.

The self-study site (course/self_study.py) is the one exception, and only by explaining each
check in prose: its notebooks and pages hold every option's explanation, which book/ and the
graded site must not, and still no key in code form.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from course.checks import LETTERS, load_check
from course.paths import BOOK_DIR, CHAPTERS, CHECKS_DIR
from course.self_study import ANSWERS_CLASS, SELF_STUDY_TAG, write_tree

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
            found[chapter] = [_words(text) for option in check.options
                              for text in (option.tempts, option.wrong) if text]
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
        hits += [f"{path}: {marker}" for marker in (ANSWERS_CLASS, f'"{SELF_STUDY_TAG}"')
                 if marker in raw]
        words = _words(readable_text(path))
        hits += [f"{path}: explains {text[:40]!r}" for text in every if text in words]
    return hits


@pytest.fixture(scope="module")
def letters() -> dict[str, str]:
    return correct_letters()


@pytest.fixture(scope="module")
def explained_by() -> dict[str, list[str]]:
    return explanations()


def test_book_has_no_answer_keys(letters: dict[str, str]) -> None:
    assert scan(BOOK_DIR, letters) == []


def test_book_explains_no_check(explained_by: dict[str, list[str]]) -> None:
    assert explained(BOOK_DIR, explained_by) == []


# --- the self-study output: explanations in prose, in every chapter, and nowhere else ----------

def assert_explains_only_its_own_chapter(
    pages: list[Path], explained_by: dict[str, list[str]]
) -> None:
    """Each page holds every explanation of its own chapter's check and none of another's."""
    for page in pages:
        chapter = next(part for part in page.parts if part in CHAPTERS)
        words = _words(readable_text(page))
        missing = [text[:40] for text in explained_by[chapter] if text not in words]
        assert missing == [], f"{page} lacks its check's explanations: {missing}"
        foreign = [text[:40] for other, texts in explained_by.items() if other != chapter
                   for text in texts if text in words]
        assert foreign == [], f"{page} explains another chapter's check: {foreign}"


def test_self_study_copy_explains_every_check_with_no_key_in_code(
    tmp_path: Path, letters: dict[str, str], explained_by: dict[str, list[str]]
) -> None:
    before = {path: path.read_bytes() for path in BOOK_DIR.rglob("*") if path.is_file()}
    notebooks = write_tree(tmp_path / "self-study", execute=False)
    assert sorted(p.parent.name for p in notebooks) == sorted(explained_by)
    assert_explains_only_its_own_chapter(notebooks, explained_by)
    assert scan(tmp_path, letters) == []  # the key is in prose only: no solution, no hidden test
    hits = explained(tmp_path, explained_by)  # what the default-mode tests look for
    assert {chapter for chapter in explained_by if any(f"/{chapter}/" in hit for hit in hits)} \
        == set(explained_by)
    after = {path: path.read_bytes() for path in BOOK_DIR.rglob("*") if path.is_file()}
    assert after == before, "writing the self-study copy changed book/"
    assert explained(BOOK_DIR, explained_by) == []


# --- the scanner itself ----------------------------------------------------------------------

CHAPTER = "01-serving-engine"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("page.html", '<span class="n">answer</span> <span class="o">=</span> '
                      '<span class="s2">&quot;{letter}&quot;</span>'),
        ("page.html", "<pre>### BEGIN HIDDEN TESTS</pre>"),
        ("notes.md", "answer = ' {lower} '"),
        ("searchindex.js", 'Search.setIndex({{"x": "answer=\\"{letter}\\""}})'),
    ],
)
def test_scanner_flags_planted_leaks(
    tmp_path: Path, letters: dict[str, str], name: str, content: str
) -> None:
    letter = letters[CHAPTER]
    folder = tmp_path / "html" / ("." if name == "searchindex.js" else f"book/{CHAPTER}")
    folder.mkdir(parents=True)
    (folder / name).write_text(content.format(letter=letter, lower=letter.lower()))
    assert len(scan(tmp_path, letters)) == 1


def test_scanner_ignores_another_letter_in_a_chapter(
    tmp_path: Path, letters: dict[str, str]
) -> None:
    wrong = next(letter for letter in LETTERS if letter != letters[CHAPTER])
    folder = tmp_path / "book" / CHAPTER
    folder.mkdir(parents=True)
    (folder / "page.html").write_text(f"<p>answer = &quot;{wrong}&quot;</p>")
    assert scan(tmp_path, letters) == []
