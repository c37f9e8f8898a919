"""Chapter 03's findings as one result record: the figures the grader reads, by declared name
(``servelab.results.record_results``)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from servelab.lessons.paged_attention.chapter import CHAPTER, PagedAttentionFigures
from servelab.lessons.paging.findings import PagingFindings, SqueezeFindings, TokenCost


@dataclass(frozen=True)
class PagingRecord:
    """What one token costs, the roomy cache's run (``busiest``: its fullest metrics sample) and
    the cramped one's."""

    cost: TokenCost
    paging: PagingFindings
    busiest: pd.Series
    squeeze: SqueezeFindings

    chapter = CHAPTER.id

    def figures(self) -> PagedAttentionFigures:
        """Chapter 03's figures."""
        cost, paging, busiest, squeeze = self.cost, self.paging, self.busiest, self.squeeze
        return PagedAttentionFigures(
            kv_bytes_per_token=cost.bytes_per_token,
            block_tokens=paging.fit.block,
            cache_tokens=paging.cache_tokens,
            requests_fit_reserved=paging.fit.reserved,
            requests_fit_paged=paging.fit.paged,
            running_max_roomy=paging.ran,
            kv_usage_peak_roomy=busiest["kv_cache_usage"],
            tokens_per_sequence_at_peak=paging.tokens_per_sequence,
            running_max_cramped=squeeze.running,
            waiting_max_cramped=squeeze.waiting,
            preemptions_cramped=squeeze.preemptions,
        )
