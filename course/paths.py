"""Where the course lives in the repository, and which chapters it has.

The repository root is the nearest folder, from this module's file upwards and then from the
working directory upwards, that holds both ``_config.yml`` and ``assignments/``.
"""

from __future__ import annotations

from pathlib import Path

from servelab.book import CHAPTERS as BOOK

ROOT_MARKERS = ("_config.yml", "assignments")


class RepositoryNotFound(RuntimeError):
    """Neither this module nor the working directory is inside the book's repository."""


def find_repo_root(*starts: Path) -> Path:
    """The first folder, walking up from each of ``starts`` in turn, holding ``ROOT_MARKERS``.

    Defaults to this module's folder, then the working directory.
    """
    starts = starts or (Path(__file__).resolve().parent, Path.cwd().resolve())
    for start in starts:
        for folder in (start, *start.parents):
            if all((folder / marker).exists() for marker in ROOT_MARKERS):
                return folder
    raise RepositoryNotFound(
        f"no folder holding {' and '.join(ROOT_MARKERS)} above {', '.join(map(str, starts))}: "
        "run the course tools from a checkout of the book's repository"
    )


REPO_ROOT = find_repo_root()
COURSE_ROOT = REPO_ROOT / "assignments"
CHECKS_DIR = COURSE_ROOT / "checks"
SOURCE_DIR = COURSE_ROOT / "source"
BOOK_DIR = REPO_ROOT / "book"

# In reading order (servelab.book). Each id is the nbgrader assignment name and the notebook's
# file name.
CHAPTERS: tuple[str, ...] = tuple(chapter.id for chapter in BOOK)


def source_notebook(chapter: str, source_dir: Path = SOURCE_DIR) -> Path:
    """The instructor source of a chapter: ``source/<id>/<id>.ipynb``."""
    return source_dir / chapter / f"{chapter}.ipynb"


def student_notebook(chapter: str, book_dir: Path = BOOK_DIR) -> Path:
    """The student edition of a chapter: ``book/<id>/<id>.ipynb``."""
    return book_dir / chapter / f"{chapter}.ipynb"
