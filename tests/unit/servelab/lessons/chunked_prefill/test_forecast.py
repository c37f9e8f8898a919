"""servelab.lessons.chunked_prefill.forecast: the document read alone as the device model predicts
it, and ``measuring.alone_fit``, which times the reads it is checked against."""

from __future__ import annotations

import dataclasses
import math

import pytest

from servelab.bench.frames import Result
from servelab.bench.prefill import PrefillFit
from servelab.bench.spread import Spread
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.chunked_prefill.forecast import DocumentForecast, LengthWhy, reading_for
from servelab.lessons.chunking import measuring
from servelab.lessons.chunking.sizing import BudgetPlan
from servelab.lessons.device_model.foretold import Foretold
from servelab.lessons.device_model.kept import DeviceModel, PromptReading, StepLine
from tests.support import record

FIT = PrefillFit(fixed_ms=100.0, tok_s=500.0, short_tokens=50, long_tokens=400)
LINE = StepLine(StepFit(40.0, 1.0, 0.99), "02-continuous-batching", (1, 4))
KEPT = PromptReading.of(FIT, LINE, "04-prefix-caching")  # 100 ms a request, 500 tokens/s
# 800 tokens in 200-token chunks: 4 steps; the users' usual step in run 1 was 50 ms
PLAN = BudgetPlan(
    first_budget=1024,
    prefill_tok_s=500.0,
    pause_ms=400,
    step_ms=50.0,
    budget=200,
    document_tokens=800,
    block=16,
)


def test_the_kept_reading_is_used_else_the_pages_first_prompts_and_the_kept_line() -> None:
    first = PrefillFit(fixed_ms=80.0, tok_s=400.0, short_tokens=75, long_tokens=600)
    assert reading_for(DeviceModel(reading=KEPT), first) is KEPT
    own = reading_for(DeviceModel(step=LINE), first)
    assert (own.prefill, own.step_ms, own.fitted_in) == (first, 40.0, "06-chunked-prefill")
    assert reading_for(DeviceModel(), first).step_ms == 0.0  # no line kept: no step of its own


def test_each_chunk_after_the_first_pays_the_lines_shared_part() -> None:
    forecast = DocumentForecast.of(KEPT, PLAN)
    assert forecast.kept and forecast.step_from_line and forecast.chunks == 4
    assert forecast.one_step_ms == pytest.approx(1700.0)  # 100 + 800 tokens at 500/s
    assert forecast.chunked_ms == pytest.approx(1820.0)  # three steps of 40 ms more
    assert forecast.stretched == 2.0 and forecast.found == (None, None)
    assert forecast.checks == () and math.isnan(forecast.measured_extra_ms)
    assert forecast.in_chunks and forecast.later_chunks == 3
    assert forecast.one_step_why is LengthWhy.UNEXPLAINED  # not timed


def test_the_documents_length_explains_a_miss_only_in_its_own_direction() -> None:
    def why(median: float, tokens: int) -> LengthWhy:
        plan = dataclasses.replace(PLAN, document_tokens=tokens)
        return DocumentForecast.of(KEPT, plan, Spread(median, median, median, 3)).one_step_why

    # 800 tokens is 2x the reading's 400; 100 tokens a quarter of them
    assert why(5000.0, 800) is LengthWhy.LONGER and why(100.0, 800) is LengthWhy.UNEXPLAINED
    assert why(100.0, 100) is LengthWhy.SHORTER and why(5000.0, 100) is LengthWhy.UNEXPLAINED
    assert why(5000.0, 400) is LengthWhy.UNEXPLAINED  # as long as the reading's prompts


def test_without_a_line_the_users_usual_step_stands_in() -> None:
    own = PromptReading.of(FIT, None, "06-chunked-prefill")
    forecast = DocumentForecast.of(own, PLAN)
    assert not forecast.kept and not forecast.step_from_line
    assert forecast.extra_ms == pytest.approx(150.0)  # 3 × the 50 ms usual step


def test_the_predictions_are_checked_against_the_reads_alone() -> None:
    forecast = DocumentForecast.of(
        KEPT, PLAN, Spread(1750.0, 1690.0, 1800.0, 3), Spread(2500.0, 2450.0, 2550.0, 2)
    )
    assert forecast.found == (Foretold.INSIDE, Foretold.OFF)
    assert forecast.measured_extra_ms == pytest.approx(750.0)
    assert forecast.measured_chunk_ms == pytest.approx(250.0) and forecast.chunks_cost_more
    one, chunked = forecast.checks
    assert (one.chapter, one.predicted, one.measured) == (
        "06-chunked-prefill",
        1700.0,
        forecast.one_step,
    )
    assert chunked.predicted == pytest.approx(1820.0) and chunked.measured == forecast.chunked
    untimed = dataclasses.replace(forecast, chunked=None)
    assert [check.what for check in untimed.checks] == [one.what]


def test_alone_fit_fits_the_rate_and_keeps_the_long_prompts_own_waits(monkeypatch) -> None:
    waits = {"short": [0.12, 0.10, 0.11], "long": [0.50, 0.46, 0.60]}
    records = [record(0, 0.0, [], ttft=0.2, role="warm-up")]
    records += [
        record(len(records) + i, float(i), [], ttft=wait, role=role)
        for role, times in waits.items()
        for i, wait in enumerate(times)
    ]
    probes = []

    def fake_run(server, workload, **options):
        probes.append(workload)
        return Result(workload=workload, records=records, duration_s=1.0)

    monkeypatch.setattr(measuring, "run", fake_run)
    fit, alone = measuring.alone_fit(object(), long_tokens=800, repeats=3)
    [probe] = probes
    assert (probe.short_tokens, probe.long_tokens, probe.repeats) == (100, 800, 3)
    assert (alone.median, alone.low, alone.high, alone.n) == pytest.approx((500, 460, 600, 3))
    assert fit.tok_s == pytest.approx(700 / 0.39) and fit.long_tokens == 800
