"""Chapter 00's findings as one result record: the figures the grader reads, by declared name
(``servelab.results.record_results``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import pandas as pd

from servelab.bench.spread import Spread
from servelab.chapter import per_level
from servelab.lessons.batching.findings import BatchFindings
from servelab.lessons.chunking.findings import TradeFindings
from servelab.lessons.prefix.reuse_findings import ReuseFindings
from servelab.lessons.serving_many_users.chapter import CHAPTER, ServingManyUsersFigures


@dataclass(frozen=True)
class OverviewRecord:
    """The concurrency sweep (one row per level) and what batching found, the reuse probe, the
    document read in one piece against sliced, and the step budget it was sliced to."""

    sweep: pd.DataFrame
    found: BatchFindings
    reused: ReuseFindings
    chunks: TradeFindings
    budget: int

    chapter = CHAPTER.id

    def figures(self) -> ServingManyUsersFigures:
        """Chapter 00's figures (two of them per level)."""
        sweep, found, reused, chunks = self.sweep, self.found, self.reused, self.chunks
        return ServingManyUsersFigures(
            total_tok_s_at=per_level(sweep["concurrency"], sweep["output_tok_s"]),
            user_tok_s_at=per_level(sweep["concurrency"], sweep["user_tok_s"]),
            batching_gain=found.gain,
            share_kept=found.kept,
            prompt_tokens_computed_with_reuse=reused.later_on,
            prompt_tokens_computed_without_reuse=reused.later_off,
            ttft_ms_with_reuse=cast(Spread, reused.ttft_on).median,  # chapter 00 times both
            ttft_ms_without_reuse=cast(Spread, reused.ttft_off).median,
            longest_pause_ms_one_piece=chunks.whole.pause.median,
            longest_pause_ms_sliced=chunks.chunked.pause.median,
            document_ttft_s_one_piece=chunks.whole.wait.median,
            document_ttft_s_sliced=chunks.chunked.wait.median,
            step_budget_tokens=self.budget,
        )
