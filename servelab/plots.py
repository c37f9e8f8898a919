"""The book's plots, in one style. Each function returns a matplotlib Figure.

Every plot takes ``title=``: chapters should pass a title that states what the reader sees
(e.g. "32 users get 12x the tokens of one, each at half the speed"). Axes carry units.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import contextmanager

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from servelab.bench.frames import Result

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


@contextmanager
def style():
    """The book's matplotlib style, for plots of your own: ``with plots.style(): ...``."""
    with plt.rc_context(STYLE):
        yield
        # A notebook's first figure switches on interactive mode inside this context; leaving it
        # would switch it off again and later figures would never be shown.
        interactive = plt.isinteractive()
    plt.interactive(interactive)


def _figure(ncols: int = 1, **kwargs: object) -> tuple[Figure, list[plt.Axes]]:
    fig, axes = plt.subplots(1, ncols, **kwargs)
    return fig, list(np.atleast_1d(axes))


def request_timeline(result: Result, title: str | None = None,
                     max_requests: int = 64) -> Figure:
    """One bar per request: waiting (arrived, not yet sent), to first token (server queue and
    prefill), decode (first to last token)."""
    frame = result.requests.sort_values("queued_s").head(max_requests).reset_index(drop=True)
    with style():
        fig, (ax,) = _figure(figsize=(8.0, max(2.5, 0.18 * len(frame) + 1.2)))
        y = np.arange(len(frame))
        parts = [
            ("waiting", frame["queued_s"], frame["waiting_s"]),
            ("prefill", frame["sent_s"], frame["ttft_s"]),
            ("decode", frame["first_token_s"], frame["decode_s"]),
        ]
        for name, start, width in parts:
            ax.barh(y, width.fillna(0), left=start.fillna(0), height=0.8, color=COLORS[name])
        failed = ~frame["ok"]
        if failed.any():
            ax.scatter(frame.loc[failed, "closed_s"], y[failed], marker="x",
                       color=COLORS["marker"], label="failed", zorder=3)
        ax.invert_yaxis()
        ax.set_xlabel("time since the run started (s)")
        ax.set_ylabel("request")
        handles = [
            Patch(color=COLORS["waiting"], label="waiting to be sent"),
            Patch(color=COLORS["prefill"], label="sent → first token (queue + prefill)"),
            Patch(color=COLORS["decode"], label="decode"),
        ]
        ax.legend(handles=handles, loc="lower right", fontsize=8)
        ax.set_title(title or f"{result.name}: where each request spent its time")
        fig.tight_layout()
    return fig


def concurrency_curves(sweep: pd.DataFrame, title: str | None = None,
                       x: str = "concurrency") -> Figure:
    """Aggregate output tok/s and per-user tok/s against concurrency (a ``sweep_*`` frame)."""
    for column in (x, "output_tok_s", "user_tok_s"):
        if column not in sweep:
            raise ValueError(f"the sweep frame has no {column!r} column")
    with style():
        fig, (left, right) = _figure(2, figsize=(10.0, 4.0))
        left.plot(sweep[x], sweep["output_tok_s"], "o-", color=COLORS["decode"])
        left.set_ylabel("aggregate output (tokens/s)")
        right.plot(sweep[x], sweep["user_tok_s"], "o-", color=COLORS["prefill"])
        right.set_ylabel("speed each user sees (tokens/s)")
        for ax in (left, right):
            ax.set_xlabel("concurrent users" if x == "concurrency" else "arrival rate (req/s)")
            if x == "concurrency":
                ax.set_xscale("log", base=2)
                ax.set_xticks(sweep[x], [str(v) for v in sweep[x]])
            ax.set_ylim(bottom=0)
        fig.suptitle(title or "Throughput and per-user speed against load", fontweight="bold")
        fig.tight_layout()
    return fig


def latency_distributions(results: Result | Mapping[str, Result],
                          title: str | None = None) -> Figure:
    """TTFT and ITL distributions (cumulative), one line per labelled result."""
    if isinstance(results, Result):
        results = {results.name: results}
    with style():
        fig, (left, right) = _figure(2, figsize=(10.0, 4.0))
        for color, (label, result) in zip(SERIES_COLORS * 4, results.items(), strict=False):
            frame = result.requests[result.requests["ok"] & (result.requests["role"] == "user")]
            tokens = result.tokens
            itls = tokens.loc[tokens["request"].isin(frame["request"]), "itl_s"].dropna()
            _ecdf(left, frame["ttft_s"] * 1000, label, color)
            _ecdf(right, itls * 1000, label, color)
        left.set_xlabel("time to first token (ms)")
        right.set_xlabel("inter-token latency (ms)")
        right.set_xscale("log")
        for ax in (left, right):
            ax.set_ylabel("fraction of requests" if ax is left else "fraction of token gaps")
            ax.set_ylim(0, 1.02)
        left.legend(fontsize=8)
        fig.suptitle(title or "Latency distributions", fontweight="bold")
        fig.tight_layout()
    return fig


def _ecdf(ax: plt.Axes, values: Sequence[float], label: str, color: str) -> None:
    values = np.sort(np.asarray(values, dtype=float))
    if values.size:
        ax.step(values, np.arange(1, values.size + 1) / values.size, where="post",
                label=label, color=color)


def itl_over_time(result: Result, title: str | None = None, role: str = "interferer") -> Figure:
    """Every user token gap against when it ended; the ``role`` request's arrival marked and
    its wait for a first token shaded."""
    tokens = result.tokens.merge(result.requests[["request", "role"]], on="request")
    users = tokens[(tokens["role"] == "user") & tokens["itl_s"].notna()]
    with style():
        fig, (ax,) = _figure()
        ax.scatter(users["t_s"], users["itl_s"] * 1000, s=6, alpha=0.6, color=COLORS["decode"],
                   label="a user's token gap")
        window = result.window(role)
        if window is not None:
            sent, first = window
            ax.axvline(sent, color=COLORS["marker"], linestyle="--",
                       label=f"{role} arrives")
            ax.axvspan(sent, first, color=COLORS["prefill"], alpha=0.2,
                       label=f"{role} waits for its first token")
        ax.set_yscale("log")
        ax.set_xlabel("time since the run started (s)")
        ax.set_ylabel("inter-token latency (ms)")
        ax.legend(fontsize=8, loc="upper left")
        ax.set_title(title or "Token gaps of decoding users over time")
        fig.tight_layout()
    return fig


def kv_usage(result: Result, title: str | None = None) -> Figure:
    """KV-cache usage (%) over time, with running and waiting requests."""
    server = result.server
    if server.empty:
        raise ValueError("this result has no /metrics samples (metrics_interval was None?)")
    with style():
        fig, (ax,) = _figure()
        ax.plot(server["t_s"], server["kv_cache_usage"] * 100, "o-", color=COLORS["decode"],
                label="KV cache used")
        ax.set_xlabel("time since the run started (s)")
        ax.set_ylabel("KV cache used (%)")
        ax.set_ylim(bottom=0)
        requests = ax.twinx()
        requests.step(server["t_s"], server["running"], where="post", color=COLORS["second"],
                      label="running")
        requests.step(server["t_s"], server["waiting"], where="post", color=COLORS["prefill"],
                      label="waiting")
        requests.set_ylabel("requests")
        requests.set_ylim(bottom=0)
        requests.grid(False)
        lines = ax.get_legend_handles_labels()
        more = requests.get_legend_handles_labels()
        ax.legend(lines[0] + more[0], lines[1] + more[1], fontsize=8, loc="upper right")
        ax.set_title(title or "KV-cache usage over the run")
        fig.tight_layout()
    return fig
