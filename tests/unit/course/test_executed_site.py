"""course.executed_site gives each student edition its run's outputs, and nothing else of it."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import yaml
from nbformat import NotebookNode

from course.checks import role_of
from course.executed_site import executed_config, with_outputs, write_tree
from course.paths import BOOK_DIR, CHAPTERS, student_notebook

CHECK_TEST = {"tags": ["check"], "nbgrader": {"grade_id": "01-serving-engine-check-test"}}


def _pair() -> tuple[NotebookNode, NotebookNode]:
    """A student edition and its source as run: same cell ids, the answer differs."""
    edition = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("plot()", id="plot"),
            nbformat.v4.new_code_cell("answer = None", id="answer"),
            nbformat.v4.new_code_cell("print('new')", id="only-here"),
        ]
    )
    executed = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "plot()",
                id="plot",
                execution_count=1,
                outputs=[nbformat.v4.new_output("display_data", data={"image/png": "iVBOR"})],
            ),
            nbformat.v4.new_code_cell('answer = "C"', id="answer", execution_count=2),
        ]
    )
    return edition, executed


def test_outputs_cross_over_by_cell_id_and_sources_stay_the_editions() -> None:
    edition, executed = _pair()
    filled = with_outputs(edition, executed)
    assert [cell.source for cell in filled.cells] == ["plot()", "answer = None", "print('new')"]
    assert filled.cells[0].outputs[0].data == {"image/png": "iVBOR"}
    assert [cell.execution_count for cell in filled.cells] == [1, 2, None]
    assert filled.cells[2].outputs == [] and edition.cells[0].outputs == []


def test_a_check_cell_shows_nothing_of_the_key() -> None:
    edition = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("print(_choice)", id="c-test", metadata=CHECK_TEST)]
    )
    executed = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "print(_choice)",
                id="c-test",
                metadata=CHECK_TEST,
                outputs=[
                    nbformat.v4.new_output(
                        "stream", name="stdout", text="answer C: the form is right"
                    )
                ],
            )
        ]
    )
    assert with_outputs(edition, executed).cells[0].outputs == []


def test_the_copy_runs_nothing() -> None:
    config = executed_config("title: servelab\nexecute:\n  execute_notebooks: cache\n")
    assert config["execute"]["execute_notebooks"] == "off" and config["title"] == "servelab"


def test_the_tree_holds_every_edition_and_a_chapter_not_run_has_no_outputs(tmp_path: Path) -> None:
    chapter = CHAPTERS[1]
    source = student_notebook(chapter, BOOK_DIR)
    executed = tmp_path / "executed"
    executed.mkdir()
    ran = nbformat.read(source, as_version=4)
    for cell in ran.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="ran\n")]
    nbformat.write(ran, executed / source.name)
    out = tmp_path / "site"
    written = write_tree(executed, out)
    assert [path.parent.name for path in written] == [
        name for name in CHAPTERS if student_notebook(name, BOOK_DIR).exists()
    ]
    by_chapter = {path.parent.name: nbformat.read(path, as_version=4) for path in written}
    outputs = {
        name: [
            (bool(role_of(cell)), cell.outputs)
            for cell in notebook.cells
            if cell.cell_type == "code"
        ]
        for name, notebook in by_chapter.items()
    }
    ran_line = [{"output_type": "stream", "name": "stdout", "text": "ran\n"}]
    assert all(shown == ([] if check else ran_line) for check, shown in outputs[chapter])
    assert any(check for check, _ in outputs[chapter])
    assert all(shown == [] for _, shown in outputs[CHAPTERS[0]])
    config = yaml.safe_load((out / "_config.yml").read_text(encoding="utf-8"))
    assert config["execute"]["execute_notebooks"] == "off"
    assert (out / "_toc.yml").exists() and (out / "intro.md").exists()
    shutil.rmtree(out)
