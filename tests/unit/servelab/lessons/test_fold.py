"""servelab.lessons.fold: a folded block keeps its details behind one line, as Markdown."""

from __future__ import annotations

from servelab.lessons.fold import FOLD_SUMMARY, fold


def test_a_fold_keeps_its_details_behind_one_line_and_leaves_them_markdown():
    folded = fold("  The ranges *overlap*.  ")
    assert folded.startswith("\n\n<details>") and folded.endswith("</details>")
    head, details, tail = folded.split("\n\n")[1:]
    assert head == f"<details><summary>{FOLD_SUMMARY}</summary>"
    assert (details, tail) == ("The ranges *overlap*.", "</details>")  # blank lines: Markdown
    assert "<summary>Why</summary>" in fold("x", summary="Why")
