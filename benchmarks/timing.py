"""Where a chapter's wall time goes: server starts, measurement runs, and everything else.

Executes one chapter's student edition in a fresh kernel (at ``--size``, the cpu size unless
told) with a first cell of its own that times every server start (``ServerProcess.start``: vLLM,
its router, llama.cpp) and every measurement run (``servelab.bench.run``) inside the kernel, then
prints one line per code cell and a split of the whole::

    flock /tmp/servelab-engine.lock python benchmarks/timing.py 09-past-one-machine

Last line:  timing: <chapter> total=<s> starts=<s> (<n>) runs=<s> (<n>) other=<s>
"other" is the rest: the install cell, prompts made before a run, plots, prose, records.

``--against REF`` first runs the chapter as it was at git revision ``REF`` (its own servelab and
edition, from a temporary worktree), then as it is, and prints both split lines, before then
after, so a change's effect on starts and total is seen side by side in one run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from course.paths import CHAPTERS  # noqa: E402

# Runs first in the kernel: wraps the two entry points and appends (kind, label, seconds) to the
# file named by SERVELAB_TIMING.
PROBE = """
import json as _json, os as _os, time as _time
import servelab.bench as _bench, servelab.bench.prefill as _prefill
import servelab.bench.runner as _runner, servelab.engines.process as _process

def _timed(kind, function, label):
    def wrapper(*args, **kwargs):
        began = _time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            with open(_os.environ["SERVELAB_TIMING"], "a") as _out:
                _out.write(_json.dumps([kind, label(*args), _time.perf_counter() - began]) + "\\n")
    return wrapper

_process.ServerProcess.start = _timed("start", _process.ServerProcess.start,
                                      lambda server: type(server).__name__)
_bench.run = _runner.run = _prefill.run = _timed("run", _runner.run,
                                                 lambda server, workload, *rest: workload.name)
"""


def run_chapter(
    chapter: str,
    size: str,
    save: Path | None = None,
    tree: Path = ROOT,
) -> tuple[list[tuple[int, str, float]], list[list]]:
    """Execute ``chapter``'s student edition from ``tree`` with that tree's servelab (written to
    ``save`` when given, outputs and all); (cell index, first line, seconds) per code cell, and
    the probe's records."""
    notebook = nbformat.read(tree / "book" / chapter / f"{chapter}.ipynb", as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(PROBE))
    with tempfile.TemporaryDirectory() as folder:
        records = Path(folder) / "timing.jsonl"
        # PYTHONPATH comes before the venv's editable install of this tree's servelab.
        os.environ.update(
            SERVELAB_SIZE=size, SERVELAB_TIMING=str(records), TQDM_DISABLE="1", PYTHONPATH=str(tree)
        )
        NotebookClient(
            notebook,
            timeout=1200,
            kernel_name="python3",
            resources={"metadata": {"path": str(tree)}},
        ).execute()
        probe = [json.loads(line) for line in records.read_text().splitlines()]
    if save is not None:
        nbformat.write(notebook, save)
    cells = []
    for index, cell in enumerate(notebook.cells[1:], start=1):
        if cell.cell_type != "code":
            continue
        timing = cell.metadata.get("execution", {})
        began, ended = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
        seconds = (_stamp(ended) - _stamp(began)) if began and ended else float("nan")
        first = next((line for line in cell.source.splitlines() if line.strip()), "")
        cells.append((index, first[:70], seconds))
    return cells, probe


def _stamp(text: str) -> float:
    """An nbclient timestamp (ISO 8601, UTC) in seconds."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


@contextlib.contextmanager
def worktree(revision: str) -> Iterator[Path]:
    """This repository at ``revision``, checked out in a temporary worktree."""
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "tree"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), revision],
            check=True,
        )
        try:
            yield tree
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False
            )


def timed(chapter: str, size: str, save: Path | None, tree: Path) -> str:
    """Run the chapter from ``tree``, print its cells and probe records, return its split."""
    began = time.perf_counter()
    cells, probe = run_chapter(chapter, size, save, tree)
    total = time.perf_counter() - began
    for index, first, seconds in cells:
        print(f"cell {index:>2}  {seconds:7.1f} s  {first}")
    starts = [seconds for kind, _, seconds in probe if kind == "start"]
    runs = [seconds for kind, _, seconds in probe if kind == "run"]
    for kind, label, seconds in probe:
        print(f"  {kind:<5} {seconds:7.1f} s  {label}")
    other = total - sum(starts) - sum(runs)
    return (
        f"total={total:.0f} starts={sum(starts):.0f} ({len(starts)}) "
        f"runs={sum(runs):.0f} ({len(runs)}) other={other:.0f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapter", choices=CHAPTERS)
    parser.add_argument("--size", default="cpu", choices=("smoke", "cpu", "gpu"))
    parser.add_argument("--save", type=Path, help="write the executed notebook here")
    parser.add_argument(
        "--against", metavar="REF", help="first run the chapter as it was at this git revision"
    )
    args = parser.parse_args()
    before = None
    if args.against:
        with worktree(args.against) as tree:
            before = timed(args.chapter, args.size, None, tree)
    after = timed(args.chapter, args.size, args.save, ROOT)
    if before is not None:
        print(f"timing: {args.chapter} before ({args.against}) {before}")
    print(f"timing: {args.chapter} {'after ' if before else ''}{after}")


if __name__ == "__main__":
    main()
