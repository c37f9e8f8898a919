"""Adding a chapter is four places (CONTRIBUTING.md "Adding a chapter"): its notebook, its check,
its package (with its tests) and one line in ``servelab/book.py``.

The proof builds a throw-away chapter 11 in a copy of the repository, as a copy of chapter 06
under a new id, touching only those four places, and runs there every unit test that lists or
checks the chapters: the book and its sizes, the figures and result records, the layout and the
import rules, the notebooks' style and the checks. What a command writes rather than a person (the
story snapshot, which ``tests/snapshots/record.py`` records from a run, stood in for here by
chapter 06's; the student edition, ``make edition``) is not a place, nor are the GPU contract's
counts, which its own tests hold to every chapter.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from course.paths import REPO_ROOT

MODEL_ID, NEW_ID = "06-chunked-prefill", "11-chunked-again"
MODEL_PACKAGE, NEW_PACKAGE = "chunked_prefill", "chunked_again"
COPIED = (
    "servelab",
    "course",
    "autograder",
    "env",
    "benchmarks",
    "tests",
    "assignments/source",
    "assignments/checks",
    "pyproject.toml",
    "conftest.py",
    "_config.yml",
    "README.md",
    "CONTRIBUTING.md",
    "instructors.md",
)
# The unit tests that enumerate the book's chapters or hold a rule every chapter must keep.
CHAPTER_TESTS = (
    "tests/unit/servelab/test_book.py",
    "tests/unit/servelab/test_sizes.py",
    "tests/unit/test_servelab.py",
    "tests/unit/servelab/test_results.py",
    "tests/unit/test_layout.py",
    "tests/unit/test_import_layers.py",
    "tests/unit/test_lesson_shape.py",
    "tests/unit/test_notebook_style.py",
    "tests/unit/course/test_checks.py",
    "tests/unit/test_story_snapshots.py",
    f"tests/unit/servelab/lessons/{NEW_PACKAGE}",
)


def _copy(tree: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in COPIED:
        source = REPO_ROOT / name
        if source.is_dir():
            shutil.copytree(source, tree / name, ignore=ignore)
        else:
            shutil.copy2(source, tree / name)


def _renamed(text: str) -> str:
    return (
        text.replace(MODEL_ID, NEW_ID)
        .replace(f"servelab.lessons.{MODEL_PACKAGE}", f"servelab.lessons.{NEW_PACKAGE}")
        .replace(f"servelab/lessons/{MODEL_PACKAGE}", f"servelab/lessons/{NEW_PACKAGE}")
    )


def _copy_renamed(source: Path, target: Path) -> None:
    """``source`` (a file or folder) at ``target``, chapter 06's names made chapter 11's."""
    files = [source] if source.is_file() else sorted(source.rglob("*.py"))
    for path in files:
        destination = target if source.is_file() else target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_text(_renamed(path.read_text(encoding="utf-8")), encoding="utf-8")


def add_chapter(tree: Path) -> None:
    """The four places, and nothing else."""
    _copy_renamed(
        REPO_ROOT / "assignments" / "source" / MODEL_ID / f"{MODEL_ID}.ipynb",
        tree / "assignments" / "source" / NEW_ID / f"{NEW_ID}.ipynb",
    )
    _copy_renamed(
        REPO_ROOT / "assignments" / "checks" / f"{MODEL_ID}.yml",
        tree / "assignments" / "checks" / f"{NEW_ID}.yml",
    )
    _copy_renamed(
        REPO_ROOT / "servelab" / "lessons" / MODEL_PACKAGE,
        tree / "servelab" / "lessons" / NEW_PACKAGE,
    )
    _copy_renamed(
        REPO_ROOT / "tests" / "unit" / "servelab" / "lessons" / MODEL_PACKAGE,
        tree / "tests" / "unit" / "servelab" / "lessons" / NEW_PACKAGE,
    )
    book = tree / "servelab" / "book.py"
    text = book.read_text(encoding="utf-8").replace(
        "\nCHAPTERS: tuple",
        f"\nfrom servelab.lessons.{NEW_PACKAGE}.chapter import CHAPTER as "
        "CHUNKED_AGAIN  # noqa: E402\n\nCHAPTERS: tuple",
        1,
    )
    listed = text.replace("    CAPACITY_PLAN,\n)", "    CAPACITY_PLAN,\n    CHUNKED_AGAIN,\n)")
    book.write_text(listed, encoding="utf-8")


def record(tree: Path) -> None:
    """What recording the new chapter writes: ``tests/snapshots/record.py``'s findings (chapter
    06's recordings stand in for a run) and the story the snapshot test renders from them."""
    (tree / "tests" / "snapshots" / NEW_ID).mkdir()
    for recording in (REPO_ROOT / "tests" / "snapshots" / MODEL_ID).glob("*.json"):
        shutil.copy2(recording, tree / "tests" / "snapshots" / NEW_ID / recording.name)
    rendered = _pytest(
        tree, "tests/unit/test_story_snapshots.py", "-k", NEW_ID, "--update-snapshots"
    )
    assert rendered.returncode == 0, rendered.stdout[-2000:]


def _pytest(tree: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    environment = os.environ | {"PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            "not engine and not tooling",
            *arguments,
        ],
        cwd=tree,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_new_chapter_in_four_places_passes_every_test_that_lists_the_chapters(
    tmp_path: Path,
) -> None:
    _copy(tmp_path)
    add_chapter(tmp_path)
    record(tmp_path)
    found = subprocess.run(
        [
            sys.executable,
            "-c",
            "import servelab.book as b, course.paths as p; "
            "print(b.__file__); print(p.CHAPTERS[-1])",
        ],
        cwd=tmp_path,
        env=os.environ | {"PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert found == [str(tmp_path / "servelab" / "book.py"), NEW_ID]
    result = _pytest(tmp_path, *CHAPTER_TESTS)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert NEW_ID in _pytest(tmp_path, "--collect-only", "tests/unit/test_notebook_style.py").stdout
    book = tmp_path / "servelab" / "book.py"  # and without its line in the book, a test fails
    book.write_text(
        book.read_text(encoding="utf-8").replace("    CHUNKED_AGAIN,\n", ""), encoding="utf-8"
    )
    assert _pytest(tmp_path, "tests/unit/servelab/test_book.py").returncode != 0
