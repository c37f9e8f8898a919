"""Figures that set runs side by side: one user and a crowd, reuse on and off, engines, dial
levels, configs across arrival rates, chunked prefill's budgets. Each takes the table its
chapter prints."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from servelab.bench.metrics import (
    OUTPUT_TOK_S,
    STEADY_OUTPUT_TOK_S,
    STEADY_USER_TOK_S,
    TTFT_MS_P99,
    USER_TOK_S,
)
from servelab.bench.spread import Spread
from servelab.plots import SERIES_COLORS, figure_row, legend_below, style

# An engine's name wraps past this many characters under its bar.
ENGINE_LABEL_CHARS = 8


def _medians_and_errors(spreads: Sequence[Spread]) -> tuple[list[float], list[list[float]]]:
    """The medians of ``spreads``, and their distances down to the lowest and up to the highest
    run, as matplotlib's ``xerr``/``yerr`` take them."""
    return (
        [spread.median for spread in spreads],
        [
            [spread.median - spread.low for spread in spreads],
            [spread.high - spread.median for spread in spreads],
        ],
    )


def crowd_bars(sweep: pd.DataFrame, title: str) -> Figure:
    """The steady total and the speed each user saw, one pair of bars per concurrency (rows of
    ``bench.sweep_table``), a line over each bar from the lowest to the highest run."""
    x = np.arange(len(sweep))
    with style():
        fig, (ax,) = figure_row(figsize=(7.0, 4.0))
        for offset, key, label, color in (
            (-0.2, STEADY_OUTPUT_TOK_S, "all users together", SERIES_COLORS[0]),
            (0.2, STEADY_USER_TOK_S, "each user", SERIES_COLORS[1]),
        ):
            medians, errors = _medians_and_errors(
                [Spread.in_row(row, key) for _, row in sweep.iterrows()]
            )
            ax.bar(x + offset, medians, width=0.4, color=color, label=label, yerr=errors, capsize=4)
        ax.set_xticks(x, [str(int(n)) for n in sweep["concurrency"]])
        ax.set_xlabel("concurrent users")
        ax.set_ylabel("output while every user decodes (tok/s)")
        ax.set_title(title)
        legend_below(fig)
    return fig


def reuse_bars(reuse: pd.DataFrame, control: pd.DataFrame, title: str) -> Figure:
    """Prompt tokens computed and time to first token, request by request, reuse on and off."""
    x = np.arange(len(reuse))
    with style():
        fig, axes = figure_row(2, figsize=(10.0, 3.8))
        for ax, column, label in (
            (axes[0], "computed", "prompt tokens computed (tokens)"),
            (axes[1], "ttft_ms", "time to first token (ms)"),
        ):
            ax.bar(x - 0.2, reuse[column], width=0.4, label="reuse on", color=SERIES_COLORS[0])
            ax.bar(x + 0.2, control[column], width=0.4, label="reuse off", color=SERIES_COLORS[1])
            ax.set_xticks(x, [str(n) for n in reuse["request"]])
            ax.set_xlabel("request, in the order sent")
            ax.set_ylabel(label)
        fig.suptitle(title, fontweight="bold")
        legend_below(fig)
    return fig


def _wrapped(name: str) -> str:
    """An engine's name on short lines, broken at spaces and hyphens, so four fit under a
    panel a third of the figure wide."""
    return "\n".join(textwrap.wrap(name, ENGINE_LABEL_CHARS, break_on_hyphens=True))


def engine_bars(table: pd.DataFrame, many: int, title: str) -> Figure:
    """Three panels, one bar per engine: tok/s one user sees alone; total tok/s with ``many``
    users; and the median wait for a first token with ``many`` users. Each bar is the median
    of its runs, with a line from the lowest to the highest where the table holds them. An
    engine the table lacks a load for has no bar in that panel."""
    engines = list(table.index.get_level_values("engine").unique())
    panels = [
        (1, USER_TOK_S, "1 user: speed it sees", "tokens/s"),
        (many, OUTPUT_TOK_S, f"{many} users: total", "tokens/s"),
        (many, "ttft_s_p50", f"{many} users: median wait for 1st token", "seconds"),
    ]
    with style():
        fig, axes = figure_row(len(panels), figsize=(10.0, 3.8))
        for ax, (users, column, label, unit) in zip(axes, panels, strict=True):
            ran = [engine for engine in engines if (engine, users) in table.index]
            values, errors = _medians_and_errors(
                [Spread.in_row(table.loc[(engine, users)], column) for engine in ran]
            )
            bars = ax.bar(
                [_wrapped(engine) for engine in ran],
                values,
                yerr=errors,
                capsize=4,
                color=[SERIES_COLORS[engines.index(engine)] for engine in ran],
            )
            ax.bar_label(bars, fmt="%.3g", fontsize=9)
            ax.tick_params(axis="x", labelsize=8)
            ax.set_title(label, fontsize=10, fontweight="normal")
            ax.set_ylabel(unit)
            ax.margins(y=0.15)
        fig.suptitle(title, fontweight="bold")
    return fig


