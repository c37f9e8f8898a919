"""Putting each chapter's check at the end of its source notebook, replacing any older one."""

from __future__ import annotations

from pathlib import Path

import nbformat

from course.checks.cells import check_cells, is_check_cell
from course.checks.load import find_check_file, load_check
from course.checks.model import Check, CheckError
from course.paths import CHAPTERS, CHECKS_DIR, SOURCE_DIR, source_notebook

NB_VERSION = 4


def write_check(notebook_path: Path, check: Check) -> bool:
    """Replace the cells tagged "check" in ``notebook_path`` by ``check``'s three cells.

    The new cells go last, whatever position the old ones had. The notebook metadata gets
    ``servelab.chapter``. Returns whether the file changed; an unchanged file is not rewritten.
    """
    notebook_path = Path(notebook_path)
    if not notebook_path.exists():
        raise CheckError(f"no source notebook for {check.chapter}: {notebook_path} does not exist")
    original = notebook_path.read_text(encoding="utf-8")
    notebook = nbformat.reads(original, as_version=NB_VERSION)
    chapter = notebook.metadata.get("servelab", {}).get("chapter")
    if chapter not in (None, check.chapter):
        raise CheckError(
            f"{notebook_path}: metadata says chapter {chapter!r}, "
            f"but the check is for {check.chapter!r}"
        )
    notebook.metadata.setdefault("servelab", {})["chapter"] = check.chapter
    notebook.cells = [cell for cell in notebook.cells if not is_check_cell(cell)]
    notebook.cells.extend(check_cells(check))
    _ensure_cell_ids(notebook)
    updated = nbformat.writes(notebook) + "\n"
    if updated == original:
        return False
    notebook_path.write_text(updated, encoding="utf-8")
    return True


def write_checks(
    chapters: list[str], checks_dir: Path = CHECKS_DIR, source_dir: Path = SOURCE_DIR
) -> list[str]:
    """Write the checks of ``chapters`` (all chapters with a source notebook when empty).

    Returns one status line per chapter. Asking for a chapter by id whose notebook is missing
    is an error; with no ids, chapters without a notebook yet are reported and skipped.
    """
    explicit = bool(chapters)
    report = []
    for chapter in chapters or list(CHAPTERS):
        if chapter not in CHAPTERS:
            raise CheckError(f"unknown chapter {chapter!r}; chapters are {', '.join(CHAPTERS)}")
        notebook = source_notebook(chapter, source_dir)
        if not notebook.exists() and not explicit:
            report.append(f"{chapter}: skipped, no source notebook yet")
            continue
        check = load_check(find_check_file(chapter, checks_dir), chapter)
        changed = write_check(notebook, check)
        report.append(f"{chapter}: {'written' if changed else 'unchanged'}")
    return report


def _ensure_cell_ids(notebook: nbformat.NotebookNode) -> None:
    """The check cells carry ids, which need nbformat 4.5; older notebooks are upgraded."""
    if notebook.nbformat_minor < 5:
        notebook.nbformat_minor = 5
        for index, cell in enumerate(notebook.cells):
            cell.setdefault("id", f"cell-{index}")
