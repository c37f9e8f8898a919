"""The instructor sources as nbval ran them, kept with their outputs (issue #66 item 6).

The test job runs every chapter once, under nbval at the smoke size. Where
``SERVELAB_EXECUTED_DIR`` names a folder, the root ``conftest.py`` hands each cell nbval ran to
:meth:`Kept.cell_ran` and calls :meth:`Kept.write` at the end of the session: each notebook is
written there, named for its chapter, every code cell holding the outputs nbval saw. The site is
then built from them (:mod:`course.executed_site`) instead of running each chapter again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
from nbformat import NotebookNode


class Kept:
    """The notebooks whose cells nbval ran, by path, each cell with what it printed."""

    def __init__(self) -> None:
        self.notebooks: dict[Path, NotebookNode] = {}

    def cell_ran(self, item: Any) -> None:
        """Keep what an nbval cell item printed (``test_outputs``) in its own notebook (the
        ``nb`` its file read); any other test item is not a notebook's cell and is let be."""
        outputs = getattr(item, "test_outputs", None)
        cell = getattr(item, "cell", None)
        notebook = getattr(item.parent, "nb", None)
        if outputs is None or cell is None or notebook is None:
            return
        cell.outputs = [nbformat.from_dict(dict(output)) for output in outputs]
        cell.execution_count = item.cell_num + 1
        for output in cell.outputs:
            if output.output_type == "execute_result":
                output.execution_count = cell.execution_count
        self.notebooks[Path(item.path)] = notebook

    def write(self, folder: Path) -> list[Path]:
        """Each kept notebook as ``folder/<its file's name>``; the paths written."""
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for path, notebook in sorted(self.notebooks.items()):
            target = folder / path.name
            nbformat.write(notebook, target)
            written.append(target)
        return written
