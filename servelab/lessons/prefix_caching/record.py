"""Chapter 04's findings as one result record: the figures the grader reads, by declared name
(``servelab.results.record_results``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from servelab.lessons.prefix.reuse_findings import LoadReuseFindings, ReuseFindings
from servelab.lessons.prefix_caching.chapter import CHAPTER, PrefixCachingFigures
from servelab.lessons.prefix_caching.sharing import SharingExpectation


@dataclass(frozen=True)
class PrefixRecord:
    """The reuse probe, the load with caching on and off (``typical_on``, ``typical_off``: the
    median of each column over its runs), each run's peak blocks by name and the blocks
    expected."""

    reuse: ReuseFindings
    load: LoadReuseFindings
    typical_on: pd.Series
    typical_off: pd.Series
    peaks: Mapping[str, float]
    expect: SharingExpectation

    chapter = CHAPTER.id

    def figures(self) -> PrefixCachingFigures:
        """Chapter 04's figures."""
        reuse, load, peaks, expect = self.reuse, self.load, self.peaks, self.expect
        typical_on, typical_off = self.typical_on, self.typical_off
        return PrefixCachingFigures(
            prompt_tokens_computed_cached=reuse.later_on,
            prompt_tokens_computed_uncached=reuse.later_off,
            ttft_ms_p50_cached=load.on.median,
            ttft_ms_p50_uncached=load.off.median,
            request_per_s_cached=typical_on["request_per_s"],
            request_per_s_uncached=typical_off["request_per_s"],
            hit_rate_cached=load.hit_rate,
            peak_blocks_samples_cached=peaks["n4_on"],
            peak_blocks_identical_cached=peaks["same_on"],
            peak_blocks_different_cached=peaks["different_on"],
            peak_blocks_samples_uncached=peaks["n4_off"],
            expected_blocks_shared=expect.shared,
            expected_blocks_unshared=expect.unshared,
        )
