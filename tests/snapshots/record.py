"""Record one chapter's findings from a real run, for its story snapshot.

Executes the chapter's instructor source at the cpu size (or ``--size``) in a fresh kernel,
then, in that kernel, saves its findings to ``tests/snapshots/<chapter>/<machine>.json``: those
its story was shown with (``servelab.lessons.story``). Run the snapshot test with
``--update-snapshots`` afterwards to write the story beside it, and review its diff. Engine
runs take the lock::

    flock /tmp/servelab-engine.lock .venv/bin/python tests/snapshots/record.py \\
        08-when-not-to avx512-bf16

``--without-bf16`` runs the chapter as on a processor without bf16 instructions: servelab reads
this machine's flags less ``hardware.BF16_CPU_FLAGS``, so the engine computes in float32 as it
does on an AVX2 machine. The numbers are this machine's in float32, not an AVX2 machine's; name
the class for what ran (``avx512-float32``).
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

from servelab.lessons.story import declared  # noqa: E402

# Runs first in the chapter's kernel: every reader of the processor's flags (the engine's default
# dtype among them) sees them without the bf16 ones.
WITHOUT_BF16 = """\
from servelab import hardware
_flags = hardware.cpu_flags
hardware.cpu_flags = lambda cpuinfo=None: _flags(cpuinfo) - hardware.BF16_CPU_FLAGS
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapter", choices=sorted(declared()))
    parser.add_argument("machine", help="the machine class, e.g. avx512-bf16 or avx2-float32")
    parser.add_argument("--size", default="cpu")
    parser.add_argument(
        "--without-bf16",
        action="store_true",
        help="compute in float32, as on a processor without bf16 instructions",
    )
    args = parser.parse_args()
    source = ROOT / "assignments" / "source" / args.chapter / f"{args.chapter}.ipynb"
    target = Path(__file__).parent / args.chapter / f"{args.machine}.json"
    notebook = nbformat.read(source, as_version=4)
    found = f"story.SHOWN[{args.chapter!r}].found"
    if args.without_bf16:
        notebook.cells.insert(0, nbformat.v4.new_code_cell(WITHOUT_BF16))
    notebook.cells.append(
        nbformat.v4.new_code_cell(
            f"from servelab.lessons import recorded, story\nrecorded.save({found}, {str(target)!r})"
        )
    )
    os.environ["SERVELAB_SIZE"] = args.size
    NotebookClient(
        notebook,
        timeout=900,
        kernel_name="python3",
        resources={"metadata": {"path": str(source.parent)}},
    ).execute()
    print(f"recorded {target}")


if __name__ == "__main__":
    main()
