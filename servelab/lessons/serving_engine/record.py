"""Chapter 01's findings as one result record: the figures the grader reads, by declared name
(``servelab.results.record_results``)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from servelab.lessons.batching.findings import BatchFindings
from servelab.lessons.serving_engine.chapter import CHAPTER, ServingEngineFigures


@dataclass(frozen=True)
class ServingEngineRecord:
    """Chapter 01: the sweep's rows at one user and at the most (``one``, ``many``), what
    batching found, and the tokens generated as the client and the server counted them."""

    one: pd.Series
    many: pd.Series
    found: BatchFindings
    client_tokens: float
    server_tokens: float

    chapter = CHAPTER.id

    def figures(self) -> ServingEngineFigures:
        """Chapter 01's figures."""
        one, many, found = self.one, self.many, self.found
        return ServingEngineFigures(
            steady_tok_s_one_user=one["steady_output_tok_s"],
            steady_tok_s_all_users=many["steady_output_tok_s"],
            user_tok_s_all_users=many["steady_user_tok_s"],
            batching_gain=found.gain,
            share_kept=found.kept,
            ttft_ms_p50_one_user=one["ttft_ms_p50"],
            ttft_ms_p50_all_users=many["ttft_ms_p50"],
            generated_tokens_client=self.client_tokens,
            generated_tokens_server=self.server_tokens,
        )
