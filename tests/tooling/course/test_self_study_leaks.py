"""Answer keys never leave the instructor source: scan book/ and the built site for them.

The self-study site (course/self_study.py) is the one exception, and only by explaining each
check in prose: its notebooks and pages hold every option's explanation, which book/ and the
graded site must not, and still no key in code form.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

from course.checks import check_cells, load_check
from course.edition import site_under_test
from course.paths import CHECKS_DIR
from course.self_study import ANSWERS_CLASS, build_site, write_tree
from servelab import settings
from tests.leak_scan import (
    MARKERS,
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


def built_site() -> Path:
    site = site_under_test()
    if site is None:
        message = "no built site: run jupyter-book build --all -W . or SERVELAB_BUILD_SITE=1"
        if settings.REQUIRE_SITE.on():
            pytest.fail(message)
        pytest.skip(message)
    return site


@pytest.mark.tooling  # SERVELAB_BUILD_SITE=1 builds with jupyter-book
def test_built_site_has_no_answer_keys(letters: dict[str, str]) -> None:
    assert scan(built_site(), letters) == []


@pytest.mark.tooling  # SERVELAB_BUILD_SITE=1 builds with jupyter-book
def test_built_site_explains_no_check(explained_by: dict[str, list[str]]) -> None:
    assert explained(built_site(), explained_by) == []


# --- the self-study output: explanations in prose, in every chapter, and nowhere else ----------


@pytest.mark.tooling  # jupyter-book, with execution off: no chapter runs
def test_self_study_site_explains_every_check_and_the_graded_site_none(
    tmp_path: Path, letters: dict[str, str], explained_by: dict[str, list[str]]
) -> None:
    tree = tmp_path / "self-study"
    write_tree(tree, execute=False)
    site = build_site(tree)
    pages = [site / "book" / chapter / f"{chapter}.html" for chapter in explained_by]
    assert_explains_only_its_own_chapter(pages, explained_by)
    for page in pages:
        assert page.read_text(encoding="utf-8").count(f'<details class="{ANSWERS_CLASS}">') == 1
    assert scan(site, letters) == []


# --- the scanner itself ----------------------------------------------------------------------

CHAPTER = "01-serving-engine"


def chapter_notebook(tmp_path: Path, release: bool) -> Path:
    """A notebook holding a real check, as the source (release=False) or the student edition."""
    check = load_check(CHECKS_DIR / f"{CHAPTER}.yml")
    notebook = nbformat.v4.new_notebook(cells=check_cells(check))
    notebook.metadata["kernelspec"] = {"name": "python3", "language": "python"}
    if release:
        stub = {"python": "answer = None  # replace None with the letter you choose, in quotes"}
        for preprocessor in (ClearSolutions(code_stub=stub), ClearHiddenTests()):
            notebook, _ = preprocessor.preprocess(notebook, {})
    path = tmp_path / "book" / CHAPTER / f"{CHAPTER}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)
    return path


@pytest.mark.tooling  # nbgrader's release preprocessors
def test_scanner_passes_a_clean_student_edition(tmp_path: Path, letters: dict[str, str]) -> None:
    chapter_notebook(tmp_path, release=True)
    assert scan(tmp_path, letters) == []


@pytest.mark.tooling  # its helper holds nbgrader's preprocessors
def test_scanner_flags_the_instructor_source(tmp_path: Path, letters: dict[str, str]) -> None:
    path = chapter_notebook(tmp_path, release=False)
    found = scan(tmp_path, letters)
    correct = letters[CHAPTER]
    for leak in (*MARKERS, f'answer = "{correct}"', f"_choice == '{correct}'"):
        assert f"{path}: {leak}" in found
