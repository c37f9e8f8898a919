"""servelab.plots.comparisons: each side-by-side figure marks every run and labels its axes."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot
import pandas as pd
import pytest
from matplotlib.container import BarContainer

from servelab.bench.spread import Spread
from servelab.lessons.when_not_to.findings import LLAMA_F16, LLAMA_Q4, LLAMA_SERVER, VLLM
from servelab.plots import comparisons
from tests.support import repeated

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    matplotlib.pyplot.close("all")


def _labelled(figure) -> bool:
    return all(ax.get_xlabel() and ax.get_ylabel() for ax in figure.axes)


def test_reuse_bars_draw_each_request_with_reuse_on_and_off():
    reuse = pd.DataFrame(
        {"request": [1, 2, 3], "computed": [300, 20, 20], "ttft_ms": [90.0, 20.0, 21.0]}
    )
    control = reuse.assign(computed=300, ttft_ms=90.0)
    figure = comparisons.reuse_bars(reuse, control, title="t")
    assert [len(ax.patches) for ax in figure.axes] == [6, 6]
    assert _labelled(figure)
    assert [text.get_text() for text in figure.legends[0].get_texts()] == ["reuse on", "reuse off"]


def test_engine_bars_have_a_bar_per_engine_in_each_panel():
    rows = [
        {
            "engine": engine,
            "users": users,
            "user_tok_s": 50.0,
            "output_tok_s": 50.0 * users,
            "ttft_s_p50": 0.1 * users,
        }
        for engine in ("llama.cpp Q4_1", "llama.cpp F16", "vLLM")
        for users in (1, 32)
    ]
    figure = comparisons.engine_bars(
        pd.DataFrame(rows).set_index(["engine", "users"]), 32, title="t"
    )
    assert [len(ax.patches) for ax in figure.axes] == [3, 3, 3]
    assert all(ax.get_ylabel() for ax in figure.axes)


def test_dial_sweep_marks_each_level_on_both_panels():
    sweep = pd.DataFrame(
        {
            "output_tok_s": [40.0, 120.0, 200.0],
            "latency_s_p99": [9.0, 4.0, 3.0],
            "tpot_ms_p99": [20.0, 40.0, 80.0],
        },
        index=[1, 8, 32],
    )
    figure = comparisons.dial_sweep(repeated(sweep, sweep.columns), title="t")
    for ax in figure.axes:
        assert [text.get_text() for text in ax.texts] == ["1 seq", "8 seqs", "32 seqs"]
        (bars,) = ax.containers  # one line through the medians, with each level's ranges
        assert bars.has_xerr and bars.has_yerr
    assert _labelled(figure)
    assert len(comparisons.dial_sweep(sweep, title="one pass").axes) == 2


def test_caps_trade_sets_what_each_cap_buys_beside_what_it_costs():
    def curve(scale: float) -> pd.DataFrame:
        frame = pd.DataFrame({"rate": [1.0, 4.0]})
        for key, median in (("ttft_ms_p99", 100.0), ("output_tok_s", 30.0), ("tpot_ms_p50", 40.0)):
            frame[key] = [median * scale] * 2
            frame[f"{key}_low"], frame[f"{key}_high"] = 0.9 * frame[key], 1.1 * frame[key]
        return frame

    figure = comparisons.caps_trade(
        {"small": curve(1.0), "large": curve(2.0)}, (500.0, 80.0), 2.0, title="t"
    )
    assert [ax.get_title() for ax in figure.axes] == [
        "buys: output",
        "buys: first token",
        "costs: each token",
    ]
    assert [len(ax.containers) for ax in figure.axes] == [2, 2, 2]  # an error bar per cap
    labels = [text.get_text() for text in figure.legends[0].get_texts()]
    assert "first-token SLO 500 ms" in labels and "per-token SLO 80 ms" in labels
    assert all("(" in ax.get_ylabel() for ax in figure.axes)  # every axis with its unit
    assert _labelled(figure)


def test_chunking_trade_puts_one_point_per_run():
    rows = {
        label: {
            **Spread(ttft, 0.9 * ttft, 1.1 * ttft, 3).columns("document_ttft_s"),
            **Spread(pause, 0.9 * pause, 1.1 * pause, 3).columns("users_longest_gap_ms"),
        }
        for label, ttft, pause in (("one step", 1.2, 1100.0), ("slices", 1.4, 290.0))
    }
    figure = comparisons.chunking_trade(pd.DataFrame(rows).T, title="t")
    (ax,) = figure.axes
    assert len(ax.containers) == 2
    assert ax.get_xlabel() == "document's time to first token (s)"
    assert _labelled(figure)


def test_crowd_bars_draw_both_totals_with_their_ranges():
    rows = [
        {
            "concurrency": users,
            **Spread(total, 0.9 * total, 1.1 * total, 3).columns("steady_output_tok_s"),
            **Spread(total / users, 0.9 * total / users, 1.1 * total / users, 3).columns(
                "steady_user_tok_s"
            ),
        }
        for users, total in ((1, 25.0), (16, 400.0))
    ]
    figure = comparisons.crowd_bars(pd.DataFrame(rows), title="t")
    (ax,) = figure.axes
    bars = [container for container in ax.containers if isinstance(container, BarContainer)]
    assert len(ax.patches) == 4 and len(bars) == 2
    assert all(container.errorbar is not None for container in bars)  # each bar's range
    assert [tick.get_text() for tick in ax.get_xticklabels()] == ["1", "16"]
    assert _labelled(figure)


def _overlapping_ticks(figure) -> list[tuple[str, str]]:
    """Pairs of x tick labels whose drawn boxes overlap, on any axes of ``figure``."""
    renderer = figure.canvas.get_renderer()
    pairs = []
    for ax in figure.axes:
        labels = [label for label in ax.get_xticklabels() if label.get_text()]
        boxes = [label.get_window_extent(renderer) for label in labels]
        pairs += [
            (labels[i].get_text(), labels[j].get_text())
            for i in range(len(boxes))
            for j in range(i + 1, len(boxes))
            if boxes[i].overlaps(boxes[j])
        ]
    return pairs


def test_the_engine_bars_labels_do_not_overlap_at_the_books_width():
    """Issue #65: chapter 08's four engines' names ran into each other."""
    engines = (LLAMA_Q4, LLAMA_F16, LLAMA_SERVER, VLLM)
    rows = [
        {
            "engine": engine,
            "users": users,
            "user_tok_s": 5.0,
            "output_tok_s": 5.0 * users,
            "ttft_s_p50": 0.1 * users,
        }
        for engine in engines
        for users in (1, 16)
    ]
    figure = comparisons.engine_bars(
        pd.DataFrame(rows).set_index(["engine", "users"]), 16, title="t"
    )
    figure.set_dpi(128)  # 10 inches: the 1,280 px the issue read the page at
    figure.canvas.draw()
    assert _overlapping_ticks(figure) == []
    assert {
        label.get_text().replace("\n", " ").replace("- ", "-")
        for label in figure.axes[0].get_xticklabels()
    } == set(engines)
