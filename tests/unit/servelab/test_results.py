"""servelab.results: the record a chapter writes, read back from a notebook as the grader will,
and the published page showing only its summary line."""

from __future__ import annotations

import ast
import dataclasses
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import IPython.display
import nbformat
import numpy as np
import pytest

from course.paths import CHAPTERS, source_notebook
from servelab.bench.spread import Spread
from servelab.chapter import Figures
from servelab.lessons.device_model.foretold import Checked
from servelab.lessons.device_model.kept import kept_model
from servelab.lessons.story import declared
from servelab.results import (
    FIGURES,
    MAX_PREDICTIONS,
    MAX_RECORD_BYTES,
    MAX_RECORDS,
    MIME_TYPE,
    FigureError,
    Record,
    RecordError,
    expected_names,
    make_record,
    read_records,
    record_results,
)
from servelab.wall_time import Clock, StartTimes
from tests.support import declared_figures, kaggle_runtime, notebook_with

CHAPTER = "02-continuous-batching"


@dataclass(frozen=True)
class Given(Figures):
    """Figures by name as given, declared or not: what a chapter's figures dataclass cannot
    hold, to see the record refuse it."""

    values: Mapping[str, float]

    def by_name(self) -> dict[str, float]:
        return dict(self.values)


@dataclass(frozen=True)
class Findings:
    """A findings record as a chapter's ``record`` module writes one, holding its figures."""

    chapter: str
    given: Mapping[str, float]

    def figures(self) -> Given:
        return Given(self.given)


def valid_payload() -> dict[str, Any]:
    return make_record(kaggle_runtime(), CHAPTER, declared_figures()).model_dump(mode="json")


@pytest.fixture
def displayed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[dict, dict]]:
    """What record_results hands to IPython's display, in place of a kernel."""
    calls: list[tuple[dict, dict]] = []
    monkeypatch.setattr(
        IPython.display, "display", lambda bundle, **options: calls.append((bundle, options))
    )
    return calls


def test_a_displayed_record_round_trips_through_a_notebook(displayed: list) -> None:
    record = record_results(kaggle_runtime(), Findings(CHAPTER, declared_figures()))
    [(bundle, options)] = displayed
    assert options == {"raw": True}
    assert set(bundle) == {MIME_TYPE, "text/plain"}
    assert bundle["text/plain"] == record.summary() and "\n" not in record.summary()
    output = nbformat.v4.new_output("display_data", data=bundle)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("record_results(...)", outputs=[output])]
    nbformat.validate(notebook)
    read = read_records(nbformat.reads(nbformat.writes(notebook), as_version=4))
    assert read == [record]
    assert record.figures == declared_figures() and record.device.count == 2
    assert record.schema_version == 3 and record.size_profile == "gpu"
    assert record.wall_time is not None and record.wall_time.platform == "Kaggle"


def test_a_chapters_predictions_ride_in_its_record_and_are_kept_for_the_closing_table(
    displayed: list, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path))
    runtime = kaggle_runtime()
    checks = (
        Checked(CHAPTER, "time per token, 8 sequences", " ms", 41.0, Spread(44, 38, 52, 3)),
        Checked(CHAPTER, "first token alone", " ms", 12.0, Spread(9, math.nan, 14, 3)),
    )
    record = record_results(runtime, Findings(CHAPTER, declared_figures()), checks=checks)
    assert [p.model_dump() for p in record.predictions] == [PREDICTION]  # NaN runs left out
    assert "1 prediction checked" in record.summary()
    whats = [check.what for check in checks]
    assert [c.what for c in kept_model(runtime).checks] == whats  # all: the table says why
    [(bundle, _)] = displayed
    [read] = read_records(notebook_with(bundle[MIME_TYPE]))
    assert read == record
    record_results(runtime, Findings(CHAPTER, declared_figures()))
    assert [c.what for c in kept_model(runtime).checks] == whats  # None: not this chapter's
    record_results(runtime, Findings(CHAPTER, declared_figures()), checks=())
    assert kept_model(runtime).checks == ()  # a rerun that checked nothing clears them


