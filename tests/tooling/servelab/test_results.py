"""servelab.results: the record a chapter writes, read back from a notebook as the grader will,
and the published page showing only its summary line."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
import yaml

from course.edition import build_book
from course.paths import REPO_ROOT
from servelab.results import (
    MIME_TYPE,
    make_record,
)
from tests.support import declared_figures, kaggle_runtime, notebook_with

CHAPTER = "02-continuous-batching"


# -- the published page ------------------------------------------------------------------------
@pytest.mark.tooling  # a jupyter-book build
def test_the_book_shows_the_summary_line_and_not_the_json(tmp_path: Path) -> None:
    """A -W build with the repository's _config.yml (execution off) of one page holding a
    stored record output."""
    repo = tmp_path / "book"
    repo.mkdir()
    config = yaml.safe_load((REPO_ROOT / "_config.yml").read_text(encoding="utf-8"))
    config["execute"]["execute_notebooks"] = "off"
    (repo / "_config.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    shutil.copy2(REPO_ROOT / "intro.md", repo / "intro.md")
    (repo / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nchapters:\n  - file: page\n", encoding="utf-8"
    )
    record = make_record(kaggle_runtime(device_name="Marker GPU 7"), CHAPTER, declared_figures())
    notebook = notebook_with(record.model_dump(mode="json"))
    notebook.cells[1].outputs[0]["data"]["text/plain"] = record.summary()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(notebook, repo / "page.ipynb")

    page = (build_book(repo) / "page.html").read_text(encoding="utf-8")
    assert record.summary() in page
    assert "schema_version" not in page and MIME_TYPE not in page
    assert "steady_tok_s_at_top" not in page
