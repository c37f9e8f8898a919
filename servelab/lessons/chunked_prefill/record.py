"""Chapter 06's findings as one result record: the figures the grader reads, by declared name
(``servelab.results.record_results``)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from servelab.bench.prefill import PrefillFit
from servelab.lessons.chunked_prefill.chapter import CHAPTER, ChunkedPrefillFigures
from servelab.lessons.chunking.sizing import BudgetPlan


@dataclass(frozen=True)
class ChunkingRecord:
    """The prefill fit, the chunked server's budget plan and the comparison's two rows:
    ``first`` the one-step budget's, ``second`` the chunked one's."""

    prefill: PrefillFit
    plan: BudgetPlan
    first: pd.Series
    second: pd.Series

    chapter = CHAPTER.id

    def figures(self) -> ChunkedPrefillFigures:
        """Chapter 06's figures."""
        prefill, plan, first, second = self.prefill, self.plan, self.first, self.second
        return ChunkedPrefillFigures(
            prefill_tok_s=prefill.tok_s,
            step_budget_tokens=plan.budget,
            chunks=plan.chunks,
            longest_pause_ms_one_step=first["users_longest_gap_ms"],
            longest_pause_ms_chunked=second["users_longest_gap_ms"],
            itl_ms_p50_one_step=first["users_itl_ms_p50"],
            itl_ms_p99_one_step=first["users_itl_ms_p99"],
            itl_ms_p99_chunked=second["users_itl_ms_p99"],
            document_ttft_s_one_step=first["document_ttft_s"],
            document_ttft_s_chunked=second["document_ttft_s"],
        )
