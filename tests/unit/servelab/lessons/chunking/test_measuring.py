"""servelab.lessons.chunking.measuring: the runs of each setting read into one row each, with the
ranges over the runs and each document's own window."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot
import pandas as pd
import pytest

from servelab import plots
from servelab.bench.frames import Result
from servelab.bench.prefill import PrefillFit
from servelab.bench.spread import Spread
from servelab.lessons.chunking import measuring
from servelab.lessons.chunking.measuring import compare, compare_view, documents_queued, run_figures
from servelab.lessons.chunking.sizing import budget_for
from servelab.lessons.chunking.words import _document_text
from servelab.tables import readable
from tests.support import record as _record
from tests.unit.servelab.lessons.chunking.test_findings import _row, findings


def _interferer_result(stall: float) -> Result:
    users = [_record(i, 0.0, [0.03, 0.03, stall, 0.03], ttft=0.1) for i in range(2)]
    document = _record(2, 0.15, [0.03], ttft=stall, role="interferer", prompt=1000)
    return Result(workload=None, records=[*users, document], duration_s=1.0)


def test_compare_gives_each_setting_the_range_over_its_runs_and_the_plot_draws_them():
    runs = {
        "whole": [_interferer_result(0.8), _interferer_result(0.6)],
        "chunked": [_interferer_result(0.2), _interferer_result(0.3), _interferer_result(0.25)],
    }
    table = compare(runs, hitch_ms=60.0)
    pause = Spread.in_row(table.loc["whole"], "users_longest_gap_ms")
    assert (pause.median, pause.low, pause.high, pause.n) == pytest.approx((700, 600, 800, 2))
    assert Spread.in_row(table.loc["chunked"], "document_ttft_s").n == 3
    assert table.loc["whole", "users_done_s_high"] == pytest.approx(0.1 + 0.09 + 0.8)
    assert (table["documents_queued"] == 0).all()
    # one hitch a user: 1 of 4 gaps, 60 ms or longer
    assert table.loc["whole", "hitches_per_document"] == 1
    assert table.loc["whole", "hitch_share"] == pytest.approx(0.25)
    assert table.loc["chunked", "first_hitch_ms"] == pytest.approx(250)
    figure = plots.itl_over_time({label: results[0] for label, results in runs.items()}, title="t")
    assert len(figure.axes) == 2 and all(ax.get_ylabel() for ax in figure.axes)
    matplotlib.pyplot.close("all")


def test_compare_gives_each_documents_pause_its_own_window_and_the_spread():
    users = [
        _record(i, 0.0, [0.03] * 3 + [0.5] + [0.03] * 20 + [0.7] + [0.03] * 20, ttft=0.1)
        for i in range(2)
    ]
    documents = [
        _record(2, 0.15, [0.03], ttft=0.5, role="interferer"),
        _record(3, 0.8, [0.03], ttft=0.7, role="interferer"),
        _record(4, 9.0, [0.03], ttft=0.2, role="interferer"),
    ]  # the users are done
    run = Result(None, [*users, *documents], 10.0)
    figures = run_figures(run, window_s=0.7, hitch_ms=100.0)
    assert figures["users_longest_gap_ms"] == pytest.approx(600)  # 500 and 700: the median
    assert figures["document_ttft_s"] == pytest.approx(0.6)
    assert figures["hitches_per_document"] == 1
    row = compare({"run": [run, run]}, hitch_ms=100.0).iloc[0]
    shown = readable(compare_view(row.to_frame().T)).T["run"]
    assert shown[shown.index[0]] == "600 (both alike)"
    assert "pause" in shown.index[0] and "(ms)" in shown.index[0]
    assert shown["document's first token (s)"] == "0.60 (both alike)"
    assert not any("_n" in name or "lowest" in name for name in shown.index)  # no counts shown
    late = [_record(2, 9.0, [0.03], ttft=0.2, role="interferer")]
    with pytest.raises(RuntimeError, match="no user was still decoding"):
        compare({"late": [Result(None, [*users, *late], 10.0)]}, hitch_ms=100.0)


def test_documents_that_queue_behind_another_are_counted_and_said():
    rows = pd.DataFrame({"sent_s": [1.0, 4.0, 7.0], "ttft_s": [3.5, 2.0, 9.0]})
    assert documents_queued(rows) == 1  # the second came at 4.0, the first's token at 4.5
    assert documents_queued(rows.iloc[[0, 2]]) == 0
    queued = findings(_row(300, 200, 250, 31, 6.5, queued=2))
    assert (queued.whole.queued, queued.chunked.queued) == (0, 2)
    assert "chunks 2 documents" in _document_text(queued)
    apart = findings(_row(300, 200, 250, 31, 6.5))
    assert (apart.whole.queued, apart.chunked.queued) == (0, 0)
    assert "documents arrived" not in _document_text(apart)
    assert _document_text(apart) != _document_text(queued)


def test_the_budget_plan_reads_the_step_of_the_first_run_and_the_engine_block(monkeypatch):
    monkeypatch.setattr(measuring.kv, "engine_block_size", lambda url: 16)
    monkeypatch.setattr(measuring, "usual_gap_ms", lambda result: 50.0)
    server = type("Running", (), {"url": "http://x"})()
    plan = measuring.budget_plan(
        server,
        _interferer_result(0.5),
        PrefillFit(0.0, 1000.0, 500, 4000),
        4000,
        pause_ms=150.0,
        first_budget=8192,
        smallest=8,
        largest=2000,
    )
    assert (plan.step_ms, plan.block, plan.budget) == (50.0, 16, 96)
    assert plan.budget == budget_for(
        1000.0, 150.0, step_ms=50.0, smallest=8, largest=2000, block=16
    )
