"""Chapter 07's mixed traffic: two deployments side by side against one server for everything.

``MixedFindings`` is built from the set-ups' table of
``servelab.lessons.rate_sweeps``; ``mixed_words`` words it.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared, compare
from servelab.lessons.rate_sweeps import PAIR


@dataclass(frozen=True)
class MixedFindings:
    """Two deployments side by side against one server for everything (the best of the single
    servers for each part): the chat users' p99 first token (ms) and the job's time (s), each
    over the repeats. ``split`` says what each of the pair had, the chat server's share first;
    None: the device could not be divided, and there is no pair. ``single`` says what the one
    server had (on two GPUs, one of them: the pair then had twice its hardware). ``gpus``: the
    GPUs the device has (0 on the CPU); with two or more the pair had a card each against the one
    server's one card, and the verdict says so (issue #63 item 4)."""

    split: tuple[str, str] | None
    single: str
    pair_chat: Spread | None
    pair_job: Spread | None
    best_chat: Spread
    best_job: Spread
    gpus: int = 0

    @classmethod
    def of(
        cls, table: pd.DataFrame, split: tuple[str, str] | None, single: str, gpus: int = 0
    ) -> MixedFindings:
        """From ``setup_row``'s rows by setup: ``PAIR`` (when the device was split) and one row
        per single server."""
        singles = table.drop(index=PAIR, errors="ignore")
        best_chat = singles.sort_values("chat_ttft_ms_p99", kind="stable").iloc[0]
        best_job = singles.sort_values("batch_job_s", kind="stable").iloc[0]
        pair = table.loc[[PAIR]].iloc[0] if split is not None else None
        return cls(
            split=split,
            single=single,
            gpus=gpus,
            pair_chat=None if pair is None else Spread.in_row(pair, "chat_ttft_ms_p99"),
            pair_job=None if pair is None else Spread.in_row(pair, "batch_job_s"),
            best_chat=Spread.in_row(best_chat, "chat_ttft_ms_p99"),
            best_job=Spread.in_row(best_job, "batch_job_s"),
        )

    @property
    def more_hardware(self) -> bool:
        """The pair had a GPU each and the one server one of them: twice its hardware."""
        return self.split is not None and self.gpus >= 2

    @property
    def chat(self) -> Compared | None:
        return None if self.pair_chat is None else compare(self.pair_chat, self.best_chat)

    @property
    def job(self) -> Compared | None:
        return None if self.pair_job is None else compare(self.pair_job, self.best_job)

    @property
    def chat_runs(self) -> int:
        """The fewer servings of the pair and the best single server behind the chat figure;
        0 without a pair."""
        return 0 if self.pair_chat is None else min(self.pair_chat.n, self.best_chat.n)

    @property
    def job_runs(self) -> int:
        return 0 if self.pair_job is None else min(self.pair_job.n, self.best_job.n)
