"""nbgrader preprocessors of the autograder: the check cells run in the sandbox, and the feedback
shows the student's own result only.

`SandboxedExecute` takes the place of nbgrader's Execute in `nbgrader autograde`. After nbgrader
restored the locked cells and hidden tests from the gradebook, it sends only the answer cell's
literal (parsed again here) and the test cell to a fresh sandboxed kernel
(autograder/sandbox.py) and copies back what they printed. Nothing else in the notebook runs. A
timeout or a sandbox failure becomes an error output of the test cell (nbgrader scores it zero)
and `metadata.autograder` says which, for the grades.csv row. With `cache_dir` set, an outcome
already computed for exactly these sources and limits is taken from the result cache
(autograder/result_cache.py) instead of starting a kernel.

`FeedbackOnly` runs first in `nbgrader generate_feedback`: the page keeps the question, the
answer as graded and the test cell's result (for a wrong letter, the chosen option's explanation
only), with the hidden test's code replaced by one line and tracebacks cut to their message.
Every other cell, including the student's own markdown, is left out, and only text outputs
remain, which nbconvert escapes.
"""

from __future__ import annotations

from pathlib import Path

from nbconvert.exporters.exporter import ResourcesDict
from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, Integer, Unicode

from autograder import sandbox
from autograder.answer import parse_answer
from autograder.result_cache import ResultCache
from course.checks import role_of

HIDDEN_TEST_NOTE = "# The check's hidden test ran here; its result is below."


class SandboxedExecute(NbGraderPreprocessor):
    """Run the answer literal and the hidden test in a sandbox; copy their outputs back."""

    timeout = Integer(20, help="seconds a check cell may run").tag(config=True)
    sandboxed = Bool(True, help="run in bubblewrap (False only with --unsafe-no-sandbox)").tag(
        config=True
    )
    cache_dir = Unicode("", help="folder of the result cache; '' runs every notebook").tag(
        config=True
    )

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict):
        run = [c for c in nb.cells if c.cell_type == "code" and role_of(c) in ("answer", "test")]
        for cell in run:
            cell.outputs = []
            cell.execution_count = None
        sources = [
            parse_answer(c.source).source if role_of(c) == "answer" else c.source for c in run
        ]
        result, cached = self._outcome(sources)
        report = {"status": result.status, "detail": result.detail, "cached": cached}
        for cell, outputs in zip(run, result.outputs, strict=False):
            cell.outputs = outputs
        if result.status != "ok":
            tests = [c for c in run if role_of(c) == "test"]
            ename = "CellTimeoutError" if result.status == "timeout" else "SandboxError"
            for cell in tests[-1:]:
                cell.outputs.append(
                    NotebookNode(
                        output_type="error", ename=ename, evalue=result.detail, traceback=[]
                    )
                )
        nb.metadata["autograder"] = report
        return nb, resources

    def _outcome(self, sources: list[str]) -> tuple[sandbox.SandboxRun, bool]:
        """(result, whether it came from the cache) of running `sources` in a sandbox."""
        limits = sandbox.Limits()
        if not self.cache_dir:
            return sandbox.execute(
                sources, self.timeout, sandboxed=self.sandboxed, limits=limits
            ), False
        cache = ResultCache(Path(self.cache_dir))
        key = cache.key(sources, self.timeout, limits, self.sandboxed)
        found = cache.get(key, len(sources))
        if found is not None:
            return found, True
        result = sandbox.execute(sources, self.timeout, sandboxed=self.sandboxed, limits=limits)
        cache.put(key, sources, result)
        return result, False


def _feedback_output(output: NotebookNode) -> NotebookNode | None:
    if output.output_type == "stream":
        return output
    if output.output_type == "error":
        line = f"{output.ename}: {output.evalue}"
        return NotebookNode(
            output_type="error", ename=output.ename, evalue=output.evalue, traceback=[line]
        )
    return None


class FeedbackOnly(NbGraderPreprocessor):
    """Cut the autograded notebook down to what the student may read."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict):
        kept = []
        for cell in nb.cells:
            role = role_of(cell)
            if role is None:
                continue
            if role == "test":
                cell.source = HIDDEN_TEST_NOTE
            if cell.cell_type == "code":
                cell.outputs = [o for o in map(_feedback_output, cell.outputs) if o]
            cell.pop("attachments", None)
            kept.append(cell)
        nb.cells = kept
        return nb, resources
