"""A section's figures as a small Markdown table (issue #65): where a section has several
numbers of one kind, its words state the finding in a sentence and set the figures out here,
one row per item, instead of a sentence that lists them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def findings_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table, a paragraph of its own: ``header`` names each column with its unit,
    each row is one item, its name first and its figures (already formatted, ranges included)
    after it, right-aligned. The page folds no table (``fold.folded_long`` skips it)."""
    lines = [list(header), [":--", *("--:" for _ in header[1:])], *(list(row) for row in rows)]
    if any(len(line) != len(header) for line in lines):
        raise ValueError("every row needs one cell per column")
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)
