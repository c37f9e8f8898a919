"""Where the course lives in the repository, and which chapters it has."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
COURSE_ROOT = REPO_ROOT / "assignments"
CHECKS_DIR = COURSE_ROOT / "checks"
SOURCE_DIR = COURSE_ROOT / "source"
BOOK_DIR = REPO_ROOT / "book"

# In reading order. Each id is the nbgrader assignment name and the notebook's file name.
CHAPTERS: tuple[str, ...] = (
    "00-serving-many-users",
    "01-serving-engine",
    "02-continuous-batching",
    "03-paged-attention",
    "04-prefix-caching",
    "05-the-dials",
    "06-chunked-prefill",
    "07-throughput-vs-latency",
    "08-when-not-to",
)


def source_notebook(chapter: str, source_dir: Path = SOURCE_DIR) -> Path:
    """The instructor source of a chapter: ``source/<id>/<id>.ipynb``."""
    return source_dir / chapter / f"{chapter}.ipynb"


def student_notebook(chapter: str, book_dir: Path = BOOK_DIR) -> Path:
    """The student edition of a chapter: ``book/<id>/<id>.ipynb``."""
    return book_dir / chapter / f"{chapter}.ipynb"
