"""Chapter 09's findings as one result record: the figures the grader reads, by declared name
(``servelab.results.record_results``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from servelab.lessons.past_one_machine.chapter import CHAPTER, PastOneMachineFigures
from servelab.lessons.past_one_machine.failures import Failures
from servelab.lessons.past_one_machine.findings import CopiesFindings, RoutingFindings


@dataclass(frozen=True)
class RoutingRecord:
    """The two routing policies' runs (round robin first, cache-aware second), the outages and
    the copies against one server (and against tensor parallelism, where it ran)."""

    routed: RoutingFindings
    failures: Failures
    copied: CopiesFindings

    chapter = CHAPTER.id

    def figures(self) -> PastOneMachineFigures:
        """Chapter 09's figures, the medians over the runs; NaN for
        tensor parallelism that did not run, for warm passes that did not, and for a router that
        never counted the dead replica down."""
        routed, failures, copied = self.routed, self.failures, self.copied
        warm, detection = routed.warm_ttft_ms_p50, failures.detection_s
        return PastOneMachineFigures(
            hit_rate_round_robin=routed.hit_rate[0].median,
            hit_rate_cache_aware=routed.hit_rate[1].median,
            kept_together_round_robin=routed.kept_together[0].median,
            kept_together_cache_aware=routed.kept_together[1].median,
            prompt_tokens_computed_round_robin=routed.computed_tokens[0].median,
            prompt_tokens_computed_cache_aware=routed.computed_tokens[1].median,
            ttft_ms_p50_round_robin=routed.ttft_ms_p50[0].median,
            ttft_ms_p50_cache_aware=routed.ttft_ms_p50[1].median,
            ttft_ms_p99_round_robin=routed.ttft_ms_p99[0].median,
            ttft_ms_p99_cache_aware=routed.ttft_ms_p99[1].median,
            ttft_ms_p50_warm_round_robin=warm[0].median if warm else math.nan,
            ttft_ms_p50_warm_cache_aware=warm[1].median if warm else math.nan,
            failed_requests=failures.failed.median,
            detection_s=detection.median if detection else math.nan,
            retries=failures.retries.median,
            output_tok_s_replicas=copied.copies.output_tok_s.median,
            output_tok_s_one_server=copied.one.output_tok_s.median,
            output_tok_s_tensor_parallel=(
                copied.split.output_tok_s.median if copied.split else math.nan
            ),
            tpot_ms_p50_replicas=copied.copies.tpot_ms_p50.median,
            tpot_ms_p50_one_server=copied.one.tpot_ms_p50.median,
            tpot_ms_p50_tensor_parallel=(
                copied.split.tpot_ms_p50.median if copied.split else math.nan
            ),
        )
