"""The self-study copy (course/self_study.py): each check followed by its collapsed explanations,
everything else as the student edition has it. Where keys may and may not appear is
test_self_study_leaks.py's job."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
import yaml

from course.checks import CheckError, load_check, role_of
from course.paths import CHAPTERS, CHECKS_DIR, REPO_ROOT, student_notebook
from course.self_study import (
    ANSWERS_CLASS,
    INTRO_NOTE,
    NOT_RIGHT,
    OUT_DIR,
    RIGHT,
    SELF_STUDY_TAG,
    SelfStudyError,
    explanation_source,
    is_explanation_cell,
    self_study_config,
    with_explanation,
    with_intro_note,
    write_tree,
)

PUBLISHED = [chapter for chapter in CHAPTERS if student_notebook(chapter).exists()]


def summary(notebook: nbformat.NotebookNode) -> list[tuple]:
    return [(cell.cell_type, cell.source, cell.metadata) for cell in notebook.cells]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("self-study")
    write_tree(out, execute=True)
    return out


@pytest.mark.parametrize("chapter", PUBLISHED)
def test_explanations_follow_the_check_and_nothing_else_changes(tree: Path, chapter: str) -> None:
    edition = nbformat.read(student_notebook(chapter), as_version=4)
    copy = nbformat.read(student_notebook(chapter, tree / "book"), as_version=4)
    added = [index for index, cell in enumerate(copy.cells) if is_explanation_cell(cell)]
    assert len(added) == 1, "one explanation cell per chapter"
    assert role_of(copy.cells[added[0] - 1]) == "test", "it comes right after the check"
    cell = copy.cells[added[0]]
    assert cell.cell_type == "markdown" and cell.metadata["tags"] == [SELF_STUDY_TAG]
    others = summary(copy)
    del others[added[0]]
    assert others == summary(edition), "every other cell is the student edition's, in its order"
    assert copy.metadata == edition.metadata
    assert cell.source == explanation_source(load_check(CHECKS_DIR / f"{chapter}.yml"))


@pytest.mark.parametrize("chapter", PUBLISHED)
def test_every_option_is_explained_inside_one_collapsed_block(chapter: str) -> None:
    check = load_check(CHECKS_DIR / f"{chapter}.yml")
    source = explanation_source(check)
    assert source.startswith(f'<details class="{ANSWERS_CLASS}">\n<summary>')
    assert source.endswith("</details>") and source.count("<details") == 1
    assert not re.search(r"<details[^>]*\bopen\b", source), "collapsed until the reader opens it"
    verdicts = re.findall(r"\*\*([A-D]) is (.+?)\.\*\*", source)
    assert verdicts == [
        (option.letter, RIGHT if option.letter == check.correct else NOT_RIGHT)
        for option in check.options
    ]
    for option in check.options:
        assert option.text in source
        for reason in (option.tempts, option.wrong):
            assert reason is None or reason in source
    # Markdown inside an HTML block renders only past a blank line after the opening tags.
    assert source.split("\n")[2] == "" and source.split("\n")[-2] == ""


def test_a_second_pass_replaces_the_explanation(tree: Path) -> None:
    chapter = PUBLISHED[0]
    check = load_check(CHECKS_DIR / f"{chapter}.yml")
    once = nbformat.read(student_notebook(chapter, tree / "book"), as_version=4)
    assert summary(with_explanation(once, check)) == summary(once)


def test_a_notebook_without_its_check_is_refused() -> None:
    check = load_check(CHECKS_DIR / f"{PUBLISHED[0]}.yml")
    bare = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# no check")])
    with pytest.raises(SelfStudyError, match="expected one check test cell, found 0"):
        with_explanation(bare, check)


def test_a_missing_check_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CheckError, match="no check data"):
        write_tree(tmp_path / "out", checks_dir=tmp_path / "no-checks")


@pytest.mark.parametrize("target", [".", "book", "book/x", "assignments", "assignments/release"])
def test_the_copy_never_goes_into_the_repository_book_or_course(
    tmp_path: Path, target: str
) -> None:
    repo = tmp_path / "repo"  # a stand-in, so that a broken guard cannot harm the real book/
    (repo / "book").mkdir(parents=True)
    (repo / "assignments").mkdir()
    with pytest.raises(SelfStudyError, match="refusing"):
        write_tree(repo / target, book_dir=repo / "book", repo_root=repo)
    assert (repo / "book").is_dir() and (repo / "assignments").is_dir()


def test_the_default_output_is_git_ignored() -> None:
    ignored = (REPO_ROOT / ".gitignore").read_text(encoding="utf-8").split()
    first = OUT_DIR.relative_to(REPO_ROOT).parts[0]
    assert f"{first}/" in ignored


def test_the_copy_is_a_book_of_its_own(tree: Path) -> None:
    config = yaml.safe_load((tree / "_config.yml").read_text(encoding="utf-8"))
    assert config["title"].endswith("(self-study)")
    assert (
        config["repository"]
        == yaml.safe_load((REPO_ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"]
    ), "launch badges and buttons still open the graded student edition"
    toc = (tree / "_toc.yml").read_text(encoding="utf-8")
    assert [f"book/{c}/{c}" for c in PUBLISHED] == re.findall(r"file: (\S+)", toc)
    intro = (tree / "intro.md").read_text(encoding="utf-8")
    assert INTRO_NOTE in intro and intro.splitlines()[0].startswith("# ")
    assert (tree / "_static").is_dir()


def test_the_copy_shares_the_graded_builds_execution_cache_or_runs_nothing() -> None:
    text = (REPO_ROOT / "_config.yml").read_text(encoding="utf-8")
    shared = self_study_config(text, execute=True)["execute"]
    assert shared["cache"] == str((REPO_ROOT / "_build" / ".jupyter_cache").resolve())
    assert shared["execute_notebooks"] == yaml.safe_load(text)["execute"]["execute_notebooks"]
    off = self_study_config(text, execute=False)["execute"]
    assert off["execute_notebooks"] == "off"


def test_the_intro_note_goes_under_the_title() -> None:
    assert with_intro_note("# Title\n\nFirst paragraph.\n") == (
        f"# Title\n\n{INTRO_NOTE}\n\nFirst paragraph.\n"
    )