def dial_sweep(sweep: pd.DataFrame, title: str) -> Figure:
    """Against output throughput, one point per ``max_num_seqs`` level (the frame's index):
    p99 from arrival to last token (left) and p99 time per output token once running (right),
    each the median of the sweep's passes with a bar from its lowest to its highest run where
    the frame holds them."""
    with style():
        fig, axes = figure_row(2, figsize=(10.0, 4.0))
        panels = (
            (axes[0], "latency_s_p99", "p99 arrival → last token (s)", SERIES_COLORS[1]),
            (axes[1], "tpot_ms_p99", "p99 time per output token, running (ms)", SERIES_COLORS[0]),
        )
        for ax, column, label, color in panels:
            rows = [row for _, row in sweep.iterrows()]
            x, xerr = _medians_and_errors([Spread.in_row(row, OUTPUT_TOK_S) for row in rows])
            y, yerr = _medians_and_errors([Spread.in_row(row, column) for row in rows])
            ax.errorbar(x, y, xerr=xerr, yerr=yerr, marker="o", capsize=3, color=color)
            for level, row in sweep.iterrows():
                ax.annotate(
                    f"{level} seq{'s' if str(level) != '1' else ''}",
                    (row[OUTPUT_TOK_S], row[column]),
                    textcoords="offset points",
                    xytext=(4, 6),
                    fontsize=8,
                )
            ax.set_xlabel("output throughput (tok/s)")
            ax.set_ylabel(label)
            ax.set_ylim(bottom=0)
        fig.suptitle(title, fontweight="bold")
    return fig


def caps_trade(
    curves: dict[str, pd.DataFrame], slo_ms: tuple[float, float], knee: float, title: str
) -> Figure:
    """What each cap buys and what it costs, side by side against the arrival rate: the output
    and the p99 first token (bought), the median time per output token (paid), one line per
    cap through the medians of its steady table, a bar over each rate's lowest to highest run.
    ``slo_ms`` is the (first-token, per-token) target, drawn in; ``knee`` the predicted rate
    the small cap's slots finish, a dotted line on every panel."""
    with style():
        fig, axes = figure_row(3, figsize=(12.0, 3.8))
        panels = (
            (OUTPUT_TOK_S, "buys: output", "output throughput (tok/s)", None),
            (
                TTFT_MS_P99,
                "buys: first token",
                "time to first token, p99 (ms)",
                ("first-token SLO", slo_ms[0]),
            ),
            (
                "tpot_ms_p50",
                "costs: each token",
                "time per output token, p50 (ms)",
                ("per-token SLO", slo_ms[1]),
            ),
        )
        for color, (label, frame) in zip(SERIES_COLORS, curves.items(), strict=False):
            for ax, (key, _, _, _) in zip(axes, panels, strict=True):
                median = frame[key]
                ax.errorbar(
                    frame["rate"],
                    median,
                    yerr=[median - frame[f"{key}_low"], frame[f"{key}_high"] - median],
                    marker="o",
                    capsize=4,
                    color=color,
                    label=label if key == OUTPUT_TOK_S else None,
                )
        rates = sorted({rate for frame in curves.values() for rate in frame["rate"]})
        for ax, (_, heading, ylabel, slo) in zip(axes, panels, strict=True):
            if slo is not None:
                ax.axhline(slo[1], color="grey", linestyle="--", label=f"{slo[0]} {slo[1]:,.0f} ms")
            ax.axvline(
                knee,
                color="grey",
                linestyle=":",
                label=f"predicted knee, small cap ({knee:.2f} req/s)" if ax is axes[0] else None,
            )
            ax.set_title(heading, fontsize=10)
            ax.set_xlabel("arrival rate (requests/s)")
            ax.set_ylabel(ylabel)
            ax.set_xscale("log", base=2)
            ax.set_xticks(rates, [f"{rate:.3g}" for rate in rates])
            ax.set_ylim(bottom=0)
        fig.suptitle(title, fontweight="bold")
        legend_below(fig)
    return fig


def chunking_trade(table: pd.DataFrame, title: str) -> Figure:
    """One point per budget: the users' longest pause against the document's own time to first
    token, each the median over its runs with bars from the lowest run to the highest. Lower is
    better on both axes; a budget cannot usually have both."""
    with style():
        fig, (ax,) = figure_row(figsize=(6.5, 4.0))
        for color, (label, row) in zip(SERIES_COLORS, table.iterrows(), strict=False):
            wait, xerr = _medians_and_errors([Spread.in_row(row, "document_ttft_s")])
            pause, yerr = _medians_and_errors([Spread.in_row(row, "users_longest_gap_ms")])
            ax.errorbar(
                wait,
                pause,
                xerr=xerr,
                yerr=yerr,
                fmt="o",
                markersize=8,
                capsize=4,
                color=color,
                label=label,
                zorder=3,
            )
        ax.set_xlabel("document's time to first token (s)")
        ax.set_ylabel("users' longest pause (ms)")
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        ax.set_title(title, fontsize=11)
        legend_below(fig)
    return fig
