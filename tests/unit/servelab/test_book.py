"""The book's chapters: one declaration each, in its own package, listing every notebook."""

from __future__ import annotations

from dataclasses import fields

from course.paths import CHAPTERS, SOURCE_DIR, source_notebook
from servelab.book import BY_ID
from servelab.book import CHAPTERS as BOOK
from servelab.sizes import PROFILES


def test_the_book_lists_every_notebook_in_reading_order() -> None:
    notebooks = sorted(
        path.parent.name for path in SOURCE_DIR.glob("*/*.ipynb") if path.stem == path.parent.name
    )
    assert list(CHAPTERS) == notebooks
    assert all(source_notebook(chapter).exists() for chapter in CHAPTERS)
    assert list(BY_ID) == [chapter.id for chapter in BOOK]


def test_each_chapter_lives_in_a_lesson_package() -> None:
    for chapter in BOOK:
        module = type(chapter.sizes.smoke).__module__
        assert module.startswith("servelab.lessons.") and module.endswith(".chapter"), module


def test_each_chapters_profiles_have_the_same_fields() -> None:
    for chapter in BOOK:
        knobs = [chapter.sizes.at(profile) for profile in PROFILES]
        assert [k.profile for k in knobs] == list(PROFILES), chapter.id
        assert len({type(k) for k in knobs}) == 1, chapter.id
        assert len({tuple(k.knobs()) for k in knobs}) == 1, chapter.id
        assert [f.name for f in fields(knobs[0])][0] == "profile", chapter.id


def test_no_two_chapters_share_a_size_class() -> None:
    assert len({type(chapter.sizes.smoke) for chapter in BOOK}) == len(BOOK)


def test_each_chapters_main_figures_are_two_of_its_own() -> None:
    for chapter in BOOK:
        assert len(set(chapter.main_figures)) == 2, chapter.id
        assert set(chapter.main_figures) <= set(chapter.figures), chapter.id
