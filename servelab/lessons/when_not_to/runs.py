"""Chapter 08's runs side by side: what each engine needs on disk (``footprint_mb``,
``folder_mb``) and one row per engine and load (``comparison``), each figure the median of its
runs with the compared ones' ranges (``servelab.plots.comparisons.engine_bars`` draws them).
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from servelab.bench.frames import Result
from servelab.bench.metrics import OUTPUT_TOK_S, TTFT_MS_P50, TTFT_MS_P99, USER_TOK_S
from servelab.bench.spread import spread_table
from servelab.tables import spread_view

MB = 1e6
COLUMNS = [
    OUTPUT_TOK_S,
    USER_TOK_S,
    "tokens_per_request",
    "ttft_s_p50",
    "ttft_s_p99",
    "e2e_s_p50",
    "max_in_flight",
    "completed",
    "failed",
]


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


SPREAD_COLUMNS = (USER_TOK_S, OUTPUT_TOK_S, "ttft_s_p50")  # compared, with ranges
# Decimals the page gives the other figures: counts none, a mean count of tokens one (the rest,
# seconds, two).
COLUMN_DIGITS = {"max_in_flight": 0, "completed": 0, "failed": 0, "tokens_per_request": 1}
IN_ORDER = (USER_TOK_S, OUTPUT_TOK_S)  # also kept run by run, as ``*_runs``, in run order


def _run_row(result: Result) -> dict[str, float]:
    s = result.summary()
    done = result.requests[result.requests["ok"]]
    return {
        OUTPUT_TOK_S: s[OUTPUT_TOK_S],
        USER_TOK_S: s[USER_TOK_S],
        "tokens_per_request": float(done["output_tokens"].mean()) if len(done) else 0.0,
        "ttft_s_p50": s[TTFT_MS_P50] / 1000,
        "ttft_s_p99": s[TTFT_MS_P99] / 1000,
        "e2e_s_p50": s["e2e_ms_p50"] / 1000,
        "max_in_flight": s["max_in_flight"],
        "completed": s["completed"],
        "failed": s["failed"],
    }


def comparison(results: Mapping[tuple[str, int], Sequence[Result]]) -> pd.DataFrame:
    """One row per (engine, users): throughput, per-user speed and latencies in seconds, each
    the median of that load's runs, beside ``SPREAD_COLUMNS`` their ranges (``Spread``
    columns), and for ``IN_ORDER`` every run's figure in the order it ran (``*_runs``)."""
    rows = []
    for (engine, users), runs in results.items():
        for result in runs:
            rows.append({"load": (engine, users), **_run_row(result)})
    if not rows:
        raise ValueError("no runs to compare")
    table = spread_table(pd.DataFrame(rows), "load", SPREAD_COLUMNS, medians=COLUMNS)
    for key in IN_ORDER:
        table[f"{key}_runs"] = pd.Series(
            [tuple(row[key] for row in rows if row["load"] == load) for load in table["load"]],
            index=table.index,
            dtype=object,
        )
    order = list(dict.fromkeys(row["load"] for row in rows))
    table.index = pd.MultiIndex.from_tuples(table.pop("load"), names=["engine", "users"])
    return table.loc[order]


def comparison_view(table: pd.DataFrame) -> pd.DataFrame:
    """What the page prints of ``comparison``: the compared figures as median (lowest–highest),
    the rest as numbers."""
    return spread_view(
        table,
        {USER_TOK_S: 1, OUTPUT_TOK_S: 1, "ttft_s_p50": 2},
        {key: COLUMN_DIGITS.get(key, 2) for key in COLUMNS if key not in SPREAD_COLUMNS},
    )
