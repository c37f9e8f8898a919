"""servelab.lessons.when_not_to.slots: what chapter 08 reads from llama-server's slots beside vLLM
(which verdict each story states: test_slots_words.py)."""

from __future__ import annotations

import pytest

from servelab.bench.frames import Result
from servelab.lessons.when_not_to.slots import PromptReuse, QueueWait, StepLine
from tests.support import evenly_timed

SERVER, VLLM = "llama-server Q4_1", "vLLM"


def _together(users: int, step_ms: float) -> Result:
    """``users`` requests decoding side by side, one token each per step of ``step_ms``."""
    end = 0.1 + 10 * step_ms / 1000
    return Result(
        workload=None,
        records=[evenly_timed(i, 0.0, 0.1, end) for i in range(users)],
        duration_s=end,
    )


def test_a_step_line_reads_each_levels_step_from_its_steady_output():
    line = StepLine.of({batch: [_together(batch, 10 + 2 * batch)] for batch in (1, 2, 4, 8)})
    assert line.step_ms == pytest.approx((12, 14, 18, 26))
    assert line.fit.fixed_ms == pytest.approx(10) and line.fit.per_sequence_ms == pytest.approx(2)
    assert line.growth == pytest.approx(26 / 12) and line.gain == pytest.approx(8 * 12 / 26)


def test_past_the_cap_only_those_beyond_it_waited():
    result = Result(
        workload=None,
        records=[
            evenly_timed(0, 0.0, 0.1, 1.0),
            evenly_timed(1, 0.0, 0.2, 1.0),
            evenly_timed(2, 0.0, 1.1, 2.0),
            evenly_timed(3, 0.0, 1.3, 2.0),
        ],
        duration_s=2.0,
    )
    wait = QueueWait.of(result, cap=2)
    assert (wait.users, wait.waited, wait.beyond_cap) == (4, 2, 2) and wait.queued_past_cap
    assert wait.first_wave_s == pytest.approx(0.15) and wait.queued_s == pytest.approx(1.2)
    assert not QueueWait.of(result, cap=3).queued_past_cap  # one waited who had a place
    everyone = QueueWait.of(result, cap=8)
    assert everyone.beyond_cap == 0 and not everyone.queued_past_cap


def test_reuse_compares_the_requests_after_the_first():
    def shared(*ttfts: float) -> Result:
        return Result(
            workload=None,
            duration_s=10.0,
            records=[
                evenly_timed(i, float(i), i + ttft, i + ttft + 0.1) for i, ttft in enumerate(ttfts)
            ],
        )

    reuse = PromptReuse.of(shared(0.5, 0.05, 0.06, 0.05), shared(0.5, 0.5, 0.52, 0.49))
    assert reuse.on_ms.median == pytest.approx(50) and reuse.off_ms.n == 3
    assert reuse.sooner and reuse.saving.ratio == pytest.approx(10)
    assert not PromptReuse.of(shared(0.5, 0.5, 0.5), shared(0.5, 0.5, 0.5)).sooner
