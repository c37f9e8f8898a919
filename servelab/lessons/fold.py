"""A passage's finding first, what backs it folded: the one way a page folds its caveats."""

from __future__ import annotations

#: What a folded block's one line says, where a words function names nothing more telling.
FOLD_SUMMARY = "The ranges, the caveats and the arithmetic"


def fold(details: str, summary: str = FOLD_SUMMARY) -> str:
    """``details`` folded under a one-line ``summary`` the reader opens: a passage states its
    finding first, and what backs it (the ranges, the overlap test, the caveats, the arithmetic)
    follows folded, so nothing honest is dropped. Raw HTML, which Jupyter, Colab and the built
    book all render, with Markdown inside."""
    return f"\n\n<details><summary>{summary}</summary>\n\n{details.strip()}\n\n</details>"
