"""How much each chapter's generated prose asks of its reader, against the book's aims
(issue #65): per page, the words in view (folds, tables, headings and plot titles left out), the
paragraphs, the mean and the longest sentence, and the longest paragraph (``course.prose``)::

    .venv/bin/python benchmarks/prose.py                      # the story snapshots
    .venv/bin/python benchmarks/prose.py _build/executed      # executed chapters (make test)

With no folder it reads the story snapshots (``tests/snapshots/<chapter>/<machine>.md``: each
chapter's words as a recorded run showed them); with a folder, the Markdown each executed
notebook under it displayed. Last line: ``prose: <n> of <m> pages meet the aims``; the exit
status is 1 if any misses.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from course.prose import MEAN_SENTENCE_WORDS, PARAGRAPH_WORDS, Prose  # noqa: E402

SNAPSHOTS = ROOT / "tests" / "snapshots"


def snapshot_pages() -> dict[str, str]:
    """Each story snapshot's Markdown, named ``<chapter> <machine>``."""
    return {
        f"{path.parent.name} {path.stem}": path.read_text(encoding="utf-8")
        for path in sorted(SNAPSHOTS.glob("*/*.md"))
    }


def executed_pages(folder: Path) -> dict[str, str]:
    """The Markdown each executed notebook under ``folder`` displayed, named by its chapter."""
    pages = {}
    for path in sorted(folder.rglob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        shown = [
            output["data"]["text/markdown"]
            for cell in notebook.cells
            if cell.cell_type == "code"
            for output in cell.get("outputs", [])
            if "text/markdown" in output.get("data", {})
        ]
        pages[path.stem] = "\n\n".join(shown)
    return pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "folder",
        nargs="?",
        type=Path,
        help="executed notebooks to read (default: the story snapshots)",
    )
    folder = parser.parse_args().folder
    pages = executed_pages(folder) if folder else snapshot_pages()
    if not pages:
        sys.exit(f"prose: no pages found in {folder or SNAPSHOTS}")
    print(
        f"aims: mean sentence <= {MEAN_SENTENCE_WORDS} words, no paragraph over {PARAGRAPH_WORDS}"
    )
    print(f"{'page':40} {'words':>6} {'paras':>6} {'mean':>5} {'longest':>8} {'para':>5}  misses")
    met = 0
    for name, markdown in pages.items():
        prose = Prose.of(markdown)
        met += not prose.misses()
        print(
            f"{name:40} {prose.words:6d} {prose.paragraphs:6d} {prose.mean_sentence:5.1f} "
            f"{prose.longest_sentence:8d} {prose.longest_paragraph:5d}  "
            f"{'; '.join(prose.misses()) or '-'}"
        )
    print(f"prose: {met} of {len(pages)} pages meet the aims")
    sys.exit(0 if met == len(pages) else 1)


if __name__ == "__main__":
    main()
