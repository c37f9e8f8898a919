"""The book's plots, in one style. Each function returns a matplotlib Figure.

Every plot takes ``title=``: chapters should pass a title that states what the reader sees
(e.g. "32 users get 12x the tokens of one, each at half the speed"). Axes carry units. Each key
sits below the axes (``legend_below``), never over the data. Importing this module in a notebook
shows every figure with alt text read off the figure (``servelab.plots.alt``).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.patches import Patch
from matplotlib.text import Text

from servelab.bench import metrics
from servelab.bench.client import INTERFERER, USER
from servelab.bench.frames import Result
from servelab.bench.metrics import OUTPUT_TOK_S, STEADY_OUTPUT_TOK_S, USER_TOK_S
from servelab.bench.workloads import Role
from servelab.plots import alt

STYLE = {
    "figure.figsize": (8.0, 4.0),
    "figure.dpi": 110,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 12,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "legend.frameon": False,
    "font.size": 10,
}
COLORS = {
    "waiting": "#bbbbbb",
    "prefill": "#f0a030",
    "decode": "#3070b0",
    "marker": "#c03030",
    "second": "#50a050",
}
SERIES_COLORS = ["#3070b0", "#f0a030", "#50a050", "#c03030", "#8060b0"]
LEGEND_FONTSIZE = 8
SETUP_LABEL_CHARS = 12  # a setup's name wraps past this many characters under its bar
LEGEND_CHARS_PER_INCH = 14  # how many 8-point characters fit an inch of a legend row, roughly

alt.register()


@contextmanager
def style():
    """The book's matplotlib style, for plots of your own: ``with plots.style(): ...``, and
    ``plots.legend_below(fig)`` for the key. Each figure made inside gets its titles wrapped
    to its width (``wrap_titles``)."""
    before = set(plt.get_fignums())
    with plt.rc_context(STYLE):
        yield
        # A notebook's first figure switches on interactive mode inside this context; leaving it
        # would switch it off again and later figures would never be shown.
        interactive = plt.isinteractive()
    plt.interactive(interactive)
    made = sorted(set(plt.get_fignums()) - before)
    if made:
        current = plt.gcf()
        for number in made:
            wrap_titles(plt.figure(number))
        plt.figure(current)


def wrap_titles(fig: Figure) -> None:
    """Break every title of ``fig`` (each axes' and the figure's own) into lines that fit the
    figure's width when it is drawn: a chapter's title states its finding and often runs longer
    than one line (issue #65 item 3)."""
    # matplotlib keeps the left and right titles, and the figure's, in attributes of its own.
    titles = [getattr(fig, "_suptitle", None)]
    for ax in fig.axes:
        titles += [ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None)]
    for title in titles:
        if isinstance(title, Text):
            title.set_wrap(True)


def figure_row(ncols: int = 1, **kwargs: Any) -> tuple[Figure, list[plt.Axes]]:
    """A figure of ``ncols`` axes side by side on the constrained layout, the axes as a list."""
    fig, axes = plt.subplots(1, ncols, layout="constrained", **kwargs)
    return fig, list(np.atleast_1d(axes))


