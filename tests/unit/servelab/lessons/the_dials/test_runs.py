"""servelab.lessons.the_dials.runs: the mixed-length workload, start-up refusals, device dials."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import httpx
import openai
import pytest

from servelab.bench.frames import Result
from servelab.bench.prompts import WordPrompts
from servelab.engines.vllm_server import DEFAULT_CPU_KV_CACHE_GIB
from servelab.hardware import Device
from servelab.lessons.the_dials.chapter import SIZES
from servelab.lessons.the_dials.runs import (
    CPU_CACHE_GIBS,
    GPU_SHARES,
    MemoryDial,
    MixedLengths,
    latency_from_arrival,
    limit_probe,
    start_refusal,
    tensor_parallel_sizes,
)
from servelab.sizes import PROFILES
from tests.support import CPU, REFUSAL_LOG, T4X2, record


def test_mixed_lengths_sends_long_first_and_marks_them():
    plan = MixedLengths(3, 2, 8, 40, 16, seed=1).plan(WordPrompts())
    assert [p.role for p in plan] == ["long", "long", "user", "user", "user"]
    assert all(p.arrival == 0.0 for p in plan)
    alone = MixedLengths(3, 0, 8, 40, 16).plan(WordPrompts())
    assert [p.role for p in alone] == ["user"] * 3
    with pytest.raises(ValueError):
        MixedLengths(0, 1, 8, 40, 16)


def test_start_refusal_is_parsed_from_a_wrapped_log():
    refusal = start_refusal(REFUSAL_LOG)
    assert (refusal.max_model_len, refusal.needed_gib, refusal.available_gib, refusal.estimate) == (
        4096,
        0.09,
        0.05,
        2560,
    )
    assert start_refusal("CUDA out of memory") is None


def test_the_memory_dial_is_a_share_on_a_gpu_and_a_size_on_a_cpu() -> None:
    gpu = MemoryDial.for_device(T4X2)
    assert gpu.server_args == {"gpu_memory_utilization": 0.9}
    assert gpu.settings == GPU_SHARES
    # a tenth more of a 14.74 GiB card adds 1.474 GiB to the 3 GiB cache seen at 0.9
    assert gpu.cache_gib(0.8, 3.0) == pytest.approx(3.0 - 1.474)
    cpu = MemoryDial.for_device(CPU)
    assert cpu.server_args == {"kv_cache_gib": DEFAULT_CPU_KV_CACHE_GIB}
    assert cpu.settings == CPU_CACHE_GIBS and cpu.cache_gib(0.5, 3.0) == 0.5


def test_tensor_parallelism_runs_only_on_two_gpus() -> None:
    assert tensor_parallel_sizes(T4X2) == (1, 2)
    assert tensor_parallel_sizes(Device(kind="cuda", name="Tesla T4", memory_gib=15.0)) == ()
    assert tensor_parallel_sizes(CPU) == ()


def test_every_profile_bursts_past_its_largest_level() -> None:
    for profile in PROFILES:
        values = SIZES.at(profile)
        assert values.burst > max(values.levels), profile


def _arrived_at_once(sends: list[float]) -> Result:
    """Requests that all arrived at 0 s, sent at ``sends``, each 1 s from send to last token."""
    records = []
    for index, sent in enumerate(sends):
        r = record(index, sent, [0.5], ttft=0.5)
        r.planned = replace(r.planned, arrival=0.0)
        records.append(r)
    return Result(workload=None, records=records, duration_s=max(sends) + 1.0)


def test_requests_sent_only_after_one_finished_waited_for_a_slot() -> None:
    two_slots = latency_from_arrival(_arrived_at_once([0.0, 0.01, 1.0, 1.01, 2.0]))
    assert two_slots["queued"] == 3
    assert two_slots["latency_s_p99"] == pytest.approx(3.0, abs=0.05)
    assert latency_from_arrival(_arrived_at_once([0.0, 0.01, 0.02]))["queued"] == 0


class _Client:
    """An OpenAI client that answers every completion with ``reply``, or raises it."""

    def __init__(self, reply: object) -> None:
        self.reply = reply
        self.completions = self

    def create(self, **request: object) -> object:
        assert request["extra_body"] == {"ignore_eos": True}
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply

    def close(self) -> None:
        pass


SERVER = SimpleNamespace(base_url="http://127.0.0.1:1/v1", model="m")


def test_a_refusal_is_kept_whole_and_a_served_answer_counted(monkeypatch) -> None:
    message = (
        "This model's maximum context length is 2048 tokens. However, your prompt\n"
        "contains at least 2049 input tokens, which exceeds this limit even without any "
        "output tokens. (parameter=input_tokens, value=2049)"
    )
    response = httpx.Response(400, request=httpx.Request("POST", SERVER.base_url))
    refused = openai.BadRequestError(message, response=response, body={"message": message})
    monkeypatch.setattr(openai, "OpenAI", lambda **_: _Client(refused))
    probe = limit_probe(SERVER, "p", 2112, 16, 2048)
    assert probe.message == " ".join(message.split()) and probe.answer_tokens is None
    assert probe.room == 0 and probe.counted_to == 2049  # as the refusal says
    served = SimpleNamespace(
        usage=SimpleNamespace(completion_tokens=8),
        choices=[SimpleNamespace(finish_reason="length")],
    )
    monkeypatch.setattr(openai, "OpenAI", lambda **_: _Client(served))
    probe = limit_probe(SERVER, "p", 2040, 16, 2048)
    assert (probe.message, probe.answer_tokens, probe.finish_reason, probe.room) == (
        None,
        8,
        "length",
        8,
    )