def test_a_version_1_record_without_predictions_still_reads() -> None:
    payload = {k: v for k, v in valid_payload().items() if k not in ("predictions", "wall_time")}
    [read] = read_records(notebook_with(payload | {"schema_version": 1}))
    assert isinstance(read, Record) and read.predictions == []


def test_a_version_2_record_reads_without_a_split_and_refuses_one() -> None:
    payload = {k: v for k, v in valid_payload().items() if k != "wall_time"}
    [read] = read_records(notebook_with(payload | {"schema_version": 2}))
    assert isinstance(read, Record) and read.wall_time is None
    [refused] = read_records(notebook_with(valid_payload() | {"schema_version": 2}))
    assert isinstance(refused, RecordError) and "schema 3" in refused.reason


def test_the_record_carries_the_clocks_split() -> None:
    clock = Clock(
        install_s=42.0,
        installed_at=0.0,
        starts=[StartTimes(wall_s=80.0, engine_s=63.5, compile_s=41.1, graphs_s=19.0)],
    )
    split = make_record(kaggle_runtime(), CHAPTER, declared_figures(), clock=clock).wall_time
    assert split is not None and split.install_s == 42.0 and split.measure_s is not None
    assert [start.compile_s for start in split.starts] == [41.1]


def test_a_nan_or_infinite_figure_is_recorded_as_missing() -> None:
    given = declared_figures() | {"waves_s": math.nan, "continuous_speedup": math.inf}
    record = make_record(kaggle_runtime(), CHAPTER, given)
    assert "waves_s" not in record.figures and "continuous_speedup" not in record.figures
    assert {"waves_s", "continuous_speedup"} <= set(record.missing)
    assert read_records(notebook_with(record.model_dump(mode="json"))) == [record]


def test_numpy_numbers_are_figures() -> None:
    record = make_record(
        kaggle_runtime(),
        CHAPTER,
        declared_figures() | {"top_users": np.int64(32), "waves_s": np.float64(2.5)},
    )
    assert record.figures["top_users"] == 32.0 and record.figures["waves_s"] == 2.5


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"steady_tok_s_at_one": 1.0}, "undeclared figures \\['steady_tok_s_at_one'\\]"),
        ({"waves_s": "12 s"}, "'waves_s' is '12 s', not a number"),
        ({"waves_s": None}, "not a number"),
        ({"waves_s": True}, "not a number"),
    ],
)
def test_the_author_is_told_of_a_wrong_figure(change: dict, message: str) -> None:
    with pytest.raises(FigureError, match=message):
        make_record(kaggle_runtime(), CHAPTER, declared_figures() | change)


def test_a_forgotten_figure_or_chapter_is_the_authors_error() -> None:
    given = declared_figures()
    del given["waves_s"]
    with pytest.raises(FigureError, match="figures not given \\['waves_s'\\]"):
        make_record(kaggle_runtime(), CHAPTER, given)
    with pytest.raises(FigureError, match="no figures are declared"):
        make_record(kaggle_runtime(), "99-no-such-chapter", {})


def test_per_level_figures_follow_the_profile() -> None:
    chapter = "00-serving-many-users"
    smoke = expected_names(chapter, "smoke")
    assert {"total_tok_s_at_1", "total_tok_s_at_4"} <= smoke
    assert "total_tok_s_at_32" not in smoke and "total_tok_s_at_32" in FIGURES[chapter]
    record = make_record(
        kaggle_runtime(profile="smoke"), chapter, declared_figures(chapter, "smoke")
    )
    assert "total_tok_s_at_32" not in record.missing  # another profile's level, not a gap
    unmeasured = declared_figures(chapter, "smoke") | {"total_tok_s_at_4": float("nan")}
    assert make_record(kaggle_runtime(profile="smoke"), chapter, unmeasured).missing == [
        "total_tok_s_at_4"
    ]
    with pytest.raises(FigureError, match="figures not given"):
        make_record(kaggle_runtime(profile="gpu"), chapter, declared_figures(chapter, "smoke"))


