"""The site built from the chapters nbval ran, without running them again (issue #66 item 6).

``python -m course.executed_site EXECUTED_DIR`` copies the book (intro, config, contents, CSS)
into ``_build/executed-site/``, gives each student edition the outputs its instructor source
printed under nbval (:mod:`course.executed`, cell by cell, matched by cell id), and builds it
with jupyter-book, execution off and warnings as errors. The site and leak tests then read
``_build/executed-site/_build/html`` (``SERVELAB_SITE_DIR``), as they read ``make book``'s.

Only outputs cross over, and never a check cell's: every cell's source stays the student
edition's, and the check's cells show nothing (the source's test cell printed the key's letter),
so the copy holds no key the graded site would not. A chapter nbval did not run keeps no
outputs, and its page fails the site tests (``SERVELAB_REQUIRE_SITE=1``) rather than passing
unseen.
"""

from __future__ import annotations

import argparse
import copy
import shutil
from pathlib import Path

import nbformat
import yaml
from nbformat import NotebookNode

from course.checks import role_of
from course.edition import GUIDE, toc_text
from course.paths import BOOK_DIR, CHAPTERS, REPO_ROOT, student_notebook
from course.self_study import build_site

OUT_DIR = REPO_ROOT / "_build" / "executed-site"


def with_outputs(edition: NotebookNode, executed: NotebookNode) -> NotebookNode:
    """A copy of ``edition`` whose code cells hold the outputs and counts of ``executed``'s
    cells of the same id (a cell the run lacks, and a check's cell, keep none)."""
    ran = {cell.get("id"): cell for cell in executed.cells if cell.cell_type == "code"}
    result = copy.deepcopy(edition)
    for cell in result.cells:
        if cell.cell_type != "code":
            continue
        source = None if role_of(cell) else ran.get(cell.get("id"))
        cell.outputs = copy.deepcopy(source.outputs) if source is not None else []
        cell.execution_count = source.execution_count if source is not None else None
    return result


def executed_config(config_text: str) -> dict:
    """The book's ``_config.yml`` with execution off: the outputs are already in the cells."""
    config = yaml.safe_load(config_text) or {}
    config.setdefault("execute", {})["execute_notebooks"] = "off"
    return config


def write_tree(
    executed_dir: Path,
    out_dir: Path = OUT_DIR,
    book_dir: Path = BOOK_DIR,
    repo_root: Path = REPO_ROOT,
) -> list[Path]:
    """Write the book into ``out_dir`` with each chapter's outputs from ``executed_dir``; the
    chapters' notebooks written. ``out_dir/book`` is replaced, its ``_build`` left alone."""
    out_dir = Path(out_dir).resolve()
    shutil.rmtree(out_dir / "book", ignore_errors=True)
    written = []
    for chapter in CHAPTERS:
        source = student_notebook(chapter, book_dir)
        if not source.exists():
            continue
        shutil.copytree(
            source.parent,
            out_dir / "book" / chapter,
            ignore=shutil.ignore_patterns(".ipynb_checkpoints"),
        )
        ran = Path(executed_dir) / source.name
        edition = nbformat.read(source, as_version=4)
        executed = nbformat.read(ran, as_version=4) if ran.exists() else nbformat.v4.new_notebook()
        target = student_notebook(chapter, out_dir / "book")
        nbformat.write(with_outputs(edition, executed), target)
        written.append(target)
    shutil.copyfile(repo_root / "intro.md", out_dir / "intro.md")
    guide = repo_root / f"{GUIDE}.md"  # the guide for instructors: a page of the site too
    if guide.is_file():
        shutil.copyfile(guide, out_dir / guide.name)
    shutil.rmtree(out_dir / "_static", ignore_errors=True)
    if (repo_root / "_static").is_dir():
        shutil.copytree(repo_root / "_static", out_dir / "_static")
    config = executed_config((repo_root / "_config.yml").read_text(encoding="utf-8"))
    (out_dir / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    (out_dir / "_toc.yml").write_text(toc_text(out_dir / "book", out_dir), encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("executed", type=Path, help="the folder nbval's notebooks were kept in")
    parser.add_argument(
        "--out", type=Path, default=OUT_DIR, help="where the book goes (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    write_tree(args.executed, args.out)
    print(build_site(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
