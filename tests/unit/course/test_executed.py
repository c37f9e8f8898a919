"""course.executed keeps each cell's outputs as nbval saw them and writes the notebooks."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import nbformat
from nbformat import NotebookNode

from course.executed import Kept


def _notebook() -> NotebookNode:
    return nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# A chapter"),
            nbformat.v4.new_code_cell("print('Measured on: a CPU')"),
            nbformat.v4.new_code_cell("1 + 1"),
        ]
    )


def _cell_item(notebook: NotebookNode, number: int, outputs: list[dict], path: Path):
    """What course.executed reads of an nbval cell item: its outputs, cell, number and file."""
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    parent = SimpleNamespace(nb=notebook)
    return SimpleNamespace(
        test_outputs=[NotebookNode(o) for o in outputs],
        cell=code[number],
        cell_num=number,
        parent=parent,
        path=path,
    )


def test_each_cell_keeps_what_it_printed_and_the_notebook_is_written(tmp_path: Path) -> None:
    notebook, source = _notebook(), tmp_path / "source" / "01-x.ipynb"
    kept = Kept()
    kept.cell_ran(
        _cell_item(
            notebook,
            0,
            [{"output_type": "stream", "name": "stdout", "text": "Measured on: a CPU\n"}],
            source,
        )
    )
    kept.cell_ran(
        _cell_item(
            notebook,
            1,
            [
                {
                    "output_type": "execute_result",
                    "data": {"text/plain": "2"},
                    "metadata": {},
                    "execution_count": 7,
                }
            ],
            source,
        )
    )
    written = kept.write(tmp_path / "executed")
    assert written == [tmp_path / "executed" / "01-x.ipynb"]
    again = nbformat.read(written[0], as_version=4)
    nbformat.validate(again)
    code = [cell for cell in again.cells if cell.cell_type == "code"]
    assert code[0].outputs[0].text == "Measured on: a CPU\n"
    assert (code[1].execution_count, code[1].outputs[0].execution_count) == (2, 2)


def test_an_item_that_is_not_a_notebook_cell_is_let_be(tmp_path: Path) -> None:
    kept = Kept()
    kept.cell_ran(SimpleNamespace(parent=SimpleNamespace(), path=tmp_path / "test_x.py"))
    assert kept.notebooks == {} and kept.write(tmp_path / "executed") == []
