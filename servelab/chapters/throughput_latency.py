"""Chapter 07: mixed traffic — a chat stream and a batch job — and how each part fared.

``MixedTraffic`` follows the workload protocol of ``servelab.bench.workloads``: chat requests
(role ``"user"``, so that ``Result.summary()`` describes them) arrive as a Poisson process while
a batch job (role ``"batch"``) is submitted all at once at the start. ``parts`` picks which of the
two are sent, so that the very same requests can be split over two deployments.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from servelab.bench import metrics
from servelab.bench.client import PlannedRequest
from servelab.bench.prompts import PromptSource
from servelab.bench.workloads import SEED_STRIDE, Session, drive_arrivals, poisson_arrivals

CHAT, BATCH = "user", "batch"
PARTS = {"both": (CHAT, BATCH), "chat": (CHAT,), "batch": (BATCH,)}


@dataclass(frozen=True)
class MixedTraffic:
    """``chat_requests`` chat requests at ``chat_rate`` req/s beside a job of ``batch_requests``
    longer requests all submitted at time 0."""

    chat_rate: float = 2.0
    chat_requests: int = 10
    chat_input_tokens: int = 64
    chat_max_tokens: int = 32
    batch_requests: int = 12
    batch_input_tokens: int = 128
    batch_max_tokens: int = 96
    parts: str = "both"
    seed: int = 0

    def __post_init__(self) -> None:
        if self.parts not in PARTS:
            raise ValueError(f"parts must be one of {sorted(PARTS)}, not {self.parts!r}")
        for name in ("chat_rate", "chat_requests", "chat_input_tokens", "chat_max_tokens",
                     "batch_requests", "batch_input_tokens", "batch_max_tokens"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, not {getattr(self, name)!r}")

    @property
    def name(self) -> str:
        return {"both": "chat + batch job", "chat": "chat only", "batch": "batch job only"}[
            self.parts]

    def plan(self, prompts: PromptSource) -> list[PlannedRequest]:
        plan = []
        arrivals = poisson_arrivals(self.chat_rate, self.chat_requests, self.seed)
        for i, arrival in enumerate(arrivals):
            plan.append(PlannedRequest(
                index=i, user=i, role=CHAT, arrival=float(arrival),
                max_tokens=self.chat_max_tokens,
                prompt=prompts.text(self.chat_input_tokens, self.seed * SEED_STRIDE + i)))
        for j in range(self.batch_requests):
            index = self.chat_requests + j
            plan.append(PlannedRequest(
                index=index, user=index, role=BATCH, arrival=0.0,
                max_tokens=self.batch_max_tokens,
                prompt=prompts.text(self.batch_input_tokens, self.seed * SEED_STRIDE + index)))
        wanted = PARTS[self.parts]
        return [p for p in plan if p.role in wanted]

    async def drive(self, session: Session, plan: list[PlannedRequest]) -> None:
        await drive_arrivals(session, plan)


def part_metrics(result: object, slo: dict[str, float]) -> dict[str, float]:
    """What chat users felt (TTFT p99, TPOT p50, share within ``slo``) and how long the batch
    job took (its last token, s after the start) in one run; NaN for a part not sent."""
    chat = [r for r in result.records if r.planned.role == CHAT and r.ok]
    batch = [r for r in result.records if r.planned.role == BATCH and r.ok]
    row = {"chat_ttft_ms_p99": math.nan, "chat_tpot_ms_p50": math.nan,
           "chat_within_slo": math.nan, "batch_job_s": math.nan, "batch_output_tok_s": math.nan}
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


def setups_table(rows: dict[str, dict[str, float]]) -> pd.DataFrame:
    """One row per way of serving the mixed traffic."""
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("setup")


def plot_sweeps(curves: dict[str, pd.DataFrame], ttft_slo_ms: float, title: str):
    """TTFT p99, output throughput and goodput against the arrival rate, one line per config."""
    import matplotlib.pyplot as plt

    from servelab.plots import SERIES_COLORS, style

    with style():
        figure, (ttft, throughput, goodput) = plt.subplots(1, 3, figsize=(12, 3.8))
        for color, (label, frame) in zip(SERIES_COLORS, curves.items(), strict=False):
            ttft.plot(frame["rate"], frame["ttft_ms_p99"], marker="o", color=color, label=label)
            throughput.plot(frame["rate"], frame["output_tok_s"], marker="o", color=color)
            goodput.plot(frame["rate"], frame["goodput_req_s"], marker="o", color=color)
        ttft.axhline(ttft_slo_ms, color="grey", linestyle="--", label=f"SLO {ttft_slo_ms:.0f} ms")
        rates = sorted({rate for frame in curves.values() for rate in frame["rate"]})
        for ax, ylabel in ((ttft, "time to first token, p99 (ms)"),
                           (throughput, "output throughput (tok/s)"),
                           (goodput, "goodput (requests/s within SLO)")):
            ax.set_xlabel("arrival rate (requests/s)")
            ax.set_ylabel(ylabel)
            ax.set_xscale("log", base=2)
            ax.set_xticks(rates, [f"{rate:g}" for rate in rates])
            ax.set_ylim(bottom=0)
        ttft.legend(fontsize=8)
        figure.suptitle(title)
        figure.tight_layout()
    return figure
