"""Chapter 05's one GPU against two (``tensor_parallel_size``), found once;
``the_dials.tp_words.tensor_parallel_text`` words it."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared, compare
from servelab.lessons.the_dials.thresholds import CHANGED

TP_SPREADS = ("one_user_tok_s", "many_users_output_tok_s")


@dataclass(frozen=True)
class TensorParallelFindings:
    """The same server on one GPU (``*_one``) and split over two (``*_split``): one user's
    speed (tok/s) and the output with ``users`` users at once (tok/s), as spreads over each
    server's repeats, and the KV cache (tokens) each server reported."""

    users: int
    alone_one: Spread
    alone_split: Spread
    crowd_one: Spread
    crowd_split: Spread
    cache_one: int
    cache_split: int

    @classmethod
    def from_table(cls, table: pd.DataFrame, users: int) -> TensorParallelFindings:
        """From a frame indexed by ``tensor_parallel_size`` (1 and 2) with ``TP_SPREADS`` as
        spreads (``spread_table`` of the runs, one row per run) and ``kv_cache_tokens``."""
        rows = dict(table.iterrows())
        one, split = rows[1], rows[2]
        alone, crowd = TP_SPREADS
        return cls(
            users=users,
            alone_one=Spread.in_row(one, alone),
            alone_split=Spread.in_row(split, alone),
            crowd_one=Spread.in_row(one, crowd),
            crowd_split=Spread.in_row(split, crowd),
            cache_one=int(one["kv_cache_tokens"]),
            cache_split=int(split["kv_cache_tokens"]),
        )

    @property
    def runs(self) -> int:
        """How many times each load ran on each server (the fewest, where they differ)."""
        return min(
            spread.n
            for spread in (self.alone_one, self.alone_split, self.crowd_one, self.crowd_split)
        )

    @property
    def repeated(self) -> bool:
        """Each load ran more than once on each server, so each figure has a range."""
        return self.runs > 1

    @property
    def alone_moved(self) -> Compared:
        """One user's speed split over two GPUs against on one: rose is faster."""
        return compare(self.alone_split, self.alone_one, CHANGED)

    @property
    def crowd_moved(self) -> Compared:
        """The output with ``users`` users split over two GPUs against on one."""
        return compare(self.crowd_split, self.crowd_one, CHANGED)

    @property
    def cache_ratio(self) -> float:
        return self.cache_split / self.cache_one

    @property
    def more_cache(self) -> bool:
        """The split server's cache held more than ``CHANGED`` more tokens. A start's count
        does not vary between runs, so no range is weighed."""
        return self.cache_split > (1 + CHANGED) * self.cache_one