PREDICTION = {
    "what": "time per token, 8 sequences",
    "unit": " ms",
    "predicted": 41.0,
    "low": 38.0,
    "median": 44.0,
    "high": 52.0,
    "runs": 3,
}


def forged(**changes: Any) -> dict[str, Any]:
    return valid_payload() | changes


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (forged(schema_version=4), "schema_version"),
        (forged(schema_version=1, predictions=[PREDICTION]), "came with schema 2"),
        (forged(predictions=[PREDICTION | {"low": 80.0}]), "low <= median <= high"),
        (forged(predictions=[PREDICTION | {"predicted": float("nan")}]), "finite"),
        (forged(predictions=[PREDICTION | {"unit": " furlongs"}]), "predictions.0.unit"),
        (forged(predictions=[PREDICTION | {"runs": 0}]), "predictions.0.runs"),
        (forged(predictions=[PREDICTION] * (MAX_PREDICTIONS + 1)), "predictions: List should"),
        (forged(chapter="99-made-up"), "unknown chapter"),
        (forged(figures={"made_up_tok_s": 1.0}), "not declared for 02-continuous-batching"),
        (forged(figures={"waves_s": "12.0"}), "figures.waves_s"),
        (forged(figures={"waves_s": True}), "figures.waves_s"),
        (forged(figures={"waves_s": float("nan")}), "finite"),
        (forged(figures={"waves_s": float("inf")}), "finite"),
        (forged(missing=["waves_s", "waves_s"]), "both as measured and as missing"),
        (forged(size_profile="huge"), "size_profile"),
        (forged(device={"kind": "tpu", "name": "x", "count": 1, "memory_gib": 0.0}), "device.kind"),
        (
            forged(device={"kind": "cpu", "name": "x", "count": 0, "memory_gib": 0.0}),
            "device.count",
        ),
        (forged(grade=1.0), "grade: Extra inputs are not permitted"),
        ({k: v for k, v in valid_payload().items() if k != "engine"}, "engine: Field required"),
        (forged(model="m" * 1000), "model: String should have at most"),
        (forged(notes="x" * MAX_RECORD_BYTES), f"larger than {MAX_RECORD_BYTES} bytes"),
        ("x" * (MAX_RECORD_BYTES + 1), f"larger than {MAX_RECORD_BYTES} bytes"),
        ('{"schema_version": 1, "figures": {"waves_s": NaN}', "Expecting"),
        ([valid_payload()], "a record is a JSON object, not list"),
        (12, "a record is a JSON object, not int"),
    ],
)
def test_a_broken_record_reads_back_as_an_error_with_its_reason(payload: Any, reason: str) -> None:
    [result] = read_records(notebook_with(payload))
    assert isinstance(result, RecordError), result
    assert result.cell == 1
    assert reason in result.reason


def test_non_finite_json_text_is_refused() -> None:
    text = json.dumps(forged(figures={"waves_s": float("nan")}))
    assert "NaN" in text
    [result] = read_records(notebook_with(text))
    assert isinstance(result, RecordError) and "finite" in result.reason


def test_a_good_record_beside_broken_ones_is_kept() -> None:
    results = read_records(notebook_with(forged(chapter="x"), valid_payload(), "not json"))
    assert [type(r) for r in results] == [RecordError, Record, RecordError]


def test_records_past_the_cap_are_one_error() -> None:
    results = read_records(notebook_with(*[valid_payload()] * (MAX_RECORDS + 5)))
    assert len(results) == MAX_RECORDS + 1
    assert all(isinstance(r, Record) for r in results[:MAX_RECORDS])
    assert isinstance(results[-1], RecordError) and "more than" in results[-1].reason


@pytest.mark.parametrize(
    "notebook",
    [
        {},
        {"cells": None},
        {"cells": [None, {"outputs": 3}]},
        {"cells": [{"outputs": [None, {"data": []}]}]},
    ],
)
def test_a_misshapen_notebook_has_no_records(notebook: dict) -> None:
    assert read_records(notebook) == []


