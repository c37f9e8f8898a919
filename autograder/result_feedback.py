"""A student's own figures beside the class median for their device class, in their feedback.

The table is added to the feedback page nbgrader wrote (before ``</body>``), built only from the
class-results rows and escaped cell by cell: a device name or a reason from a record is text.
A notebook without a record gets no table; its grades.csv row and the page stay as they were.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from pathlib import Path

from autograder.class_results import Row, device_class, medians, number

HEADER = ("figure", "yours", "class median (same device and sizes)", "records", "flag")


def _cells(values: Iterable[str], tag: str = "td") -> str:
    return "".join(f"<{tag}>{html.escape(value)}</{tag}>" for value in values)


def results_table(
    own: list[Row], class_medians: dict[tuple[str, str, str, str], tuple[float, int]]
) -> str:
    """The section for one student's rows of one chapter; '' when they hold no record."""
    shown = [row for row in own if row["flag"] != "missing"]
    if not shown:
        return ""
    lines = [f"<tr>{_cells(HEADER, 'th')}</tr>"]
    for row in shown:
        key = (row["chapter"], row["figure"], device_class(row), row["size_profile"])
        median, count = class_medians.get(key, (None, 0))
        lines.append(
            "<tr>"
            + _cells(
                (
                    row["figure"] or "(no figure)",
                    row["value"],
                    "" if median is None else number(median),
                    str(count),
                    row["flag"],
                )
            )
            + "</tr>"
        )
    measured = next((row for row in shown if row["device_kind"]), None)
    device = html.escape(
        f"{device_class(measured)}, sizes {measured['size_profile']}"
        if measured
        else "no valid record"
    )
    return (
        '<section class="servelab-results"><h2>Your measurements beside the class</h2>'
        f"<p>Measured on: {device}. Your record does not change your grade.</p>"
        f"<table>{''.join(lines)}</table></section>"
    )


def add_results(feedback: Path, rows: list[Row]) -> None:
    """Add each student's table to their pages under ``feedback`` (<student>/<chapter>.html)."""
    class_medians = medians(rows)
    own: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        own.setdefault((row["student"], row["chapter"]), []).append(row)
    for (student, chapter), found in sorted(own.items()):
        page = feedback / student / f"{chapter}.html"
        table = results_table(found, class_medians)
        if not table or not page.is_file():
            continue
        text = page.read_text(encoding="utf-8")
        head, body_end, tail = text.rpartition("</body>")
        page.write_text(
            f"{head}{table}{body_end}{tail}" if body_end else text + table, encoding="utf-8"
        )
