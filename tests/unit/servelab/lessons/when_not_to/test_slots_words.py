"""servelab.lessons.when_not_to.slots_words: what chapter 08 says of llama-server's slots beside
vLLM's batch: the steps, the queue, the memory, the cache's reuse and the takeaway."""

from __future__ import annotations

import dataclasses

import pytest

from servelab.bench.spread import Spread
from servelab.engines.vllm_server import Capacity
from servelab.lessons.compare import Compared
from servelab.lessons.when_not_to import slots_words
from servelab.lessons.when_not_to.findings import EngineFindings
from servelab.lessons.when_not_to.slots import PromptReuse, QueueWait, SlotFindings, StepLine
from tests.unit.servelab.lessons.when_not_to.test_slots import SERVER, VLLM, _together


def _spread(median: float) -> Spread:
    return Spread(median, 0.95 * median, 1.05 * median, 4)


POOL = Capacity(50_000, 2048, 24.0)


def _found(
    server_gain_step: float = 2.0,
    vllm_step: float = 2.0,
    waited=(16, 16),
    reuse_off_ms=(200.0, 200.0),
    pool: Capacity | None = POOL,
    fixed_ms=(10.0, 10.0),
) -> SlotFindings:
    def line(per_sequence: float, fixed: float) -> StepLine:
        batches = (1, 2, 4, 8, 16)
        steps = tuple(fixed + per_sequence * b for b in batches)
        return StepLine(
            batches,
            steps,
            StepLine.of({b: [_together(b, ms)] for b, ms in zip(batches, steps, strict=True)}).fit,
        )

    return SlotFindings(
        server=SERVER,
        vllm=VLLM,
        steps={SERVER: line(server_gain_step, fixed_ms[0]), VLLM: line(vllm_step, fixed_ms[1])},
        queue={
            engine: QueueWait(16, 32, count, 0.5, 2.0 if count else None)
            for engine, count in zip((SERVER, VLLM), waited, strict=True)
        },
        reuse={
            engine: PromptReuse(_spread(40.0), _spread(off))
            for engine, off in zip((SERVER, VLLM), reuse_off_ms, strict=True)
        },
        slots=16,
        slot_context=1024,
        slots_mib=360.0,
        pool=pool,
    )


def test_alike_steps_do_not_separate_the_engines_and_unlike_ones_name_the_better():
    assert _found().gains_alike
    assert "1.0× one sequence's output" not in slots_words.step_text(_found())
    unlike = _found(server_gain_step=8.0)
    assert not unlike.gains_alike and unlike.larger_gain == VLLM
    assert f"{unlike.steps[SERVER].gain:.1f}×" in slots_words.step_text(unlike)


def test_lines_that_cross_tell_the_one_user_result_from_the_crowds():
    crossing = _found(server_gain_step=5.0, vllm_step=1.5, fixed_ms=(6.0, 35.0))
    assert (crossing.smaller_shared, crossing.smaller_per_sequence) == (SERVER, VLLM)
    assert crossing.lines_cross_at == pytest.approx(29 / 3.5)
    assert "8 sequences" in slots_words.step_text(crossing)
    below = _found(server_gain_step=1.0, vllm_step=1.5, fixed_ms=(6.0, 35.0))
    assert below.lines_cross_at is None  # llama-server's line is lower at every batch
    flat = dataclasses.replace(
        crossing,
        steps={
            engine: dataclasses.replace(line, fit=dataclasses.replace(line.fit, r_squared=0.2))
            for engine, line in crossing.steps.items()
        },
    )
    assert not flat.lines_split and flat.lines_cross_at is None
    assert "ms per sequence (R² 0.20)" in slots_words.step_text(flat)
    early = _found(server_gain_step=46.0, vllm_step=2.5, fixed_ms=(42.5, 48.6))  # meet at 0.14
    assert early.lines_cross_at is None and early.shorter_throughout == VLLM
    assert "sequences:" not in slots_words.step_text(early)  # no crossing batch is named


def test_the_queue_story_claims_alike_queueing_only_where_both_queued_exactly_past_the_cap():
    assert _found().both_queue
    one_off = _found(waited=(16, 3))
    assert not one_off.both_queue
    assert f"On {VLLM} " in slots_words.queue_text(one_off)  # the engine that did not queue


def test_the_memory_story_sets_the_slots_beside_the_pool_or_says_it_cannot():
    found = _found()
    assert found.slot_tokens == 16 * 1024
    text = slots_words.memory_text(found)
    assert "16,384 tokens" in text and "50,000 tokens" in text and "2,048" in text
    assert "50,000" not in slots_words.memory_text(dataclasses.replace(found, pool=None))


def test_the_reuse_story_sets_the_caches_side_by_side_only_where_both_saved_time():
    assert _found().reused == {SERVER: True, VLLM: True}
    assert "5.0×" in slots_words.reuse_text(_found(), 384)  # 200 ms against 40 ms
    slow = _found(reuse_off_ms=(41.0, 200.0))
    assert slow.reused == {SERVER: False, VLLM: True}
    assert f"On {SERVER} " in slots_words.reuse_text(slow, 384)  # the engine that did not reuse


@pytest.mark.parametrize(("many_server", "lead"), [(450, "1.3×"), (600, None)])
def test_the_takeaway_states_the_crowd_claim_only_as_far_as_the_runs_go(many_server, lead):
    from tests.unit.servelab.lessons.when_not_to.test_findings import SETUP, _facts, _table

    engines = EngineFindings.of(_table(150, 60, 58, 150, 600, many_server), SETUP, _facts())
    text = slots_words.takeaway_text(engines, _found())
    assert "4.0×" in text  # vLLM against the binding, beyond the spread
    # vLLM's lead over llama-server is stated only where the runs show one
    assert (engines.crowd_lead.compared is Compared.HIGHER) == (lead is not None)
    assert lead is None or lead in text
