"""servelab.lessons.findings_table: a section's figures as a Markdown table the page keeps
whole."""

from __future__ import annotations

import pytest

from servelab.lessons.findings_table import findings_table
from servelab.lessons.fold import folded_long


def test_a_table_has_its_header_an_alignment_row_and_one_row_an_item() -> None:
    table = findings_table(["Engine", "Speed (tok/s)"], [["a", "1 (1–2)"], ["b", "3"]])
    lines = table.split("\n")
    assert lines[0] == "| Engine | Speed (tok/s) |"
    assert lines[1] == "| :-- | --: |"  # names left, figures right
    assert lines[2:] == ["| a | 1 (1–2) |", "| b | 3 |"]


def test_a_row_short_of_a_cell_is_refused() -> None:
    with pytest.raises(ValueError, match="one cell per column"):
        findings_table(["Engine", "Speed (tok/s)"], [["a"]])


def test_the_page_never_folds_a_table_however_long() -> None:
    table = findings_table(
        ["Item", "Figure (ms)"], [[f"item {n}", f"{n}.0 ms (1–2)"] for n in range(60)]
    )
    page = f"The finding.\n\n{table}\n\nWhat follows."
    assert folded_long(page) == page
