"""Chapter 05's findings as one result record: the figures the grader reads, by declared name
(``servelab.results.record_results``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import pandas as pd

from servelab.chapter import per_level
from servelab.engines.vllm_server import Capacity
from servelab.lessons.the_dials.chapter import CHAPTER, TheDialsFigures
from servelab.lessons.the_dials.findings import ContextFindings


@dataclass(frozen=True)
class DialsRecord:
    """The ``max_num_seqs`` sweep's table (one row per level), the small cache's capacity, the
    context findings and the short requests' table by load (one row per load)."""

    sweep_table: pd.DataFrame
    small_capacity: Capacity
    context: ContextFindings
    by_load: pd.DataFrame

    chapter = CHAPTER.id

    def figures(self) -> TheDialsFigures:
        """Chapter 05's figures (one of each sweep column per level)."""
        sweep, small_capacity, context, by_load = (
            self.sweep_table,
            self.small_capacity,
            self.context,
            self.by_load,
        )
        return TheDialsFigures(
            output_tok_s_at=per_level(sweep.index, sweep["output_tok_s"]),
            tpot_ms_p99_at=per_level(sweep.index, sweep["tpot_ms_p99"]),
            latency_s_p99_at=per_level(sweep.index, sweep["latency_s_p99"]),
            small_cache_tokens=small_capacity.kv_cache_tokens,
            preemptions_short_alone=context.preemptions_alone.median,
            preemptions_beside_long=context.preemptions_mixed.median,
            ttft_ms_p99_short_alone=cast(float, by_load.loc["short requests alone", "ttft_ms_p99"]),
            ttft_ms_p99_beside_long=cast(float, by_load.loc["beside long ones", "ttft_ms_p99"]),
        )
