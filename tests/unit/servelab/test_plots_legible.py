"""servelab.plots, every figure read at a glance (issue #65 item 3): each public plotting function
of ``servelab.plots``, ``servelab.plots.comparisons`` and ``servelab.plots.block_table`` is drawn
with made-up inputs of the shape its chapter passes, a title as long as the chapters' recorded
ones (tests/snapshots/), at the figure's own size and dpi (the PNG the page shows; Agg, no
browser), and the renderer's boxes are held to three rules:

(a) no two tick labels of one axis overlap, nor two titles or axis labels of the figure;
(b) no tick label, axis label, title or key runs outside the figure;
(c) every axis that shows numbers has a label, and the label names its unit: a time ("(s)",
    "(ms)", "seconds"), a rate ("tok/s", "req/s", "per second"), a share ("(%)"), a ratio
    ("×"), or what it counts (users, requests, tokens, sequences, slots, blocks, "(count)"); a
    label that speaks of a time, latency, wait or pause names a time unit whatever else it
    names. An axis that names things (engines, setups, tenants) needs no label.

A made-up figure with crowded long tick labels shows the checker finds an overlap, and one with
an unlabelled or unitless number axis and a title wider than the figure shows the other rules."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import matplotlib
import matplotlib.pyplot
import numpy as np
import pandas as pd
import pytest
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from servelab import plots
from servelab.bench.frames import Result
from servelab.bench.spread import Spread
from servelab.lessons.when_not_to.findings import LLAMA_F16, LLAMA_Q4, LLAMA_SERVER, VLLM
from servelab.plots import comparisons
from servelab.plots.alt import is_number
from servelab.plots.block_table import Holder, plot_block_table
from tests.support import record, repeated

matplotlib.use("Agg")

# The rule (c) words: a unit, or what a count counts.
UNIT = re.compile(
    r"\((s|ms)\b|\(%\)|\b[a-z]+/s\b|\bseconds\b|per second|×|"
    r"\b(users?|requests?|tokens?|sequences|slot|block|batch|count)\b"
)
TIME = re.compile(r"\b(time|latency|wait|pause)\b")
TIME_UNIT = re.compile(r"\((s|ms)\b|\bseconds\b")
SLACK_PX = 1.0  # antialiasing's half pixel either side


# -- the checker ---------------------------------------------------------------------------------


def _shown(text: Text) -> bool:
    return bool(text.get_visible() and text.get_text().strip())


def _tick_labels(axis: Axis) -> list[Text]:
    """The tick labels the axis draws: visible, not empty, their tick inside the view."""
    low, high = sorted(axis.get_view_interval())
    margin = (high - low) * 1e-9
    labels = []
    for which in ("major", "minor"):
        ticks = axis.get_major_ticks() if which == "major" else axis.get_minor_ticks()
        locs = axis.get_majorticklocs() if which == "major" else axis.get_minorticklocs()
        for tick, loc in zip(ticks, locs, strict=False):
            if low - margin <= loc <= high + margin:
                labels += [label for label in (tick.label1, tick.label2) if _shown(label)]
    return labels


def _axes_texts(figure: Figure) -> Iterator[tuple[str, Text]]:
    """Every title and axis label drawn, named for the message."""
    for number, ax in enumerate(figure.axes):
        if not ax.axison:
            texts = [ax.title, ax._left_title, ax._right_title]  # noqa: SLF001
        else:
            texts = [
                ax.title,
                ax._left_title,
                ax._right_title,  # noqa: SLF001
                ax.xaxis.label,
                ax.yaxis.label,
            ]
        for text in texts:
            if _shown(text):
                yield f"axes {number}: {text.get_text()!r}", text
    if figure._suptitle is not None and _shown(figure._suptitle):  # noqa: SLF001
        yield f"suptitle {figure._suptitle.get_text()!r}", figure._suptitle  # noqa: SLF001


def _overlap(a: Bbox, b: Bbox) -> bool:
    return (
        min(a.x1, b.x1) - max(a.x0, b.x0) > SLACK_PX
        and min(a.y1, b.y1) - max(a.y0, b.y0) > SLACK_PX
    )


def _outside(name: str, box: Bbox, figure: Figure) -> list[str]:
    inside = figure.bbox
    if (
        box.x0 < inside.x0 - SLACK_PX
        or box.x1 > inside.x1 + SLACK_PX
        or box.y0 < inside.y0 - SLACK_PX
        or box.y1 > inside.y1 + SLACK_PX
    ):
        return [f"{name} runs outside the figure"]
    return []


def _overlapping(named: list[tuple[str, Bbox]]) -> list[tuple[str, str]]:
    return [
        (named[i][0], named[j][0])
        for i in range(len(named))
        for j in range(i + 1, len(named))
        if _overlap(named[i][1], named[j][1])
    ]


def _unit_fault(axis: Axis, labels: list[Text]) -> str | None:
    """Rule (c) for one axis: None where it shows no numbers or its label names a unit."""
    if not labels or not all(is_number(label.get_text()) for label in labels):
        return None
    name = axis.label.get_text() if _shown(axis.label) else ""
    if not name:
        return "numbers with no label"
    if not UNIT.search(name) or (TIME.search(name) and not TIME_UNIT.search(name)):
        return f"{name!r} names no unit"
    return None


def _axis_faults(axis: Axis, where: str, figure: Figure) -> list[str]:
    labels = _tick_labels(axis)
    named = [(repr(label.get_text()), label.get_window_extent()) for label in labels]
    found = [f"{where}: ticks {a} and {b} overlap" for a, b in _overlapping(named)]
    for name, box in named:
        found += _outside(f"{where} tick {name}", box, figure)
    if (fault := _unit_fault(axis, labels)) is not None:
        found.append(f"{where}: {fault}")
    return found


def illegible(figure: Figure) -> list[str]:
    """What breaks rules (a) to (c) on ``figure``, drawn at its own size and dpi; [] when none."""
    figure.canvas.draw()
    found: list[str] = []
    for number, ax in enumerate(figure.axes):
        if ax.axison:
            found += [
                fault
                for axis in (ax.xaxis, ax.yaxis)
                if axis.get_visible()
                for fault in _axis_faults(axis, f"axes {number} {axis.axis_name}", figure)
            ]
    named = [(name, text.get_window_extent()) for name, text in _axes_texts(figure)]
    for name, box in named:
        found += _outside(name, box, figure)
    found += [f"{a} and {b} overlap" for a, b in _overlapping(named)]
    for legend in figure.legends:
        found += _outside("the key", legend.get_window_extent(), figure)
    return found


# -- the checker catches each kind of fault ------------------------------------------------------


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    matplotlib.pyplot.close("all")


def test_the_checker_finds_crowded_tick_labels_overlapping():
    figure, ax = matplotlib.pyplot.subplots(figsize=(4.0, 3.0), dpi=110, layout="constrained")
    names = [f"a rather long engine name {n}" for n in range(6)]
    ax.bar(names, range(6))
    ax.set_ylabel("output (tok/s)")
    found = illegible(figure)
    assert any("overlap" in fault and "x" in fault for fault in found), found
    ax.set_xticks(range(6), [str(n) for n in range(6)])  # short labels: no overlap left
    ax.set_xlabel("engine (count)")
    assert illegible(figure) == []


def test_the_checker_finds_a_missing_label_a_missing_unit_and_a_title_too_wide():
    figure, (left, right) = matplotlib.pyplot.subplots(
        1, 2, figsize=(6.0, 3.0), dpi=110, layout="constrained"
    )
    left.plot([1, 2, 3], [4, 5, 6])
    right.plot([1, 2, 3], [4, 5, 6])
    left.set_ylabel("time to first token")
    right.set_xlabel("time (s)")
    right.set_ylabel("output (tok/s)")
    figure.suptitle(
        "A title far wider than a six-inch figure can hold: it runs on and on, past"
        " either edge of the figure, and no layout wraps it"
    )
    found = illegible(figure)
    by_axis = {fault.split(":")[0]: fault for fault in found}
    assert by_axis["axes 0 x"].endswith("no label")
    assert by_axis["axes 0 y"].endswith("names no unit")  # a time, in no unit
    assert any(fault.startswith("suptitle") and "outside" in fault for fault in found)
    assert not [fault for fault in found if fault.startswith("axes 1")]


# -- every plotting function, with its chapter's inputs ------------------------------------------


def _run(users: int, seconds: float, role_every: int = 0) -> Result:
    """``users`` requests arriving over ``seconds``, each with a first token and 40 gaps, every
    ``role_every``-th one an interferer (none at 0)."""
    rng = np.random.default_rng(users)
    records = [
        record(
            i,
            sent,
            list(rng.uniform(0.02, 0.09, 40)),
            ttft=float(rng.uniform(0.1, 2)),
            role="interferer" if role_every and i % role_every == role_every - 1 else "user",
        )
        for i, sent in enumerate(np.linspace(0.0, seconds, users))
    ]
    end = max(r.end for r in records)
    server_rows = [
        {
            "t_s": t,
            "scrape_s": 0.01,
            "running": min(16, users),
            "waiting": i % 23,
            "kv_cache_usage": min(0.95, 0.05 * i),
            "prefix_cache_queries": 100.0 * i,
            "prefix_cache_hits": 10.0 * i,
            "preemptions": 0.0,
            "prompt_tokens": 100.0 * i,
            "generation_tokens": 40.0 * i,
        }
        for i, t in enumerate(np.arange(0.0, end, 0.34))
    ]
    return Result(workload=None, records=records, duration_s=end, server_rows=server_rows)


def _sweep(levels=(1, 2, 4, 8, 16, 32)) -> pd.DataFrame:
    total = [25.0 * n**0.6 for n in levels]
    frame = pd.DataFrame(
        {
            "concurrency": levels,
            "output_tok_s": total,
            "steady_output_tok_s": [1.05 * t for t in total],
            "user_tok_s": [t / n for t, n in zip(total, levels, strict=True)],
            "steady_user_tok_s": [1.05 * t / n for t, n in zip(total, levels, strict=True)],
        }
    )
    return repeated(frame, ["steady_output_tok_s", "steady_user_tok_s"])


def _spread_row(**medians: float) -> dict[str, float]:
    row: dict[str, float] = {}
    for key, median in medians.items():
        row.update(Spread(median, 0.9 * median, 1.1 * median, 3).columns(key))
    return row


def _engine_table() -> pd.DataFrame:
    rows = [
        {
            "engine": engine,
            "users": users,
            **_spread_row(
                user_tok_s=40.0 + k, output_tok_s=(40.0 + k) * users**0.5, ttft_s_p50=0.3 * users
            ),
        }
        for k, engine in enumerate((LLAMA_Q4, LLAMA_F16, LLAMA_SERVER, VLLM))
        for users in (1, 16)
    ]
    return pd.DataFrame(rows).set_index(["engine", "users"])


def _caps_curve(scale: float) -> pd.DataFrame:
    frame = pd.DataFrame({"rate": [0.5, 1.0, 2.0, 4.0, 8.69, 16.0]})
    for key, median in (("ttft_ms_p99", 1200.0), ("output_tok_s", 30.0), ("tpot_ms_p50", 40.0)):
        frame[key] = [median * scale * (1 + n) for n in range(len(frame))]
        frame[f"{key}_low"], frame[f"{key}_high"] = 0.9 * frame[key], 1.1 * frame[key]
    return frame


def _tenant_runs() -> tuple[pd.DataFrame, ...]:
    return tuple(
        pd.DataFrame(
            [[4, 2], [1, 5], [3, 3]],
            index=pd.Index(range(3), name="tenant"),
            columns=["replica 0", "replica 1"],
        )
        for _ in range(3)
    )


def _failure_rows() -> pd.DataFrame:
    sent = np.linspace(0.0, 30.0, 60)
    ok = ~((sent > 12.0) & (sent < 14.5))
    return pd.DataFrame({"sent_s": sent, "ok": ok, "latency_s": np.where(ok, 2.5, 0.0)})


FIGURES: dict[str, Callable[[], Figure]] = {
    "request_timeline, one run (ch 07)": lambda: plots.request_timeline(
        _run(50, 40.0),
        title="50 requests at 1.2 req/s: first token in 631 ms at the median, "
        "1,251 ms at worst; about 2.0 in the server at once",
    ),
    "request_timeline, three engines (ch 08)": lambda: plots.request_timeline(
        {engine: _run(16, 0.0) for engine in (LLAMA_Q4, LLAMA_SERVER, VLLM)},
        title="16 users at once, each engine's first run: the slowest first token took 31.6 s "
        "on llama-cpp-python, 7.4 s on llama-server, 0.6 s on vLLM",
    ),
    "concurrency_curves (ch 00, 02)": lambda: plots.concurrency_curves(
        _sweep(), title="32 users: 10× the single-stream total, each user at 31%"
    ),
    "throughput_over_time (ch 02)": lambda: plots.throughput_over_time(
        {"1 user": _run(1, 0.0), "32 users": _run(32, 0.0)},
        title="1 user and 32: the steady figures (dashed) count only the time while every user "
        "decodes",
    ),
    "step_time_fit (ch 02)": lambda: plots.step_time_fit(
        [1, 2, 4, 8, 16, 32],
        [62.0, 66.0, 79.0, 96.0, 131.0, 202.0],
        61.0,
        4.4,
        title="A step costs 61 ms shared + 4.40 ms per sequence",
        weight_read_ms=17.1,
    ),
    "step_lines (ch 08)": lambda: plots.step_lines(
        {
            LLAMA_SERVER: ([1, 2, 4, 8, 16], [20.0, 22.0, 30.0, 52.0, 150.0], 18.0, 2.0),
            VLLM: ([1, 2, 4, 8, 16], [25.0, 26.0, 27.0, 29.0, 33.0], 24.0, 0.5),
        },
        title="16 sequences per step gave 2.0× one sequence's output on llama-server, 8.2× on vLLM",
    ),
    "slot_timeline (ch 02)": lambda: plots.slot_timeline(
        _run(48, 20.0),
        16,
        title="Continuous, first pass: slots idle 41%, the same requests "
        "done in 22 s (in waves: 51 s)",
    ),
    "itl_over_time, two servers (ch 06)": lambda: plots.itl_over_time(
        {"one step": _run(9, 1.0, role_every=9), "128-token chunks": _run(9, 1.0, role_every=9)},
        role_name="the document",
        title="A 1200-token prompt, 3 runs a side: the users' longest "
        "pause was 2.46 s in one step, 0.55 s in slices (medians)",
    ),
    "kv_usage (ch 03, 05)": lambda: plots.kv_usage(
        _run(40, 10.0),
        title="A third of the room, first run: up to 19 running, 23 waiting "
        "(sampled every 0.34 s), 18 preemptions",
    ),
    "queue_over_time (ch 10)": lambda: plots.queue_over_time(
        {
            f"{rate:.1f} req/s ({rate / 1.6:.1f}× the knee)": _run(30, 30 / rate)
            for rate in (0.8, 1.2, 1.6, 2.4)
        },
        title="Most requests waiting: 11 below the planned knee, 36 above it (medians of the runs)",
    ),
    "tenant_spread (ch 09)": lambda: plots.tenant_spread(
        {"round_robin": _tenant_runs(), "cache_aware": _tenant_runs()},
        title="round_robin: 61% of a tenant's requests on one replica in a run; cache_aware: "
        "100% (median of 3 cold passes)",
    ),
    "failure_timeline (ch 09)": lambda: plots.failure_timeline(
        _failure_rows(),
        12.0,
        14.5,
        title="7 requests failed a run; the router counted it down "
        "2.5 s (2.5–2.6) later (2 runs, the first drawn)",
    ),
    "setup_bars (ch 09)": lambda: plots.setup_bars(
        pd.DataFrame(
            {
                "setup": [
                    "2 replicas, router",
                    "1 server, GPU 0 of 2 (Tesla T4)",
                    "1 model over 2 GPUs",
                ],
                "output tok/s": [310.0, 240.0, 180.0],
                "TPOT p50 (ms)": [48.0, 61.0, 70.0],
            }
        ),
        title="On CPU AMD EPYC (2 cores), two copies delivered more output than one server",
    ),
    "crowd_bars (ch 01)": lambda: comparisons.crowd_bars(
        _sweep(), title="32 users: 10× the single-stream total, each user at 31%"
    ),
    "reuse_bars (ch 00)": lambda: comparisons.reuse_bars(
        pd.DataFrame(
            {"request": range(1, 9), "computed": [2016] + [96] * 7, "ttft_ms": [900.0] + [60.0] * 7}
        ),
        pd.DataFrame({"request": range(1, 9), "computed": [2016] * 8, "ttft_ms": [900.0] * 8}),
        title="After the first request: 96 tokens computed per request instead of 2016",
    ),
    "engine_bars (ch 08)": lambda: comparisons.engine_bars(
        _engine_table(),
        16,
        title="Alone: llama-server Q4_1 fastest (109 tok/s); 16 users: "
        "llama-server Q4_1 serves the most (117 tok/s)",
    ),
    "dial_sweep (ch 05)": lambda: comparisons.dial_sweep(
        pd.DataFrame(
            [
                _spread_row(
                    output_tok_s=30.0 * n**0.5,
                    latency_s_p99=60.0 / n**0.5,
                    tpot_ms_p99=20.0 * n**0.4,
                )
                for n in (1, 2, 4, 8, 16, 32)
            ],
            index=[1, 2, 4, 8, 16, 32],
        ),
        title="max_num_seqs=32 gave 5.7× the output of 1, p99 latency down to 10.6 s, each token "
        "4× slower",
    ),
    "caps_trade (ch 07)": lambda: comparisons.caps_trade(
        {
            "interactive (max_num_seqs=4)": _caps_curve(1.0),
            "batch (max_num_seqs=16)": _caps_curve(1.4),
        },
        (5000.0, 80.0),
        1.58,
        title="At 8.69 req/s, max_num_seqs=16 against 4: 0.9× the output, first token p99 5,545 "
        "against 5,541 ms, 4.2× the time per token (2 runs a rate)",
    ),
    "chunking_trade (ch 00, 06)": lambda: comparisons.chunking_trade(
        pd.DataFrame(
            {
                label: _spread_row(document_ttft_s=ttft, users_longest_gap_ms=pause)
                for label, ttft, pause in (
                    ("one step", 1.2, 1279.0),
                    ("128-token chunks", 1.5, 378.0),
                )
            }
        ).T,
        title="Over 3 runs a side, the median longest pause was 1,279 ms in one step, 378 ms "
        "with 128-token chunks (first runs drawn)",
    ),
    "plot_block_table, one request (ch 03)": lambda: plot_block_table(
        [Holder("just started", 260), Holder("halfway", 388), Holder("nearly done", 516)],
        128,
        title="3 requests hold 5 blocks of 128; reserving the context would take 192",
    ),
    "plot_block_table, shared prompt (ch 04)": lambda: plot_block_table(
        [Holder(f"sample {n}", 512 + 64, shared_tokens=512) for n in range(1, 5)],
        128,
        title="4 samples of a 512-token prompt: 3 prompt blocks shared, 11 held in all against "
        "20 if each kept its own",
    ),
}


def test_every_plotting_function_is_drawn_here():
    drawn = {name.split(",")[0].split(" (")[0] for name in FIGURES}
    public = {
        name
        for module in (plots, comparisons)
        for name, value in vars(module).items()
        if callable(value)
        and not name.startswith("_")
        and getattr(value, "__module__", "") == module.__name__
        and value.__annotations__.get("return") == "Figure"
    }
    assert public | {"plot_block_table"} == drawn


@pytest.mark.parametrize("name", FIGURES)
def test_each_figure_reads_at_a_glance(name: str):
    assert illegible(FIGURES[name]()) == []
