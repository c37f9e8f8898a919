"""Chapter 07: two rate sweeps and mixed traffic — a chat stream and a batch job.

Every comparison rests on repeated runs: ``sweep_repeated`` serves each rate ``sizes.repeats``
times, the rates in turn within each pass, and ``rate_table`` gives each rate's median and range
(:class:`~servelab.bench.spread.Spread`); the mix is served as often on each deployment, and
``setup_row`` gives its spreads. ``*_view`` is what the page prints: each median with its range.
Chapter 07 reads every run in its steady middle (``steady_frame``, ``steady_table``: the first and
last tenth of its requests left out, :mod:`servelab.bench.middle`); chapter 10 reads the middle
figures its rows already carry.
``run_together`` drives two servers at once (their shares of the device from
``servelab.engines.placement``), so "two deployments" is measured as it would run.

``sweep_findings.RateSweepFindings`` (the sweeps) and ``mixed_findings.MixedFindings`` (the mix)
hold the numbers and named verdicts; ``sweep_words``, ``mixed_words`` and ``words`` word them. The
traffic, ``MixedTraffic``, is a workload of ``servelab.bench``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Unpack

import numpy as np
import pandas as pd

from servelab import tables
from servelab.bench import metrics, open_loop, run
from servelab.bench.frames import Result
from servelab.bench.middle import REQUEST_PER_S_MID, SLO_ATTAINMENT_MID, sent_mid
from servelab.bench.options import RunOptions
from servelab.bench.spread import Spread, spread_table
from servelab.bench.workloads import BATCH, CHAT, Workload
from servelab.engines.running import RunningServer


def part_metrics(result: Result, slo: dict[str, float]) -> dict[str, float]:
    """What chat users felt (TTFT p99, TPOT p50, share within ``slo``) and how long the batch
    job took (its last token, s after the start) in one run; NaN for a part not sent."""
    chat = [r for r in result.records if r.planned.role == CHAT and r.ok]
    batch = [r for r in result.records if r.planned.role == BATCH and r.ok]
    row = {
        "chat_ttft_ms_p99": math.nan,
        "chat_tpot_ms_p50": math.nan,
        "chat_within_slo": math.nan,
        "batch_job_s": math.nan,
        "batch_output_tok_s": math.nan,
    }
    if chat:
        row["chat_ttft_ms_p99"] = float(np.percentile([r.ttft for r in chat], 99)) * 1000
        tpots = [t for t in map(metrics.tpot, chat) if t is not None]
        row["chat_tpot_ms_p50"] = float(np.median(tpots)) * 1000 if tpots else math.nan
        row["chat_within_slo"] = float(np.mean([metrics.meets_slo(r, slo) for r in chat]))
    if batch:
        job_s = max(r.end for r in batch)
        row["batch_job_s"] = job_s
        row["batch_output_tok_s"] = sum(r.output_tokens or 0 for r in batch) / job_s
    return row


@dataclass(frozen=True)
class RateRun:
    """One open-loop run of a repeated rate sweep: its pass, its rate, the requests sent at it,
    each answer's tokens, and what it measured."""

    repeat: int
    rate: float
    requests: int
    max_tokens: int
    result: Result


def rate_runs(
    server: RunningServer,
    rates: Sequence[float],
    requests: Sequence[int],
    repeats: int,
    input_tokens: int,
    max_tokens: int,
    **options: Unpack[RunOptions],
) -> list[RateRun]:
    """``repeats`` passes over ``rates``, ``requests[i]`` Poisson arrivals at ``rates[i]`` req/s.
    Within a pass the rates are taken in turn, so a slow spell of a shared machine falls on
    every rate rather than on one. Pass ``k`` draws its arrivals from seed ``k``: the same for
    every server."""
    runs = []
    for repeat in range(repeats):
        for rate, count in zip(rates, requests, strict=True):
            result = open_loop(
                server,
                rate,
                count,
                input_tokens=input_tokens,
                max_tokens=max_tokens,
                seed=repeat,
                **options,
            )
            runs.append(RateRun(repeat, rate, count, max_tokens, result))
    return runs


