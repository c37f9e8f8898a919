"""Chapter 07's findings as one result record: the figures the grader reads, by declared name
(``servelab.results.record_results``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from servelab.lessons.deployments.chapter import CHAPTER
from servelab.lessons.deployments.metrics_findings import MetricsFindings
from servelab.lessons.deployments.slot_rate import SlotRate
from servelab.lessons.deployments.sweep_findings import RateSweepFindings


@dataclass(frozen=True)
class DeploymentsRecord:
    """The two settings' rate sweeps (``interactive``, ``batch``: one row per rate) and what
    they found, the metrics run's findings and the rate the slots predict."""

    sweeps: RateSweepFindings
    interactive: pd.DataFrame
    batch: pd.DataFrame
    found_metrics: MetricsFindings
    slot_rate: SlotRate

    chapter = CHAPTER.id

    def figures(self) -> Mapping[str, float]:
        """Each declared figure of chapter 07, by name (one of each sweep column per rate)."""
        sweeps, interactive, batch = self.sweeps, self.interactive, self.batch
        found_metrics, slot_rate = self.found_metrics, self.slot_rate
        return {
            "peak_tok_s_interactive": sweeps.small.peak,
            "peak_tok_s_batch": sweeps.large.peak,
            **{f"ttft_ms_p99_interactive_at_{int(rate)}": v
               for rate, v in zip(interactive["rate"], interactive["ttft_ms_p99"], strict=True)},
            **{f"ttft_ms_p99_batch_at_{int(rate)}": v
               for rate, v in zip(batch["rate"], batch["ttft_ms_p99"], strict=True)},
            **{f"goodput_req_s_interactive_at_{int(rate)}": v
               for rate, v in zip(interactive["rate"], interactive["goodput_req_s"],
                                  strict=True)},
            **{f"goodput_req_s_batch_at_{int(rate)}": v
               for rate, v in zip(batch["rate"], batch["goodput_req_s"], strict=True)},
            "little_in_flight": found_metrics.little_in_flight,
            "engine_in_flight": found_metrics.engine_in_flight,
            "slot_rate_req_s": slot_rate.rate,
        }