def legend_below(fig: Figure, handles: Sequence[Artist] | None = None) -> None:
    """The book's key: one per figure, centred below every axes, so it covers no data. Without
    ``handles``, every labelled artist of the figure's axes, each label once. The figure is put
    on the constrained layout, which makes room for the key."""
    if handles is None:
        found: dict[str, Artist] = {}
        for ax in fig.axes:
            for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                found.setdefault(label, handle)
        handles, labels = list(found.values()), list(found)
    else:
        labels = [str(handle.get_label()) for handle in handles]
    if not handles:
        return
    if not isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine):
        fig.set_layout_engine("constrained")
    widest = max(len(label) for label in labels) + 6  # the handle and the gap beside it
    ncol = max(1, min(len(labels), int(fig.get_figwidth() * LEGEND_CHARS_PER_INCH) // widest))
    fig.legend(handles, labels, loc="outside lower center", ncol=ncol, fontsize=LEGEND_FONTSIZE)


def request_timeline(
    results: Result | Mapping[str, Result], title: str | None = None, max_requests: int = 64
) -> Figure:
    """One bar per request: waiting (arrived, not yet sent), to first token (server queue and
    prefill), decode (first to last token). Several labelled results get one panel each, side by
    side on a shared time axis."""
    panels = {results.name: results} if isinstance(results, Result) else dict(results)
    longest = max(min(len(r.records), max_requests) for r in panels.values())
    marks: dict[str, Artist] = {}
    with style():
        fig, axes = figure_row(
            len(panels),
            sharex=True,
            figsize=(
                8.0 if len(panels) == 1 else 5.0 * len(panels),
                max(2.5, 0.18 * longest + 1.2) + 0.6 * (len(panels) > 1),
            ),
        )
        for ax, (label, result) in zip(axes, panels.items(), strict=True):
            frame = (
                result.requests.sort_values("queued_s").head(max_requests).reset_index(drop=True)
            )
            y = np.arange(len(frame))
            parts = [
                ("waiting", frame["queued_s"], frame["waiting_s"]),
                ("prefill", frame["sent_s"], frame["ttft_s"]),
                ("decode", frame["first_token_s"], frame["decode_s"]),
            ]
            for name, start, width in parts:
                ax.barh(y, width.fillna(0), left=start.fillna(0), height=0.8, color=COLORS[name])
            failed = ~frame["ok"].astype(bool)
            if failed.any():
                marks["failed"] = ax.scatter(
                    frame.loc[failed, "closed_s"],
                    y[failed],
                    marker="x",
                    color=COLORS["marker"],
                    label="failed",
                    zorder=3,
                )
            ax.invert_yaxis()
            ax.set_xlabel("time since the run started (s)")
            ax.set_ylabel("request")
            if len(panels) > 1:
                ax.set_title(label, loc="left", fontsize=10, fontweight="normal")
        legend_below(
            fig,
            [
                Patch(color=COLORS["waiting"], label="waiting to be sent"),
                Patch(color=COLORS["prefill"], label="sent → first token (queue + prefill)"),
                Patch(color=COLORS["decode"], label="decode"),
                *marks.values(),
            ],
        )
        heading = title or f"{next(iter(panels))}: where each request spent its time"
        if len(panels) == 1:
            axes[0].set_title(heading)
        else:
            fig.suptitle(heading, fontweight="bold")
    return fig


def concurrency_curves(
    sweep: pd.DataFrame, title: str | None = None, x: str = "concurrency"
) -> Figure:
    """Aggregate output tok/s (whole run, and steady state when the frame has it) and per-user
    tok/s against concurrency (a ``sweep_*`` frame)."""
    for column in (x, OUTPUT_TOK_S, USER_TOK_S):
        if column not in sweep:
            raise ValueError(f"the sweep frame has no {column!r} column")
    with style():
        fig, (left, right) = figure_row(2, figsize=(10.0, 4.0))
        if STEADY_OUTPUT_TOK_S in sweep:
            left.plot(
                sweep[x],
                sweep[STEADY_OUTPUT_TOK_S],
                "o-",
                color=COLORS["decode"],
                label="steady state (every user decoding)",
            )
            left.plot(
                sweep[x], sweep[OUTPUT_TOK_S], "s--", color=COLORS["waiting"], label="whole run"
            )
        else:
            left.plot(
                sweep[x],
                sweep[OUTPUT_TOK_S],
                "o-",
                color=COLORS["decode"],
                label="all users together",
            )
        left.set_ylabel("aggregate output (tokens/s)")
        right.plot(sweep[x], sweep[USER_TOK_S], "o-", color=COLORS["prefill"], label="each user")
        right.set_ylabel("speed each user sees (tokens/s)")
        for ax in (left, right):
            ax.set_xlabel("concurrent users" if x == "concurrency" else "arrival rate (req/s)")
            if x == "concurrency":
                ax.set_xscale("log", base=2)
                ax.set_xticks(sweep[x], [str(v) for v in sweep[x]])
            ax.set_ylim(bottom=0)
        fig.suptitle(title or "Throughput and per-user speed against load", fontweight="bold")
        legend_below(fig)
    return fig


def throughput_over_time(
    results: Result | Mapping[str, Result], title: str | None = None, bin_s: float = 0.5
) -> Figure:
    """Output tokens per second in bins of ``bin_s`` over each run, with the run's steady
    window (every user decoding) shaded and its steady throughput drawn across it."""
    if isinstance(results, Result):
        results = {results.name: results}
    with style():
        fig, (ax,) = figure_row()
        for color, (label, result) in zip(SERIES_COLORS * 4, results.items(), strict=False):
            times = result.tokens.loc[
                result.tokens["request"].isin(result.requests.query("role == 'user'")["request"]),
                "t_s",
            ].to_numpy()
            if not times.size:
                continue
            edges = np.arange(0.0, times.max() + bin_s, bin_s)
            counts, _ = np.histogram(times, bins=edges)
            ax.step(edges[:-1], counts / bin_s, where="post", color=color, label=label)
            window = result.steady_window()
            if window is not None:  # a dashed line across the window, not a band: runs overlap
                steady = result.summary()[STEADY_OUTPUT_TOK_S]
                ax.hlines(
                    steady,
                    *window,
                    colors=color,
                    linestyles="--",
                    linewidth=2.5,
                    label=f"{label}: steady {steady:.0f} tok/s, while every user decodes",
                )
        _finish(
            fig,
            ax,
            "time since the run started (s)",
            "output tokens per second",
            title or "Output rate over the run; dashed: while every user decodes",
        )
    return fig


def _finish(fig: Figure, ax: Axes, xlabel: str, ylabel: str, title: str) -> None:
    """The book's finish for a one-panel rate or time plot: labelled axes from zero, the key
    below, the finding as the title."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.set_title(title)
    legend_below(fig)


def step_time_fit(
    batch: Sequence[float],
    step_ms: Sequence[float],
    fixed_ms: float,
    per_sequence_ms: float,
    title: str | None = None,
    weight_read_ms: float | None = None,
) -> Figure:
    """Measured decoding-step times against batch size, with the fitted line a + b·batch and,
    when given, the time one read of all weights takes at the measured bandwidth."""
    sizes = np.asarray(batch, dtype=float)
    with style():
        fig, (ax,) = figure_row()
        ax.plot(sizes, step_ms, "o", color=COLORS["decode"], label="measured step")
        line = np.linspace(0, sizes.max(), 100)
        ax.plot(
            line,
            fixed_ms + per_sequence_ms * line,
            "-",
            color=COLORS["prefill"],
            label=f"fit: {fixed_ms:.1f} ms + {per_sequence_ms:.2f} ms × batch",
        )
        ax.axhline(
            fixed_ms,
            color=COLORS["waiting"],
            linestyle=":",
            label="fixed part (shared by the batch)",
        )
        if weight_read_ms is not None:
            ax.axhline(
                weight_read_ms,
                color=COLORS["marker"],
                linestyle="--",
                label=f"one read of the weights ({weight_read_ms:.1f} ms)",
            )
        _finish(
            fig,
            ax,
            "sequences decoding together (batch)",
            "time of one decoding step (ms)",
            title or "Decoding-step time against batch size",
        )
    return fig


def step_lines(
    lines: Mapping[str, tuple[Sequence[float], Sequence[float], float, float]], title: str
) -> Figure:
    """Several engines' decoding-step times against batch size, each with its fitted line:
    ``lines`` maps an engine to (batches, step times in ms, fixed ms, ms per sequence)."""
    with style():
        fig, (ax,) = figure_row()
        for (engine, (batch, step_ms, fixed_ms, per_sequence_ms)), color in zip(
            lines.items(), SERIES_COLORS, strict=False
        ):
            sizes = np.asarray(batch, dtype=float)
            ax.plot(sizes, step_ms, "o", color=color, label=f"{engine}, measured")
            line = np.linspace(0, sizes.max(), 100)
            ax.plot(
                line,
                fixed_ms + per_sequence_ms * line,
                "-",
                color=color,
                alpha=0.6,
                label=f"{engine}: {fixed_ms:.1f} ms + {per_sequence_ms:.2f} ms × batch",
            )
        _finish(
            fig, ax, "sequences decoding together (batch)", "time of one decoding step (ms)", title
        )
    return fig


def slot_timeline(result: Result, slots: int, title: str | None = None) -> Figure:
    """One row per batch slot: which request held it when (to first token, then decode), and
    the idle time in between shaded — where a wave waits for its slowest member."""
    records = result.user_records()
    assigned = metrics.assign_slots(records, slots)
    ends = [r.end for r in records if r.ok]
    run_end = max(ends) if ends else 0.0
    with style():
        fig, (ax,) = figure_row(figsize=(8.0, max(2.5, 0.28 * slots + 1.2)))
        ax.barh(range(slots), run_end, color=COLORS["marker"], alpha=0.15, height=0.8)
        for record, slot in zip(records, assigned, strict=True):
            if slot < 0 or not record.ok:
                continue
            ax.barh(
                slot,
                record.first_token - record.sent,
                left=record.sent,
                height=0.8,
                color=COLORS["prefill"],
            )
            ax.barh(
                slot,
                record.end - record.first_token,
                left=record.first_token,
                height=0.8,
                color=COLORS["decode"],
                edgecolor="white",
                linewidth=0.5,
            )
        ax.set_ylim(slots - 0.5, -0.5)  # slot 0 on top, and no tick past the last slot
        ax.set_xlabel("time since the run started (s)")
        ax.set_ylabel("batch slot")
        legend_below(
            fig,
            [
                Patch(color=COLORS["prefill"], label="sent → first token"),
                Patch(color=COLORS["decode"], label="decoding a request"),
                Patch(color=COLORS["marker"], alpha=0.15, label="idle slot"),
            ],
        )
        share = metrics.idle_slot_share(records, slots)
        ax.set_title(title or f"{result.name}: slots idle {share:.0%} of the time")
    return fig


# A gap this short is no step: tokens that reached the client in one read, whose gap is the
# client's own timing (about 0.1 ms here), not the server's. The log axis would stretch it.
ARRIVED_TOGETHER_MS = 1.0


def itl_over_time(
    results: Result | Mapping[str, Result],
    title: str | None = None,
    role: Role = INTERFERER,
    role_name: str | None = None,
) -> Figure:
    """Every user token gap against when it ended; the ``role`` request's arrival marked and
    its wait for a first token shaded (called ``role_name`` in the legend). Several labelled
    results get one panel each, stacked on shared axes."""
    name = role_name or role
    panels = {results.name: results} if isinstance(results, Result) else dict(results)
    with style():
        fig, grid = plt.subplots(
            len(panels),
            1,
            figsize=(9.0, max(4.0, 2.8 * len(panels))),
            sharex=True,
            sharey=True,
            squeeze=False,
            layout="constrained",
        )
        axes = list(grid[:, 0])
        for ax, (label, result) in zip(axes, panels.items(), strict=True):
            tokens = result.tokens.merge(result.requests[["request", "role"]], on="request")
            users = tokens[(tokens["role"] == USER) & tokens["itl_s"].notna()]
            together = users["itl_s"] * 1000 < ARRIVED_TOGETHER_MS
            drawn = "a user's token gap" + (
                f" ({int(together.sum())} under {ARRIVED_TOGETHER_MS:g} ms, tokens that arrived "
                "together, not drawn)"
                if together.any()
                else ""
            )
            ax.scatter(
                users.loc[~together, "t_s"],
                users.loc[~together, "itl_s"] * 1000,
                s=6,
                alpha=0.6,
                color=COLORS["decode"],
                label=drawn,
            )
            for number, (sent, first) in enumerate(result.windows(role)):
                ax.axvline(
                    sent,
                    color=COLORS["marker"],
                    linestyle="--",
                    label=f"{name} arrives" if number == 0 else None,
                )
                ax.axvspan(
                    sent,
                    first,
                    color=COLORS["prefill"],
                    alpha=0.2,
                    label=f"{name} waits for its first token" if number == 0 else None,
                )
            ax.set_yscale("log")
            ax.set_ylabel("inter-token latency (ms)")
            if len(panels) > 1:
                ax.set_title(label, loc="left", fontsize=10, fontweight="normal")
        axes[-1].set_xlabel("time since the run started (s)")
        legend_below(fig)
        heading = title or "Token gaps of decoding users over time"
        if len(panels) == 1:
            axes[0].set_title(heading)
        else:
            fig.suptitle(heading, fontweight="bold")
    return fig


def kv_usage(result: Result, title: str | None = None) -> Figure:
    """KV-cache usage (%) over time, with running and waiting requests."""
    server = result.server
    if server.empty:
        raise ValueError("this result has no /metrics samples (metrics_interval was None?)")
    with style():
        fig, (ax,) = figure_row()
        ax.plot(
            server["t_s"],
            server["kv_cache_usage"] * 100,
            "o-",
            color=COLORS["decode"],
            label="KV cache used",
        )
        ax.set_xlabel("time since the run started (s)")
        ax.set_ylabel("KV cache used (%)")
        ax.set_ylim(bottom=0)
        requests = ax.twinx()
        requests.step(
            server["t_s"], server["running"], where="post", color=COLORS["second"], label="running"
        )
        requests.step(
            server["t_s"], server["waiting"], where="post", color=COLORS["prefill"], label="waiting"
        )
        requests.set_ylabel("requests")
        requests.set_ylim(bottom=0)
        requests.grid(False)
        legend_below(fig)
        ax.set_title(title or "KV-cache usage over the run")
    return fig


def queue_over_time(results: Mapping[str, Result], title: str | None = None) -> Figure:
    """Requests waiting in the server (its own ``/metrics`` count) over each run, one line per
    labelled run: a queue that keeps growing while requests arrive is a rate past the knee."""
    with style():
        fig, (ax,) = figure_row()
        for color, (label, result) in zip(SERIES_COLORS * 4, results.items(), strict=False):
            server = result.server
            if server.empty:
                raise ValueError(f"{label}: no /metrics samples (metrics_interval was None?)")
            ax.step(server["t_s"], server["waiting"], where="post", color=color, label=label)
        _finish(
            fig,
            ax,
            "time since the run started (s)",
            "requests waiting in the server",
            title or "The server's queue over each run",
        )
    return fig


def tenant_spread(
    spreads: Mapping[str, Sequence[pd.DataFrame]], title: str | None = None
) -> Figure:
    """Requests of each tenant by the replica that served them, one panel per routing policy and
    one bar per tenant and run, a run's bars side by side under their tenant (``spreads``:
    policy -> each run's frame, a row per tenant, a column per replica)."""
    with style():
        fig, axes = figure_row(len(spreads), sharey=True, figsize=(8.0, 3.4))
        for ax, (policy, runs) in zip(axes, spreads.items(), strict=True):
            width = 1.0 / (len(runs) + 1)
            for run, spread in enumerate(runs):
                places = np.arange(len(spread)) + (run - (len(runs) - 1) / 2) * width
                bottom = np.zeros(len(spread))
                for column, color in zip(spread.columns, SERIES_COLORS, strict=False):
                    ax.bar(
                        places,
                        spread[column],
                        width=width * 0.9,
                        bottom=bottom,
                        color=color,
                        label=column if run == 0 else None,
                    )
                    bottom += spread[column].to_numpy()
            ax.set_xticks(np.arange(len(runs[0])), [f"tenant {t}" for t in runs[0].index])
            ax.set_title(f"{policy} (a bar per run)", fontsize=10, fontweight="normal")
            ax.set_xlabel("tenant")
        axes[0].set_ylabel("requests served in a run (count)")
        legend_below(fig)
        fig.suptitle(title or "Which replica served each tenant's requests", fontweight="bold")
    return fig


def failure_timeline(
    rows: pd.DataFrame, killed_s: float, noticed_s: float, title: str | None = None
) -> Figure:
    """Each request's latency by when it was sent, failures marked at the bottom, with the kill
    and the moment the router counted the replica down (``rows``: sent_s, ok, latency_s)."""
    with style():
        fig, (ax,) = figure_row()
        done, failed = rows[rows["ok"]], rows[~rows["ok"]]
        ax.scatter(
            done["sent_s"], done["latency_s"], color=COLORS["decode"], s=18, label="answered"
        )
        ax.scatter(
            failed["sent_s"],
            np.zeros(len(failed)),
            color=COLORS["marker"],
            marker="x",
            s=40,
            label="failed",
        )
        ax.axvline(killed_s, color=COLORS["marker"], linestyle="--", label="replica killed")
        if np.isfinite(noticed_s):
            ax.axvline(
                noticed_s, color=COLORS["second"], linestyle=":", label="router counts it down"
            )
        _finish(
            fig,
            ax,
            "request sent (s after the start)",
            "sent to last token (s)",
            title or "A replica dies mid-run",
        )
    return fig


def setup_bars(table: pd.DataFrame, title: str | None = None) -> Figure:
    """Output throughput and median time per token of each setup (``table``: setup,
    output tok/s, TPOT p50 (ms))."""
    with style():
        fig, (left, right) = figure_row(2, figsize=(8.0, 3.4))
        colors = SERIES_COLORS[: len(table)]
        # Each setup's name on short lines, so three fit under a panel half the figure wide.
        names = [
            "\n".join(textwrap.wrap(str(setup), SETUP_LABEL_CHARS)) for setup in table["setup"]
        ]
        left.bar(names, table["output tok/s"], color=colors)
        left.set_ylabel("output (tok/s)")
        right.bar(names, table["TPOT p50 (ms)"], color=colors)
        right.set_ylabel("time per output token, median (ms)")
        for ax in (left, right):
            ax.tick_params(axis="x", labelsize=8)
        fig.suptitle(title or "Two copies against one server", fontweight="bold")
    return fig
