"""Chapter 00, the lesson in one notebook: its check follows the lesson's, its page names the
lesson, and it has the book's shape (its computed text:
tests/unit/servelab/lessons/serving_many_users/test_words.py)."""

from __future__ import annotations

import json
import re

import nbformat
import pytest

from course.checks import check_from_lesson, find_check_file, is_check_cell, load_check
from course.checks.cells import question_source
from course.lesson import LessonSource, lesson_file
from course.paths import CHAPTERS, source_notebook
from servelab.lessons.serving_many_users.chapter import CHAPTER as OVERVIEW
from servelab.sizes import PROFILES

CHAPTER = "00-serving-many-users"


@pytest.fixture(scope="module")
def lesson() -> dict:
    path = lesson_file()
    assert path.exists(), f"the lesson document is missing: {path}"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def notebook() -> nbformat.NotebookNode:
    return nbformat.read(source_notebook(CHAPTER), as_version=4)


def test_the_check_has_as_many_options_as_the_lesson_and_the_same_key(lesson: dict) -> None:
    ours = load_check(find_check_file(CHAPTER))
    theirs = check_from_lesson(lesson, CHAPTER)
    assert len(ours.options) == len(lesson["check"]["options"])
    assert ours.correct == theirs.correct


def test_the_options_stand_in_the_lessons_display_order(lesson: dict) -> None:
    """Each wrong option of the lesson names its mechanism first (quantisation, tensor
    parallelism, ...); ours, rewritten, must name the same one at the same letter."""
    ours = load_check(find_check_file(CHAPTER))
    theirs = check_from_lesson(lesson, CHAPTER)
    for mine, original in zip(ours.options, theirs.options, strict=True):
        if original.letter == theirs.correct:
            continue
        mechanism = re.findall(r"[a-z]+", original.text.lower())[0]
        assert mechanism in mine.text.lower(), (mine.letter, mechanism, mine.text)


def test_the_check_cells_in_the_notebook_are_the_check_file(notebook) -> None:
    check = load_check(find_check_file(CHAPTER))
    cells = [cell for cell in notebook.cells if is_check_cell(cell)]
    assert [cell.source for cell in cells][:1] == [question_source(check)]
    assert notebook.cells[-3:] == cells


def test_the_metadata_names_the_lesson(notebook, lesson: dict) -> None:
    recorded = LessonSource.from_metadata(notebook.metadata["servelab"]["lesson"])
    assert recorded == LessonSource.from_lesson(lesson)
    assert (recorded.title, recorded.position, recorded.of) == (
        lesson["lesson"]["title"],
        lesson["lesson"]["position"],
        lesson["lesson"]["of"],
    )
    assert recorded.licence == lesson["licence"]["name"]


def test_the_page_shows_the_attribution_the_licence_asks_for(notebook) -> None:
    recorded = LessonSource.from_metadata(notebook.metadata["servelab"]["lesson"])
    shown = [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]
    assert recorded.attribution() in shown
    for part in (
        recorded.title,
        recorded.course,
        recorded.url,
        recorded.licence,
        recorded.licence_url,
    ):
        assert part in recorded.attribution()


def test_it_comes_first_and_has_sizes_for_every_profile() -> None:
    assert CHAPTERS[0] == CHAPTER == OVERVIEW.id
    for profile in PROFILES:
        assert OVERVIEW.sizes.at(profile).levels[0] == 1


def test_prediction_then_measurement_then_computed_prose_then_check(notebook) -> None:
    sources = [cell.source for cell in notebook.cells]
    prediction = next(i for i, s in enumerate(sources) if s.startswith('my_prediction = ""'))
    server = next(i for i, s in enumerate(sources) if "print(server.command_line)" in s)
    prose = [i for i, cell in enumerate(notebook.cells) if "prose" in cell.metadata.get("tags", [])]
    check = next(i for i, cell in enumerate(notebook.cells) if is_check_cell(cell))
    assert prediction < server < prose[0] and prose[-1] < check
    assert len(prose) == 6  # the batching, prefix, load, sizing, chunking and summary passages
    assert 'runtime.sizes("00-serving-many-users")' in "\n".join(sources)
