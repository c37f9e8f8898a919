"""autograder.class_report: the class report tables the predictions by device and escapes the
students' words (drawn from a graded class: tests/tooling/autograder/test_class_results.py)."""

from __future__ import annotations

import html
import re

from autograder.class_report import render_report
from autograder.class_results import class_rows
from tests.support import honest_payload, on_t4
from tests.unit.autograder.test_class_results import CHAPTER, _notebook, _predicting


def test_the_report_tables_the_predictions_by_device_and_escapes_their_words():
    what = "<img src=x onerror=alert(1)>"
    notebooks = [
        ("a", CHAPTER, _notebook(_predicting(honest_payload(), 42.0, what))),
        ("b", CHAPTER, _notebook(_predicting(honest_payload(), 80.0, what))),
        ("c", CHAPTER, _notebook(_predicting(on_t4(honest_payload(), 10.0), 46.0))),
    ]
    report = render_report(class_rows(notebooks))
    assert "<img src=x" not in report and html.escape(what) in report
    cells = re.findall(
        r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>(\d+)</td>"
        r"<td>([^<]*)</td><td>([^<]*)</td><td>(\d+)</td><td>(\d+)</td>"
        r"<td>(\d+)</td><td>(\d+)</td></tr>",
        report,
    )
    assert [cell[2:] for cell in cells] == [
        ("2", "61", "44", "1", "0", "1", "0"),  # the CPU's two: one inside, one off
        ("1", "46", "44", "1", "0", "0", "0"),
    ]  # the T4's one
