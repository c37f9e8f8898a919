"""Answer keys never leave the instructor source: scan book/ and the built site for them.

The self-study site (course/self_study.py) is the one exception, and only by explaining each
check in prose: its notebooks and pages hold every option's explanation, which book/ and the
graded site must not, and still no key in code form.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from course.checks import LETTERS
from course.paths import BOOK_DIR
from course.self_study import write_tree
from tests.leak_scan import (
    assert_explains_only_its_own_chapter,
    correct_letters,
    explained,
    explanations,
    scan,
)


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


def test_self_study_copy_explains_every_check_with_no_key_in_code(
    tmp_path: Path, letters: dict[str, str], explained_by: dict[str, list[str]]
) -> None:
    before = {path: path.read_bytes() for path in BOOK_DIR.rglob("*") if path.is_file()}
    notebooks = write_tree(tmp_path / "self-study", execute=False)
    assert sorted(p.parent.name for p in notebooks) == sorted(explained_by)
    assert_explains_only_its_own_chapter(notebooks, explained_by)
    assert scan(tmp_path, letters) == []  # the key is in prose only: no solution, no hidden test
    hits = explained(tmp_path, explained_by)  # what the default-mode tests look for
    assert {
        chapter for chapter in explained_by if any(f"/{chapter}/" in hit for hit in hits)
    } == set(explained_by)
    after = {path: path.read_bytes() for path in BOOK_DIR.rglob("*") if path.is_file()}
    assert after == before, "writing the self-study copy changed book/"
    assert explained(BOOK_DIR, explained_by) == []


# --- the scanner itself ----------------------------------------------------------------------

CHAPTER = "01-serving-engine"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        (
            "page.html",
            '<span class="n">answer</span> <span class="o">=</span> '
            '<span class="s2">&quot;{letter}&quot;</span>',
        ),
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
