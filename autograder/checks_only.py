"""nbgrader preprocessors that make autograding run only the check cells.

`ChecksOnly` runs right before nbgrader's Execute: it tags every code cell that is not a check cell
(an nbgrader grade or solution cell, after nbgrader restored those from the gradebook) with
SKIP_TAG, which Execute is configured to skip, so measurement cells never start a server. It also
appends a probe cell that reports what `answer` holds. `KeepProbe` runs right after Execute: it
moves the probe's report into the notebook metadata, removes the probe cell and the skip tags, and
drops stderr noise from test cells (the check-cell contract says test cells never write to stderr,
so stderr there can only come from student code, and nbgrader would score it as a failure).
"""

from __future__ import annotations

import json

from nbconvert.exporters.exporter import ResourcesDict
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell
from nbgrader import utils
from nbgrader.preprocessors import NbGraderPreprocessor

SKIP_TAG = "autograder-skip"
PROBE_TAG = "autograder-probe"
PROBE_PREFIX = "AUTOGRADER-PROBE "
PROBE_SOURCE = f'''\
def _autograder_probe():
    import builtins, json
    space = globals()
    if "answer" not in space:
        return {{"defined": False}}
    value = space["answer"]
    letter = str.upper(str.strip(value)) if isinstance(value, str) else None
    return {{"defined": True, "type": type(value).__name__, "letter": letter,
            "repr": builtins.repr(value)[:80]}}
print({PROBE_PREFIX!r} + __import__("json").dumps(_autograder_probe()))
'''


def is_check(cell: NotebookNode) -> bool:
    return utils.is_grade(cell) or utils.is_solution(cell)


def _tags(cell: NotebookNode) -> list[str]:
    return [t for t in cell.metadata.get("tags", []) if t not in (SKIP_TAG, PROBE_TAG)]


class ChecksOnly(NbGraderPreprocessor):
    """Skip every code cell but the checks, and add the answer probe at the end."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict):
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            tags = _tags(cell)
            if not is_check(cell):
                tags.append(SKIP_TAG)
            cell.metadata["tags"] = tags
        probe = new_code_cell(PROBE_SOURCE)
        probe.metadata["tags"] = [PROBE_TAG]
        nb.cells.append(probe)
        return nb, resources


def _probe_report(cell: NotebookNode) -> dict | None:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream" and output.get("name") == "stdout":
            for line in output.text.splitlines():
                if line.startswith(PROBE_PREFIX):
                    return json.loads(line[len(PROBE_PREFIX):])
    return None


class KeepProbe(NbGraderPreprocessor):
    """Store the probe's report in nb.metadata["autograder"], then restore the notebook's cells."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict):
        report: dict = {"probe": None, "stderr_dropped": False}
        cells = []
        for cell in nb.cells:
            if PROBE_TAG in cell.metadata.get("tags", []):
                report["probe"] = _probe_report(cell)
                continue
            if cell.cell_type == "code":
                cell.metadata["tags"] = _tags(cell)
                if not cell.metadata["tags"]:
                    del cell.metadata["tags"]
                if utils.is_grade(cell):
                    kept = [o for o in cell.outputs
                            if not (o.output_type == "stream" and o.get("name") == "stderr")]
                    report["stderr_dropped"] |= len(kept) != len(cell.outputs)
                    cell.outputs = kept
            cells.append(cell)
        nb.cells = cells
        nb.metadata["autograder"] = report
        return nb, resources
