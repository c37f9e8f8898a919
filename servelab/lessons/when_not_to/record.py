"""Chapter 08's findings as one result record: the figures the grader reads, by declared name
(``servelab.results.record_results``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

import pandas as pd

from servelab.lessons.when_not_to.chapter import CHAPTER, WhenNotToFigures
from servelab.lessons.when_not_to.findings import LLAMA_F16, LLAMA_Q4, LLAMA_SERVER, VLLM
from servelab.lessons.when_not_to.slots import SlotFindings


@dataclass(frozen=True)
class SingleUserRecord:
    """The comparison's rows for one user and for many (``one_rows``, ``many_rows``: one row per
    engine), the slot findings, each engine's start in seconds and the model files (``files``:
    Q4_1 first, F16 second)."""

    one_rows: pd.DataFrame
    many_rows: pd.DataFrame
    slot_found: SlotFindings
    start_s: Mapping[str, float]
    files: pd.DataFrame

    chapter = CHAPTER.id

    def figures(self) -> WhenNotToFigures:
        """Chapter 08's figures."""
        one, many, slot_found, start_s, files = (
            self.one_rows,
            self.many_rows,
            self.slot_found,
            self.start_s,
            self.files,
        )
        return WhenNotToFigures(
            user_tok_s_alone_llama_q4=cast(float, one.loc[LLAMA_Q4, "user_tok_s"]),
            user_tok_s_alone_llama_f16=cast(float, one.loc[LLAMA_F16, "user_tok_s"]),
            user_tok_s_alone_llama_server=cast(float, one.loc[LLAMA_SERVER, "user_tok_s"]),
            user_tok_s_alone_vllm=cast(float, one.loc[VLLM, "user_tok_s"]),
            output_tok_s_many_llama_q4=cast(float, many.loc[LLAMA_Q4, "output_tok_s"]),
            output_tok_s_many_llama_server=cast(float, many.loc[LLAMA_SERVER, "output_tok_s"]),
            output_tok_s_many_vllm=cast(float, many.loc[VLLM, "output_tok_s"]),
            ttft_s_p99_many_llama_q4=cast(float, many.loc[LLAMA_Q4, "ttft_s_p99"]),
            ttft_s_p99_many_llama_server=cast(float, many.loc[LLAMA_SERVER, "ttft_s_p99"]),
            ttft_s_p99_many_vllm=cast(float, many.loc[VLLM, "ttft_s_p99"]),
            step_gain_llama_server=slot_found.steps[LLAMA_SERVER].gain,
            step_gain_vllm=slot_found.steps[VLLM].gain,
            start_s_llama_q4=start_s[LLAMA_Q4],
            start_s_llama_server=start_s[LLAMA_SERVER],
            start_s_vllm=start_s[VLLM],
            bits_per_weight_q4=files["bits_per_weight"].iloc[0],
            bits_per_weight_f16=files["bits_per_weight"].iloc[1],
        )
