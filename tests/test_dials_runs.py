"""servelab.lessons.dials.runs: the mixed-length workload, start-up refusals, device dials."""

from __future__ import annotations

import pytest

from servelab.bench.prompts import WordPrompts
from servelab.engines.vllm_server import DEFAULT_CPU_KV_CACHE_GIB
from servelab.hardware import Device
from servelab.lessons.dials.runs import (
    CPU_CACHE_GIBS,
    GPU_SHARES,
    MemoryDial,
    MixedLengths,
    start_refusal,
    tensor_parallel_sizes,
)
from tests.support import CPU, REFUSAL_LOG, T4X2


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
    assert (refusal.max_model_len, refusal.needed_gib, refusal.available_gib,
            refusal.estimate) == (4096, 0.09, 0.05, 2560)
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
