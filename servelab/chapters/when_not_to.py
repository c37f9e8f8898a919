"""Chapter 08: what two engines cost to set up, and how they serve one user and many.

``footprint_mb`` and ``folder_mb`` measure what each engine needs on disk; ``comparison`` puts
the runs of both engines side by side; ``plot_comparison`` draws the three numbers the guidance
rests on: the speed one user sees, the total throughput under many users, and how long those
users wait for a first token.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

MB = 1e6
COLUMNS = ["output_tok_s", "user_tok_s", "tokens_per_request", "ttft_s_p50", "ttft_s_p99",
           "e2e_s_p50", "max_in_flight", "completed", "failed"]


def footprint_mb(*distributions: str) -> float:
    """Megabytes the installed files of these distributions take (missing ones count 0)."""
    total = 0
    for name in distributions:
        try:
            files = importlib.metadata.distribution(name).files or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for file in files:
            path = Path(file.locate())
            if path.is_file():
                total += path.stat().st_size
    return total / MB


def folder_mb(path: str | Path) -> float:
    """Megabytes of one file, or of every file under a folder."""
    path = Path(path)
    if path.is_file():
        return path.stat().st_size / MB
    if not path.is_dir():
        raise FileNotFoundError(f"{path} does not exist")
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / MB


def comparison(results: Mapping[tuple[str, int], object]) -> pd.DataFrame:
    """One row per (engine, users) run: throughput, per-user speed and latencies in seconds."""
    rows = []
    for (engine, users), result in results.items():
        s = result.summary()
        done = result.requests[result.requests["ok"]]
        rows.append({
            "engine": engine, "users": users,
            "output_tok_s": s["output_tok_s"], "user_tok_s": s["user_tok_s"],
            "tokens_per_request": float(done["output_tokens"].mean()) if len(done) else 0.0,
            "ttft_s_p50": s["ttft_ms_p50"] / 1000, "ttft_s_p99": s["ttft_ms_p99"] / 1000,
            "e2e_s_p50": s["e2e_ms_p50"] / 1000, "max_in_flight": s["max_in_flight"],
            "completed": s["completed"], "failed": s["failed"],
        })
    if not rows:
        raise ValueError("no runs to compare")
    return pd.DataFrame(rows).set_index(["engine", "users"])[COLUMNS]


def plot_comparison(table: pd.DataFrame, many: int, title: str):
    """Three panels, one bar per engine: tok/s one user sees alone; total tok/s with ``many``
    users; and the median wait for a first token with ``many`` users."""
    import matplotlib.pyplot as plt

    from servelab.plots import SERIES_COLORS, style

    engines = list(table.index.get_level_values("engine").unique())
    panels = [
        (1, "user_tok_s", "1 user: speed it sees", "tokens/s"),
        (many, "output_tok_s", f"{many} users: total", "tokens/s"),
        (many, "ttft_s_p50", f"{many} users: median wait for 1st token", "seconds"),
    ]
    with style():
        figure, axes = plt.subplots(1, len(panels), figsize=(10, 3.8))
        for ax, (users, column, label, unit) in zip(axes, panels, strict=True):
            values = [table.loc[(engine, users), column] for engine in engines]
            bars = ax.bar(engines, values, color=SERIES_COLORS[: len(engines)])
            ax.bar_label(bars, fmt="%.3g", fontsize=9)
            ax.set_title(label, fontsize=10, fontweight="normal")
            ax.set_ylabel(unit)
            ax.margins(y=0.15)
        figure.suptitle(title, fontsize=11, fontweight="bold")
        figure.tight_layout()
    return figure


def plot_timelines(results: Mapping[str, object], title: str):
    """One panel per engine, one bar per request of the same load: from its send to its first
    token (queue and prefill), then decode to its last token. Shared time axis."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    from servelab.plots import COLORS, style

    with style():
        figure, axes = plt.subplots(1, len(results), figsize=(10, 4.2), sharex=True,
                                    squeeze=False)
        for ax, (engine, result) in zip(axes[0], results.items(), strict=True):
            frame = result.requests.sort_values("sent_s").reset_index(drop=True)
            rows = range(len(frame))
            ax.barh(rows, frame["ttft_s"].fillna(0), left=frame["sent_s"], height=0.8,
                    color=COLORS["prefill"])
            ax.barh(rows, frame["decode_s"].fillna(0), left=frame["first_token_s"].fillna(0),
                    height=0.8, color=COLORS["decode"])
            ax.invert_yaxis()
            ax.set_title(engine, fontsize=10, fontweight="normal")
            ax.set_xlabel("time since the requests were sent (s)")
            ax.set_ylabel("request")
        axes[0][-1].legend(handles=[
            Patch(color=COLORS["prefill"], label="sent → first token (queue + prefill)"),
            Patch(color=COLORS["decode"], label="first → last token"),
        ], loc="lower right", fontsize=8)
        figure.suptitle(title, fontsize=11, fontweight="bold")
        figure.tight_layout()
    return figure
