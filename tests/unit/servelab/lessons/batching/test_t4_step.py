"""servelab.lessons.batching.t4_step: the book's stated T4 step, as shares of the datasheet's."""

from __future__ import annotations

import pytest

from servelab.lessons.batching.roofline import OVERHEAD_UP_TO
from servelab.lessons.batching.t4_step import ENGINE_PER_SEQUENCE, ENGINE_SHARED, t4_engine_shares
from servelab.lessons.continuous_batching.published import published_rooflines


@pytest.mark.parametrize("end", [0, 1])
def test_the_shares_raise_the_datasheet_step_to_the_stated_one(end: int) -> None:
    t4 = published_rooflines(users=1)[0]
    step = t4.with_engine(*t4_engine_shares(end))
    assert step.fixed_ms == pytest.approx(
        t4.weight_read_ms * (1 + OVERHEAD_UP_TO) * ENGINE_SHARED[end]
    )
    assert step.per_sequence_ms == pytest.approx(
        t4.per_sequence_ms * (1 + OVERHEAD_UP_TO) * ENGINE_PER_SEQUENCE[end]
    )


def test_the_high_end_is_the_slower_step() -> None:
    low, high = t4_engine_shares(0), t4_engine_shares(1)
    assert high[0] > low[0] >= OVERHEAD_UP_TO and high[1] > low[1] >= OVERHEAD_UP_TO
