"""servelab.results: the record a chapter writes, read back from a notebook as the grader will,
and the published page showing only its summary line."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import nbformat
import pytest
import yaml

from course.edition import build_book
from course.paths import REPO_ROOT
from servelab.env import Runtime
from servelab.hardware import Device
from servelab.results import (
    MIME_TYPE,
    expected_names,
    make_record,
)

CHAPTER = "02-continuous-batching"


def runtime(device_name: str = "Tesla T4", profile: str = "gpu") -> Runtime:
    device = Device(kind="cuda", name=device_name, count=2, memory_gib=15.0,
                    compute_capability=(7, 5))
    return Runtime(platform="Kaggle", device=device, engine="vLLM 0.11.2 (vllm)",
                   model="Qwen/Qwen3-0.6B", size_profile=profile)


def figures(chapter: str = CHAPTER, profile: str = "gpu") -> dict[str, float]:
    return {name: 1.5 + number for number, name in
            enumerate(sorted(expected_names(chapter, profile)))}


def notebook_with(*payloads: Any) -> nbformat.NotebookNode:
    """A notebook whose one code cell displayed each payload as a result output, written and
    read back through nbformat as a submission would be."""
    outputs = [nbformat.v4.new_output("display_data",
                                      data={MIME_TYPE: payload, "text/plain": "a record"})
               for payload in payloads]
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell("# A chapter"),
                      nbformat.v4.new_code_cell("record_results(...)", outputs=outputs)]
    return nbformat.reads(nbformat.writes(notebook), as_version=4)




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
    (repo / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n  - file: page\n",
                                   encoding="utf-8")
    record = make_record(runtime(device_name="Marker GPU 7"), CHAPTER, figures())
    notebook = notebook_with(record.model_dump(mode="json"))
    notebook.cells[1].outputs[0]["data"]["text/plain"] = record.summary()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    nbformat.write(notebook, repo / "page.ipynb")

    page = (build_book(repo) / "page.html").read_text(encoding="utf-8")
    assert record.summary() in page
    assert "schema_version" not in page and MIME_TYPE not in page
    assert "steady_tok_s_at_top" not in page
