"""course.paths: the repository root found by its two markers, walking up from each start in
turn, and each chapter's source and student notebook named for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from course.paths import (
    CHAPTERS,
    REPO_ROOT,
    RepositoryNotFound,
    find_repo_root,
    source_notebook,
    student_notebook,
)


def test_the_root_is_the_first_folder_up_that_holds_both_markers(tmp_path: Path) -> None:
    root = tmp_path / "book"
    (root / "assignments").mkdir(parents=True)
    (root / "_config.yml").write_text("", encoding="utf-8")
    deep = root / "a" / "b"
    deep.mkdir(parents=True)
    assert find_repo_root(deep) == root
    config_only = tmp_path / "other"
    config_only.mkdir()
    (config_only / "_config.yml").write_text("", encoding="utf-8")
    assert find_repo_root(config_only, deep) == root  # one marker alone is passed over
    with pytest.raises(RepositoryNotFound, match="assignments"):
        find_repo_root(config_only)
    assert find_repo_root() == REPO_ROOT == Path(__file__).parents[3]


def test_each_chapter_has_a_source_and_a_student_notebook_named_for_it(tmp_path: Path) -> None:
    assert source_notebook("07-x", tmp_path) == tmp_path / "07-x" / "07-x.ipynb"
    assert student_notebook("07-x", tmp_path) == tmp_path / "07-x" / "07-x.ipynb"
    assert all(source_notebook(chapter).is_file() for chapter in CHAPTERS)