def runs_frame(runs: Sequence[RateRun]) -> pd.DataFrame:
    """One row per run of :func:`rate_runs`, with its ``repeat``, ``rate`` and ``requests``.

    Each row's ``goodput_req_s`` is counted over the arrivals: the share within the SLO × the
    offered rate. vLLM's benchmark divides by the run's duration instead, which for a handful of
    random arrivals can be shorter than they were planned to take: its goodput then reads above
    the rate offered. ``offered_tok_s`` is the rate × each answer's tokens."""
    rows = []
    for made in runs:
        row = made.result.row()
        rows.append(
            {
                "repeat": made.repeat,
                "rate": made.rate,
                "requests": made.requests,
                **row,
                "goodput_req_s": float(row.get("slo_attainment", math.nan)) * made.rate,
                "offered_tok_s": made.rate * made.max_tokens,
            }
        )
    return pd.DataFrame(rows)


def sweep_repeated(
    server: RunningServer,
    rates: Sequence[float],
    requests: Sequence[int],
    repeats: int,
    input_tokens: int,
    max_tokens: int,
    **options: Unpack[RunOptions],
) -> pd.DataFrame:
    """:func:`rate_runs` as :func:`runs_frame`'s rows."""
    return runs_frame(
        rate_runs(server, rates, requests, repeats, input_tokens, max_tokens, **options)
    )


# What a rate's row keeps of its runs: a spread (median, lowest, highest, count) or the median.
SPREAD_KEYS = (
    metrics.TTFT_MS_P99,
    "tpot_ms_p50",
    metrics.OUTPUT_TOK_S,
    "slo_attainment",
    "max_in_flight",
)
MEDIAN_KEYS = ("requests", "goodput_req_s", "waiting_max", "offered_tok_s")


