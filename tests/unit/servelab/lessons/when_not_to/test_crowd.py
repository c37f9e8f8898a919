"""servelab.lessons.when_not_to.crowd and its words: chapter 08's crowd verdict names the
mechanisms the page measured (the step with the crowd in it, prompt reading alone) and memory
only as far as it bound."""

from __future__ import annotations

import dataclasses

import pytest

from servelab.bench.spread import Spread
from servelab.engines.vllm_server import Capacity
from servelab.lessons.batching.steps import fit_step_time
from servelab.lessons.compare import Compared
from servelab.lessons.when_not_to import slots_words
from servelab.lessons.when_not_to.crowd import PROMPT, STEP, CrowdCauses, MemoryUse
from servelab.lessons.when_not_to.findings import LLAMA_SERVER, VLLM, EngineFindings
from servelab.lessons.when_not_to.slots import PromptReuse, QueueWait, SlotFindings, StepLine
from tests.unit.servelab.lessons.when_not_to.test_findings import SETUP, _facts, _table


def _spread(median: float) -> Spread:
    return Spread(median, 0.95 * median, 1.05 * median, 3)


def _engines(
    many_server: float = 150.0, many_vllm: float = 600.0, first_s: tuple[float, float] = (1.0, 0.1)
) -> EngineFindings:
    """32 users; the first token alone, llama-server's then vLLM's, in seconds."""
    engines = EngineFindings.of(_table(150, 60, 58, 50, many_vllm, many_server), SETUP, _facts())
    return dataclasses.replace(
        engines,
        first_alone={
            **engines.first_alone,
            LLAMA_SERVER: _spread(first_s[0]),
            VLLM: _spread(first_s[1]),
        },
    )


def _line(fixed: float, per_sequence: float, batches=(1, 4, 16, 32)) -> StepLine:
    steps = tuple(fixed + per_sequence * b for b in batches)
    return StepLine(batches, steps, fit_step_time(batches, steps))


def _slots(
    server=(40.0, 40.0),
    vllm=(50.0, 2.5),
    waited=(32, 32),
    pool_requests=45.5,
    batches=(1, 4, 16, 32),
) -> SlotFindings:
    return SlotFindings(
        server=LLAMA_SERVER,
        vllm=VLLM,
        steps={LLAMA_SERVER: _line(*server, batches=batches), VLLM: _line(*vllm, batches=batches)},
        queue={
            engine: QueueWait(32, 64, count, 0.5, 2.0)
            for engine, count in zip((LLAMA_SERVER, VLLM), waited, strict=True)
        },
        reuse={
            LLAMA_SERVER: PromptReuse(_spread(100.0), _spread(1500.0)),
            VLLM: PromptReuse(_spread(60.0), _spread(500.0)),
        },
        slots=32,
        slot_context=1024,
        slots_mib=720.0,
        pool=Capacity(93_184, 2048, pool_requests) if pool_requests else None,
    )


def test_the_crowds_step_is_measured_where_the_sweep_reached_it_and_read_off_the_line_else():
    causes = CrowdCauses.of(_engines(), _slots())
    assert causes.step_measured and causes.step_ms[LLAMA_SERVER] == pytest.approx(40 + 40 * 32)
    assert causes.per_sequence_ratio == pytest.approx(16)
    assert causes.step_ratio == pytest.approx(1320 / 130)
    assert causes.step_times == pytest.approx(1320 / 130)
    assert causes.per_sequence_more == (LLAMA_SERVER, pytest.approx(16))
    short = CrowdCauses.of(_engines(), _slots(batches=(1, 2, 4, 8)))
    assert not short.step_measured and short.step_ms[VLLM] == pytest.approx(50 + 2.5 * 32)
    text = slots_words.crowd_step_text(causes)
    assert "40.00 ms" in text and "2.50 ms" in text and "10.2×" in text and "16.0×" in text


def test_both_mechanisms_favouring_the_leader_explain_its_lead():
    causes = CrowdCauses.of(_engines(), _slots())
    assert causes.lead.compared is Compared.HIGHER and causes.leader == VLLM
    assert causes.favoured == {STEP: VLLM, PROMPT: VLLM} and causes.explained
    assert causes.prompt.ratio == pytest.approx(10)
    assert "4.0×" in slots_words.crowd_verdict_text(causes)  # 600 against 150 tokens/s
    prompt = slots_words.crowd_prompt_text(causes)
    assert "1.00 s" in prompt and "0.10 s" in prompt and "3.0×" in prompt  # 1,500 against 500 ms


def test_mechanisms_pulling_opposite_ways_explain_alike_totals():
    # llama-server's step with 32 sequences is shorter (8 + 3·32 = 104 against 50 + 2.5·32 = 130),
    # vLLM reads a prompt sooner, and the totals are alike
    causes = CrowdCauses.of(_engines(many_server=600.0), _slots(server=(8.0, 3.0)))
    assert causes.lead.compared is Compared.ALIKE and causes.leader is None
    assert causes.cheaper_per_sequence == VLLM and causes.shorter_step == LLAMA_SERVER
    assert causes.favoured == {STEP: LLAMA_SERVER, PROMPT: VLLM} and causes.explained
    assert "1.2× as long" in slots_words.crowd_step_text(causes)  # 130 against 104 ms


def test_a_lead_the_mechanisms_do_not_point_to_is_not_explained():
    # the steps alike, and llama-server read the prompt sooner, yet vLLM served more
    causes = CrowdCauses.of(_engines(first_s=(0.1, 1.0)), _slots(server=(50.0, 2.5)))
    assert causes.shorter_step is None and causes.quicker_prompt == LLAMA_SERVER
    assert causes.leader == VLLM and causes.explained is False
    alike = CrowdCauses.of(_engines(many_server=600.0), _slots())  # both favour vLLM, totals alike
    assert alike.leader is None and alike.explained is False


def test_memory_did_not_bind_where_only_those_past_the_cap_waited_and_the_pool_held_the_cap():
    assert MemoryUse.of(_slots()).bound is False
    assert MemoryUse.of(_slots(pool_requests=None)).bound is False  # the queue alone shows it
    assert MemoryUse.of(_slots(waited=(32, 20))).bound is None
    small = MemoryUse.of(_slots(pool_requests=12.0))
    assert small.pool_roomy is False and small.bound is None
    text = slots_words.memory_verdict_text(MemoryUse.of(_slots()))
    assert "45 requests" in text and "1,024 tokens" in text and "2,048 tokens" in text
    assert "12 requests" in slots_words.memory_verdict_text(small)


def test_the_takeaway_credits_memory_only_where_it_bound():
    engines, found = _engines(), _slots()
    text = slots_words.takeaway_text(engines, found)
    assert "45.96" not in text and "40.00 ms" in text and "10.0×" in text  # step, prompt ratio
    assert "one pool" not in text
    unsure = slots_words.takeaway_text(engines, _slots(waited=(32, 20)))
    assert "not bind" not in unsure
    assert "not bind" in text


def test_the_engine_that_added_more_per_sequence_is_named_with_how_many_times_as_much() -> None:
    causes = CrowdCauses.of(_engines(), _slots())
    flipped = dataclasses.replace(causes, per_sequence_ms={LLAMA_SERVER: 1.0, VLLM: 4.0})
    assert flipped.per_sequence_more == (VLLM, pytest.approx(4.0))
    longer_vllm = dataclasses.replace(causes, step_ms={LLAMA_SERVER: 100.0, VLLM: 250.0})
    assert longer_vllm.step_times == pytest.approx(2.5)