def test_markup_in_a_device_name_is_kept_as_plain_data(tmp_path: Path) -> None:
    sentinel = tmp_path / "ran"
    name = f"<script>alert(1)</script>{{__import__('pathlib').Path({str(sentinel)!r}).touch()}}"
    record = make_record(kaggle_runtime(device_name=name), CHAPTER, declared_figures())
    [read] = read_records(notebook_with(record.model_dump(mode="json")))
    assert isinstance(read, Record)
    assert read.device.name == name and name in read.summary()
    assert not sentinel.exists()


# -- the chapters ------------------------------------------------------------------------------
def record_calls(chapter: str) -> list[tuple[nbformat.NotebookNode, ast.Call]]:
    """(cell, call) of every record_results call in the chapter's instructor source."""
    notebook = nbformat.read(source_notebook(chapter), as_version=4)
    calls = []
    for cell in notebook.cells:
        if cell.cell_type != "code" or "record_results" not in cell.source:
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "record_results":
                calls.append((cell, node))
    return calls


def test_every_chapter_declares_its_figures() -> None:
    assert set(FIGURES) == set(CHAPTERS)


def test_record_results_takes_the_chapter_and_figures_from_its_findings(displayed: list) -> None:
    given = declared_figures(CHAPTER, "smoke") | {"waves_s": math.nan}
    record = record_results(kaggle_runtime(profile="smoke"), Findings(CHAPTER, given))
    assert record == make_record(kaggle_runtime(profile="smoke"), CHAPTER, given)
    assert record.chapter == CHAPTER and record.missing == ["waves_s"]
    with pytest.raises(FigureError, match="undeclared figures \\['steady_tok_s_at_one'\\]"):
        record_results(
            kaggle_runtime(profile="smoke"), Findings(CHAPTER, given | {"steady_tok_s_at_one": 1.0})
        )


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_records_its_findings_in_a_cell_of_its_own(chapter: str) -> None:
    """The record is made from the chapter's story (issue #62): the cell calls ``STORY.record``,
    never a findings record's constructor, and passes only the findings no section of the page
    was shown with, so each figure read from a finding the page writes about comes from the
    very object the page wrote from."""
    [(cell, call)] = record_calls(chapter)
    assert cell.source.startswith("# "), "the record cell opens with a one-line comment"
    body = ast.parse(cell.source).body
    # The import of record_results, then the one call.
    assert len(body) == 2, "the record cell holds only its import and its call"
    [findings] = call.args[1:]
    assert isinstance(findings, ast.Call) and isinstance(findings.func, ast.Attribute)
    assert ast.unparse(findings.func) == "STORY.record" and not findings.args
    story = declared()[chapter]
    assert story.findings_record.chapter == chapter
    passed = {keyword.arg for keyword in findings.keywords}
    shown = {name for section in story.sections for name in section.needs}
    fields = {field.name for field in dataclasses.fields(story.findings_record)}
    assert passed <= fields - shown, "pass only the findings no section is shown with"
    assert fields <= passed | shown, "every field comes from the page or from the record cell"


def test_a_record_counts_the_gpus_its_servers_computed_on(monkeypatch: pytest.MonkeyPatch) -> None:
    from servelab.engines import vllm_server

    monkeypatch.setattr(vllm_server, "GPUS_COMPUTED_ON", set())
    monkeypatch.setattr("servelab.results.GPUS_COMPUTED_ON", vllm_server.GPUS_COMPUTED_ON)
    kaggle = kaggle_runtime()
    # no server started: the runtime's count
    assert make_record(kaggle, CHAPTER, declared_figures()).device.count == 2
    vllm_server.Server(
        device=kaggle.device, model="m", env={"CUDA_VISIBLE_DEVICES": "1"}
    ).after_start()
    record = make_record(kaggle, CHAPTER, declared_figures())
    assert record.device.count == 1 and "| CUDA Tesla T4 |" in record.summary()
    vllm_server.Server(device=kaggle.device, model="m", tensor_parallel_size=2).after_start()
    both = make_record(kaggle, CHAPTER, declared_figures())
    assert both.device.count == 2 and "| CUDA 2x Tesla T4 |" in both.summary()