def rate_table(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per rate of ``sweep_repeated``'s runs: ``SPREAD_KEYS`` as spreads (the median
    under the key itself, then ``_low``, ``_high``, ``_n``) and ``MEDIAN_KEYS`` as medians;
    ``beyond_peak`` marks the rates whose offered tokens a second exceed the most the server
    produced at any rate of the sweep (median), which it cannot keep up with for long."""
    table = spread_table(runs, "rate", SPREAD_KEYS, MEDIAN_KEYS)
    table["beyond_peak"] = table["offered_tok_s"] > table[metrics.OUTPUT_TOK_S].max()
    return table


def rate_view(table: pd.DataFrame) -> pd.DataFrame:
    """A sweep's rate table as the page prints it, one row per rate, the requests sent at each
    first (a p99 of fewer than ``thresholds.TAIL_REQUESTS`` is about their slowest)."""
    view = tables.spread_view(
        table.set_index("rate"),
        {
            metrics.TTFT_MS_P99: 0,
            "tpot_ms_p50": 0,
            metrics.OUTPUT_TOK_S: 0,
            "slo_attainment": 2,
            "max_in_flight": 0,
        },
        {"requests": 0, "goodput_req_s": 1, "waiting_max": 0, "offered_tok_s": 0},
    )
    view["beyond_peak"] = ["yes" if beyond else "no" for beyond in table["beyond_peak"]]
    return view[
        ["requests", "offered_tok_s", "beyond_peak", *SPREAD_KEYS, "goodput_req_s", "waiting_max"]
    ]


SERVED = "served_req_s"  # requests finished a second in a run's middle


def steady_figures(made: RateRun) -> dict[str, float]:
    """One run's figures from its steady middle (:mod:`servelab.bench.middle`): the requests
    sent in the middle of the arrivals (their p99 first token, median time per token, share
    within the SLO and goodput, that share × the rate) and the middle of the completions (the
    requests and output tokens finished a second). NaN where a run had too few for a middle."""
    row = made.result.summary()
    middle = [r for r in sent_mid(made.result.user_records()) if r.ok]
    tpots = [t for t in map(metrics.tpot, middle) if t is not None]
    served = float(row.get(REQUEST_PER_S_MID, math.nan))
    tokens = float(np.mean([r.output_tokens or 0 for r in middle])) if middle else math.nan
    attained = float(row.get(SLO_ATTAINMENT_MID, math.nan))
    return {
        metrics.TTFT_MS_P99: (
            float(np.percentile([r.ttft for r in middle], 99)) * 1000 if middle else math.nan
        ),
        "tpot_ms_p50": float(np.median(tpots)) * 1000 if tpots else math.nan,
        SERVED: served,
        metrics.OUTPUT_TOK_S: served * tokens,
        "slo_attainment": attained,
        "goodput_req_s": attained * made.rate,
    }


def steady_frame(runs: Sequence[RateRun]) -> pd.DataFrame:
    """:func:`runs_frame`'s rows with every figure of :func:`steady_figures` read from the
    run's steady middle in place of the whole run's (the most requests in flight and waiting
    stay the whole run's: the busiest moment)."""
    frame = runs_frame(runs)
    steady = pd.DataFrame([steady_figures(made) for made in runs], index=frame.index)
    frame[list(steady.columns)] = steady
    return frame


def steady_table(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`rate_table` of :func:`steady_frame`'s rows, with the requests finished a second
    in the middle as a spread too."""
    table = rate_table(frame)
    for key, value in spread_table(frame, "rate", (SERVED,), ()).items():
        if key != "rate":
            table[key] = value.to_numpy()
    return table


def steady_view(table: pd.DataFrame) -> pd.DataFrame:
    """A steady table as the page prints it: :func:`rate_view` with the requests finished a
    second in the middle beside the rate."""
    view = rate_view(table)
    served = tables.spread_view(table.set_index("rate"), {SERVED: 2}, {})
    view.insert(3, SERVED, served[SERVED])
    return view


def setups_table(rows: dict[str, dict[str, float]]) -> pd.DataFrame:
    """One row per way of serving the mixed traffic."""
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("setup")


def setups_view(table: pd.DataFrame) -> pd.DataFrame:
    """The mixed-traffic table as the page prints it."""
    return tables.spread_view(
        table,
        {"chat_ttft_ms_p99": 0, "batch_job_s": 1},
        {"chat_tpot_ms_p50": 0, "chat_within_slo": 2, "batch_output_tok_s": 0},
    )


def run_together(
    jobs: Mapping[str, tuple[RunningServer, Workload]], **options: Unpack[RunOptions]
) -> dict[str, Result]:
    """Run each ``label: (server, workload)`` at the same time, one thread each; the results by
    label."""
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = {
            label: pool.submit(run, server, workload, **options)
            for label, (server, workload) in jobs.items()
        }
        return {label: future.result() for label, future in futures.items()}


PAIR = "two deployments, side by side"  # the set-ups' row of the pair


def setup_row(
    chat_runs: Sequence[Result], job_runs: Sequence[Result], slo: dict[str, float]
) -> dict[str, float]:
    """One way of serving the mixed traffic, repeated: the chat users' p99 first token and the
    job's time as the median, lowest, highest and count over the runs
    (:class:`~servelab.bench.spread.Spread`), the rest as medians. The chat part is read from
    ``chat_runs`` and the job from ``job_runs`` (the same runs on one server)."""
    chats = [part_metrics(result, slo) for result in chat_runs]
    jobs = [part_metrics(result, slo) for result in job_runs]
    return {
        **Spread.of(row["chat_ttft_ms_p99"] for row in chats).columns("chat_ttft_ms_p99"),
        **Spread.of(row["batch_job_s"] for row in jobs).columns("batch_job_s"),
        "chat_tpot_ms_p50": float(np.nanmedian([row["chat_tpot_ms_p50"] for row in chats])),
        "chat_within_slo": float(np.nanmedian([row["chat_within_slo"] for row in chats])),
        "batch_output_tok_s": float(np.median([row["batch_output_tok_s"] for row in jobs])),
    }
