"""Chapter 05's one GPU against two: every verdict of ``TensorParallelFindings``, from made-up
runs of the two servers (every branch of ``tensor_parallel_text``: test_tp_words.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from servelab.bench.spread import spread_table
from servelab.lessons.compare import Compared
from servelab.lessons.the_dials.tp_findings import TP_SPREADS, TensorParallelFindings

USERS = 16
# One GPU's runs: one user's speed (tok/s) and the output with USERS users (tok/s).
ALONE = [60.0, 61.0, 62.0]
CROWD = [600.0, 610.0, 620.0]
# The split server's runs against those, one list per verdict.
ALONE_SPLIT = {
    Compared.LOWER: [50.0, 51.0, 52.0],
    Compared.HIGHER: [70.0, 71.0, 72.0],
    Compared.ALIKE: [64.0, 65.0, 66.0],  # 7 % faster: within CHANGED
    Compared.UNTOLD: [55.0, 70.0, 75.0],  # 15 % faster, but one run inside one GPU's range
}
CROWD_SPLIT = {
    Compared.HIGHER: [800.0, 810.0, 820.0],
    Compared.LOWER: [500.0, 505.0, 510.0],
    Compared.ALIKE: [600.0, 615.0, 630.0],
    Compared.UNTOLD: [590.0, 700.0, 720.0],
}


def found(
    alone_split: list[float] = ALONE_SPLIT[Compared.ALIKE],
    crowd_split: list[float] = CROWD_SPLIT[Compared.ALIKE],
    cache: tuple[int, int] = (10_000, 25_000),
    alone: list[float] = ALONE,
    crowd: list[float] = CROWD,
) -> TensorParallelFindings:
    """The findings of a frame of runs, one row per run, as the page collects them."""
    rows = [
        {
            "tensor_parallel_size": size,
            "one_user_tok_s": one,
            "many_users_output_tok_s": many,
            "kv_cache_tokens": tokens,
        }
        for size, ones, manys, tokens in (
            (1, alone, crowd, cache[0]),
            (2, alone_split, crowd_split, cache[1]),
        )
        for one, many in zip(ones, manys, strict=True)
    ]
    table = spread_table(pd.DataFrame(rows), "tensor_parallel_size", TP_SPREADS)
    return TensorParallelFindings.from_table(table.set_index("tensor_parallel_size"), USERS)


def test_each_size_is_read_from_its_own_runs() -> None:
    split = found(ALONE_SPLIT[Compared.LOWER], CROWD_SPLIT[Compared.HIGHER])
    assert (split.alone_one.median, split.alone_split.median) == (61.0, 51.0)
    assert (split.crowd_one.low, split.crowd_split.high) == (600.0, 820.0)
    assert (split.cache_one, split.cache_split, split.users, split.runs) == (10_000, 25_000, 16, 3)


@pytest.mark.parametrize("moved", list(Compared))
def test_one_users_speed_split_against_one_gpu(moved: Compared) -> None:
    assert found(alone_split=ALONE_SPLIT[moved]).alone_moved is moved


@pytest.mark.parametrize("moved", list(Compared))
def test_the_crowds_output_split_against_one_gpu(moved: Compared) -> None:
    assert found(crowd_split=CROWD_SPLIT[moved]).crowd_moved is moved


def test_one_run_a_side_cannot_tell() -> None:
    once = found([75.0], [900.0], alone=[61.0], crowd=[610.0])
    assert (once.runs, once.alone_moved, once.crowd_moved) == (1, Compared.UNTOLD, Compared.UNTOLD)


def test_the_split_holds_more_cache_past_changed() -> None:
    assert found(cache=(10_000, 25_000)).more_cache
    assert found().cache_ratio == 2.5
    assert not found(cache=(10_000, 10_500)).more_cache  # 5 % more
    assert not found(cache=(10_000, 9_000)).more_cache
