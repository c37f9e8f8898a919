"""A record's wall-time split as class-results rows and as the report's table beside the
contract's estimate (autograder/wall_time.py, autograder/class_report.py)."""

from __future__ import annotations

import copy
import html

import pytest

from autograder.class_report import render_report
from autograder.class_results import class_rows
from autograder.wall_time import WALL, figure_name, read_estimate, span
from servelab.results import MIME_TYPE
from tests.support import honest_payload, on_t4

pytestmark = pytest.mark.filterwarnings("ignore::nbformat.warnings.MissingIDFieldWarning")

CHAPTER = "00-serving-many-users"
MARKUP = "<script>alert(1)</script>"


def _notebook(*payloads: object) -> dict:
    return {"cells": [{"outputs": [{"data": {MIME_TYPE: p}} for p in payloads]}]}


def _split_rows(payload: dict, student: str = "s") -> dict[str, dict[str, str]]:
    rows = class_rows([(student, CHAPTER, _notebook(payload))])
    return {row["figure"]: row for row in rows if row["figure"].startswith(WALL)}


def test_an_honest_split_is_rows_that_add_up() -> None:
    found = _split_rows(on_t4(honest_payload(), 18.0))
    values = {name: float(row["value"]) for name, row in found.items()}
    assert values[figure_name("install", "s")] == 30.0
    assert values[figure_name("server starts", "count")] == 2.0
    assert values[figure_name("starts", "s")] == 18.0
    assert values[figure_name("engine init", "s")] == pytest.approx(2.08)
    assert values[figure_name("measurement", "s")] == pytest.approx(200.0, abs=5.0)
    assert figure_name("compile", "s") not in found  # eager: nothing compiled
    assert {row["flag"] for row in found.values()} == {"none"}


@pytest.mark.parametrize(
    ("part", "value", "why"), [("install_s", -5.0, "negative"), ("measure_s", 1e300, "day")]
)
def test_a_hostile_part_is_flagged_in_its_own_row(part: str, value: float, why: str) -> None:
    payload = on_t4(honest_payload(), 18.0)
    payload["wall_time"][part] = value
    found = _split_rows(payload)
    name = figure_name("install" if part == "install_s" else "measurement", "s")
    assert found[name]["flag"].startswith("implausible") and why in found[name]["flag"]
    assert found[figure_name("starts", "s")]["flag"] == "none"
    rows = class_rows([("s", CHAPTER, _notebook(payload))])
    assert {row["flag"] for row in rows if row["figure"] == "batching_gain"} == {"none"}


def test_huge_starts_sum_to_a_flag_and_not_a_crash() -> None:
    payload = on_t4(honest_payload(), 18.0)
    payload["wall_time"]["starts"] = [
        {"wall_s": 1.7e308, "engine_s": None, "compile_s": None, "graphs_s": None}
    ] * 2
    found = _split_rows(payload)
    assert found[figure_name("starts", "s")]["flag"].startswith("implausible")
    assert "<h3>Where" in render_report(
        class_rows(
            [
                ("s", CHAPTER, _notebook(payload)),
                ("t", CHAPTER, _notebook(on_t4(honest_payload(), 18.0))),
            ]
        )
    )


@pytest.mark.parametrize(
    "broken",
    [
        {"install_s": "30"},
        {"install_s": float("nan")},
        {"platform": 7},
        {"starts": [{"wall_s": True, "engine_s": None, "compile_s": None, "graphs_s": None}]},
    ],
)
def test_a_split_of_the_wrong_type_makes_the_record_malformed(broken: dict) -> None:
    payload = honest_payload()
    payload["wall_time"] |= broken
    rows = class_rows([("s", CHAPTER, _notebook(payload))])
    assert [row["flag"].split(":")[0] for row in rows] == ["malformed"]


def test_an_older_record_without_a_split_gets_one_flagged_row() -> None:
    payload = {k: v for k, v in honest_payload().items() if k != "wall_time"}
    found = _split_rows(payload | {"schema_version": 2})
    assert list(found) == [f"{WALL}split"]
    assert found[f"{WALL}split"]["flag"].startswith("no wall time")


def test_the_report_sets_the_split_beside_the_estimate_and_escapes_it() -> None:
    payload = on_t4(honest_payload(), 18.0)
    payload["wall_time"]["platform"] = MARKUP
    hostile = copy.deepcopy(payload)
    hostile["device"]["name"] = MARKUP
    page = render_report(
        class_rows([("a", CHAPTER, _notebook(payload)), ("b", CHAPTER, _notebook(hostile))])
    )
    table = page.split("<h3>Where", 1)[1]
    estimate = read_estimate()
    install = span(estimate, CHAPTER, "colab", "install")
    assert f"<td>install</td><td>1</td><td>30 s</td><td></td><td>{install}</td>" in table
    assert "s a graph" not in table  # no start captured graphs
    assert "<script" not in page and html.escape(MARKUP) in page


def test_a_missing_estimate_leaves_its_cells_empty(tmp_path) -> None:
    assert read_estimate(tmp_path / "none.json") == {}
    (tmp_path / "bad.json").write_text("[1, 2]")
    assert read_estimate(tmp_path / "bad.json") == {}
    assert span({}, CHAPTER, "colab", "install") == ""
