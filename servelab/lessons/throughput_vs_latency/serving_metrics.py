"""Chapter 07's opening: the serving metrics themselves, read off one run on this device.

TTFT, TPOT, ITL, E2E and goodput are defined once, in ``servelab.bench.metrics``, as vLLM's own
benchmark defines them. The page shows their percentiles beside the mean and the worst request
(``percentile_table``, here), Little's law held against the engine's own count of requests in
flight, and which part of the SLO each late request missed: ``metrics_findings.MetricsFindings``
holds those numbers and ``metrics_words`` words them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from servelab.bench.frames import Result
from servelab.bench.metrics import PERCENTILES

METRIC_NAMES = {
    "ttft": "time to first token",
    "tpot": "time per output token",
    "itl": "gap between tokens",
    "e2e": "whole request",
}


def percentile_table(result: Result, slo: Mapping[str, float]) -> pd.DataFrame:
    """One row per metric (ms): mean, p50, p90, p99 (from the run's summary), the worst one
    and the SLO limit where one was set."""
    summary, requests = result.summary(), result.requests
    done = requests[requests["ok"].astype(bool)]
    gaps = result.tokens.loc[result.tokens["request"].isin(done["request"]), "itl_s"]
    worst = {
        "ttft": done["ttft_s"].max(),
        "tpot": done["tpot_s"].max(),
        "e2e": done["e2e_s"].max(),
        "itl": gaps.max(),
    }
    rows = []
    for metric, label in METRIC_NAMES.items():
        row = {"metric": label, "mean (ms)": summary[f"{metric}_ms_mean"]}
        row |= {f"p{p} (ms)": summary[f"{metric}_ms_p{p}"] for p in PERCENTILES}
        row["worst (ms)"] = float(worst[metric]) * 1000.0
        row["SLO (ms)"] = float(slo.get(metric, math.nan))
        rows.append(row)
    return pd.DataFrame(rows).set_index("metric")
