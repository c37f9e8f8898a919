"""Both supported engine versions, without a GPU: vLLM 0.32 (the CPU engine, fixtures captured
from a real server here) and vLLM 0.11.2 (the GPU engine, fixtures rendered by its own released
code; see tests/fixtures/README.md). Every parser of logs and metrics runs on both: here, or in
the parser's own test file (servelab/bench/test_server_metrics.py,
servelab/lessons/prefix/test_probe.py)."""

from __future__ import annotations

import re

import pytest

from servelab.bench.client import PlannedRequest, request_body
from servelab.engines.vllm_server import CapacityNotFound, Server, parse_capacity
from servelab.hardware import PRE_AMPERE_ATTENTION_BACKEND, Device
from servelab.lessons.chunking.engine_log import chunking_state
from tests.support import FIXTURES

VERSIONS = ["vllm-0.32", "vllm-0.11.2"]
# Each version's start-up logs and the step budget each was started with (tests/fixtures/README.md
# says how they were made). 0.11.2's parser logs its default budget, 2048, before the real one.
STARTUPS = [
    ("vllm-0.32", "startup.log", 256),
    ("vllm-0.11.2", "startup-256.log", 256),
    ("vllm-0.11.2", "startup-8192.log", 8192),
]
T4 = Device(kind="cuda", name="Tesla T4", count=2, memory_gib=15.0, compute_capability=(7, 5))
A100 = Device(kind="cuda", name="A100", memory_gib=40.0, compute_capability=(8, 0))


def fixture(version: str, name: str) -> str:
    return (FIXTURES / version / name).read_text()


@pytest.mark.parametrize(("version", "log", "budget"), STARTUPS)
def test_capacity_is_read_from_each_versions_log(version, log, budget):
    capacity = parse_capacity(fixture(version, log))
    assert capacity.kv_cache_tokens == 93_184
    assert capacity.max_model_len == 2048
    assert capacity.max_concurrency == pytest.approx(45.5)


def test_a_log_without_capacity_lines_raises_a_clear_error():
    log = fixture("vllm-0.11.2", "startup-256.log")
    without_report = "".join(
        line for line in log.splitlines(keepends=True) if "kv_cache_utils" not in line
    )
    with pytest.raises(CapacityNotFound, match="KV cache size"):
        parse_capacity(without_report)
    only_size = "".join(
        line for line in log.splitlines(keepends=True) if "Maximum concurrency" not in line
    )
    with pytest.raises(CapacityNotFound, match="Maximum concurrency"):
        parse_capacity(only_size)


@pytest.mark.parametrize(("version", "log", "budget"), STARTUPS)
def test_chunking_state_is_the_budget_the_engine_was_started_with(version, log, budget):
    state = chunking_state(fixture(version, log))
    assert state.enabled is True
    assert state.budget == budget
    assert state.splits(budget + 1) and not state.splits(budget)


def test_the_parsers_default_budget_comes_first_in_0_11_2s_log():
    """What made every GPU page report 2048: the parser's default configs log before the engine's
    own, in the same API-server process."""
    log = fixture("vllm-0.11.2", "startup-256.log")
    budgets = re.findall(r"Chunked prefill is enabled with max_num_batched_tokens=(\d+)", log)
    assert budgets == ["2048", "256"]


def gpu_servers() -> list[Server]:
    """Servers exercising every flag ``Server`` can emit on a GPU, each boolean both ways."""
    servers = []
    for device in (T4, A100):
        for switch in (True, False):
            servers.append(
                Server(
                    "Qwen/Qwen3-0.6B",
                    device=device,
                    max_model_len=4096,
                    gpu_memory_utilization=0.9,
                    kv_cache_gib=None if switch else 4.0,
                    max_num_seqs=64,
                    enable_prefix_caching=switch,
                    enable_chunked_prefill=switch,
                    max_num_batched_tokens=512,
                    tensor_parallel_size=device.count,
                    enforce_eager=switch,
                    dtype=None if switch else "float16",
                    seed=1,
                )
            )
        servers.append(Server("Qwen/Qwen3-0.6B", device=device))
    return servers


def test_every_gpu_flag_exists_in_vllm_0_11_2():
    known = set(fixture("vllm-0.11.2", "cli-flags.txt").split())
    emitted = {
        word for server in gpu_servers() for word in server.command[3:] if word.startswith("--")
    }
    assert {
        "--enforce-eager",
        "--no-enable-prefix-caching",
        "--kv-cache-memory-bytes",
        "--tensor-parallel-size",
        "--served-model-name",
    } <= emitted
    assert emitted - known == set()


def test_a_t4_gets_an_attention_backend_0_11_2_accepts_ahead_of_flashinfer():
    lines = [
        line
        for line in fixture("vllm-0.11.2", "attention-backends.txt").splitlines()
        if not line.startswith("#")
    ]
    verdicts = {line.split()[0]: line.split(maxsplit=1)[1] for line in lines}
    order = list(verdicts)
    assert verdicts[PRE_AMPERE_ATTENTION_BACKEND] == "valid"
    # Left to itself, 0.11.2 would take FlashInfer, first in its order after FlashAttention.
    assert order.index("FLASHINFER") < order.index(PRE_AMPERE_ATTENTION_BACKEND)
    assert verdicts["FLASH_ATTN"].startswith("invalid")
    t4, a100 = Server("m", device=T4), Server("m", device=A100)
    assert t4.child_env()["VLLM_ATTENTION_BACKEND"] == PRE_AMPERE_ATTENTION_BACKEND
    assert t4.command_line.startswith(f"VLLM_ATTENTION_BACKEND={PRE_AMPERE_ATTENTION_BACKEND} ")
    assert "VLLM_ATTENTION_BACKEND" not in a100.command_line


def test_chat_requests_turn_thinking_off_and_completions_do_not():
    planned = PlannedRequest(index=0, user=0, prompt="Hi", max_tokens=4)
    assert request_body(planned, "chat")["chat_template_kwargs"] == {"enable_thinking": False}
    assert "chat_template_kwargs" not in request_body(planned)
