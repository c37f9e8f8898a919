"""Record one chapter's findings from a real run, for its story snapshot.

Executes the chapter's instructor source at the cpu size (or ``--size``) in a fresh kernel,
then, in that kernel, saves the findings ``chapters.NAMES`` lists to
``tests/snapshots/<chapter>/<machine>.json``; run the snapshot test with ``--update-snapshots``
afterwards to write the story beside it, and review its diff. Engine runs take the lock::

    flock /tmp/servelab-engine.lock .venv/bin/python tests/snapshots/record.py \\
        08-when-not-to avx512-bf16
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.snapshots.chapters import NAMES  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapter", choices=sorted(NAMES))
    parser.add_argument("machine", help="the machine class, e.g. avx512-bf16 or avx2-float32")
    parser.add_argument("--size", default="cpu")
    args = parser.parse_args()
    source = ROOT / "assignments" / "source" / args.chapter / f"{args.chapter}.ipynb"
    target = Path(__file__).parent / args.chapter / f"{args.machine}.json"
    notebook = nbformat.read(source, as_version=4)
    names = ", ".join(f"{name!r}: {expression}"
                      for name, expression in NAMES[args.chapter].items())
    notebook.cells.append(nbformat.v4.new_code_cell(
        f"from servelab.lessons import recorded\nrecorded.save({{{names}}}, {str(target)!r})"))
    os.environ["SERVELAB_SIZE"] = args.size
    NotebookClient(notebook, timeout=900, kernel_name="python3",
                   resources={"metadata": {"path": str(source.parent)}}).execute()
    print(f"recorded {target}")


if __name__ == "__main__":
    main()
