"""Each recorded server start through vLLM 0.11.2 on simulated T4s, read back by servelab.

``python engine_side.py CASES.json RESULTS.json``, in the contract environment with the
repository on ``PYTHONPATH``. vLLM is imported once; every case then runs in a forked child, so
each start sees a process as fresh as a server's (0.11.2 caches its parser defaults and logs
some records once per process). For each start the child writes the log with vLLM's code
(``startup``), asks 0.11.2's attention selector which backend a T4 gets, renders ``/metrics``
with its ``PrometheusStatLogger``, and runs ``servelab.engines.vllm_server.parse_capacity``,
``servelab.lessons.chunking.engine_log.chunking_state``, ``servelab.bench.server_metrics`` and,
for a refused start, ``servelab.lessons.the_dials.runs.start_refusal`` on the result. It also reads
what the start costs off the same config (:func:`cost`): its compile-cache key and the CUDA
graphs it captures, which ``t4_wait`` adds up per chapter.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from t4 import simulate_t4s  # noqa: E402

simulate_t4s(1)

import prometheus_client  # noqa: E402
import torch  # noqa: E402
from startup import Start, start  # noqa: E402
from vllm.attention.selector import get_attn_backend  # noqa: E402
from vllm.compilation.caching import compilation_config_hash_factors  # noqa: E402
from vllm.config import CompilationMode, CUDAGraphMode, VllmConfig  # noqa: E402
from vllm.v1.attention.backends.utils import AttentionCGSupport  # noqa: E402
from vllm.v1.kv_cache_interface import FullAttentionSpec  # noqa: E402
from vllm.v1.metrics.loggers import PrometheusStatLogger  # noqa: E402
from vllm.v1.metrics.stats import IterationStats, PrefixCacheStats, SchedulerStats  # noqa: E402

from servelab.bench.server_metrics import BY_SOURCE, parse_metrics  # noqa: E402
from servelab.engines.vllm_server import parse_capacity  # noqa: E402
from servelab.lessons.chunking.engine_log import chunking_state  # noqa: E402
from servelab.lessons.the_dials.runs import start_refusal  # noqa: E402


class Mismatch(AssertionError):
    """servelab read something other than what vLLM configured."""


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise Mismatch(message)


def metrics_page(started: Start) -> str:
    """``/metrics`` after one 300-token prompt with a 256-token cache hit."""
    logger = PrometheusStatLogger(started.config, engine_indexes=[0])
    logger.log_engine_initialized()
    prefix = PrefixCacheStats()
    prefix.requests, prefix.queries, prefix.hits = 1, 300, 256
    iteration = IterationStats()
    iteration.num_prompt_tokens, iteration.num_generation_tokens = 300, 8
    logger.record(
        SchedulerStats(num_running_reqs=1, kv_cache_usage=0.01, prefix_cache_stats=prefix),
        iteration,
    )
    return prometheus_client.generate_latest().decode()


def captured_graphs(config: VllmConfig, support: AttentionCGSupport) -> int:
    """CUDA graphs one start captures: 0.11.2's ``GPUModelRunner.capture_model`` (mixed
    prefill-decode graphs for every capture size, then full decode graphs for those up to
    ``max_num_seqs``) under the mode its ``_check_and_update_cudagraph_mode`` resolves for the
    attention backend's graph support (no LoRA, no speculative decoding)."""
    compilation = config.compilation_config
    mode = compilation.cudagraph_mode
    if config.model_config.enforce_eager or mode in (None, CUDAGraphMode.NONE):
        return 0
    attention_split = compilation.splitting_ops_contain_attention()
    if mode.mixed_mode() == CUDAGraphMode.FULL and support != AttentionCGSupport.ALWAYS:
        mode = (
            CUDAGraphMode.FULL_AND_PIECEWISE if attention_split else CUDAGraphMode.FULL_DECODE_ONLY
        )
    if mode.decode_mode() == CUDAGraphMode.FULL and support == AttentionCGSupport.NEVER:
        piecewise = compilation.mode == CompilationMode.VLLM_COMPILE and (
            attention_split or compilation.use_inductor_graph_partition
        )
        mode = CUDAGraphMode.PIECEWISE if piecewise else CUDAGraphMode.NONE
    sizes = sorted(compilation.cudagraph_capture_sizes or [])
    graphs = len(sizes) if mode.mixed_mode() != CUDAGraphMode.NONE else 0
    if mode.decode_mode() == CUDAGraphMode.FULL and mode.separate_routine():
        graphs += sum(1 for x in sizes if config.scheduler_config.max_num_seqs >= x >= 1)
    return graphs


def cost(started: Start) -> dict:
    """What this start costs, from 0.11.2's config: the compile-cache key (the md5 0.11.2's
    ``VllmBackend.__call__`` takes of ``compilation_config_hash_factors``, i.e. its env hash and
    ``VllmConfig.compute_hash()``; the code and compiler hashes it adds are the same for every
    start of one install), None when nothing is compiled; the CUDA graphs; the memory share."""
    config = started.config
    assert config is not None
    compiles = config.compilation_config.mode == CompilationMode.VLLM_COMPILE
    key = (
        hashlib.md5(str(compilation_config_hash_factors(config)).encode()).hexdigest()[:10]
        if compiles
        else None
    )
    model = config.model_config
    spec = FullAttentionSpec(
        block_size=config.cache_config.block_size,
        num_kv_heads=model.get_num_kv_heads(config.parallel_config),
        head_size=model.get_head_size(),
        dtype=model.dtype,
    )
    backend = get_attn_backend(
        model.get_head_size(),
        model.dtype,
        config.cache_config.cache_dtype,
        config.cache_config.block_size,
    )
    support = backend.get_builder_cls().get_cudagraph_support(config, spec)
    return {
        "compile_key": key,
        "refused": started.error is not None,
        "graphs": 0 if started.error else captured_graphs(config, support),
        "capture_sizes": len(config.compilation_config.cudagraph_capture_sizes or []),
        "graph_support": support.name,
        "share": config.cache_config.gpu_memory_utilization,
        "tp": config.parallel_config.tensor_parallel_size,
    }


def _flag(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else None


def check(case: dict) -> tuple[str, dict]:
    """What servelab read from this start, and its :func:`cost`; raises when it is wrong or the
    start failed."""
    argv = case["argv"]
    started = start(argv[3:])
    if started.error:
        refusal = start_refusal(started.log)
        expect(
            refusal is not None and started.config is not None,
            f"vLLM 0.11.2 refused to start: {started.error[:400]}",
        )
        return (
            f"refused as on a GPU, read by start_refusal: {refusal.needed_gib:.2f} GiB "
            f"needed for {refusal.max_model_len:,} tokens, {refusal.available_gib:.2f} GiB",
            cost(started),
        )
    config = started.config
    model, scheduler = config.model_config, config.scheduler_config
    expect(model.dtype == torch.float16, f"a T4 computes in float16, vLLM chose {model.dtype}")
    backend = get_attn_backend(
        model.get_head_size(),
        model.dtype,
        config.cache_config.cache_dtype,
        config.cache_config.block_size,
    )
    capacity = parse_capacity(started.log)
    expect(
        capacity.max_model_len == model.max_model_len,
        f"capacity for {capacity.max_model_len} tokens, vLLM serves {model.max_model_len}",
    )
    chunking = chunking_state(started.log)
    expect(
        chunking.enabled == scheduler.enable_chunked_prefill,
        f"chunked prefill read as {chunking.enabled}, vLLM has {scheduler.enable_chunked_prefill}",
    )
    expect(
        chunking.budget == scheduler.max_num_batched_tokens,
        f"step budget read as {chunking.budget}, vLLM runs {scheduler.max_num_batched_tokens}",
    )
    asked = _flag(argv, "--max-num-batched-tokens")
    expect(
        asked is None or int(asked) == chunking.budget,
        f"--max-num-batched-tokens {asked} given, {chunking.budget} read",
    )
    row = parse_metrics(metrics_page(started))
    missing = sorted(k for k, v in row.items() if math.isnan(v) and k not in BY_SOURCE)
    expect(not missing, f"/metrics lacks {missing}")
    expect(
        row["block_size"] == config.cache_config.block_size,
        f"/metrics block size {row['block_size']}, vLLM {config.cache_config.block_size}",
    )
    expect(row["prefix_cache_hits"] == 256, f"prefix-cache hits read as {row['prefix_cache_hits']}")
    return (
        f"{backend.get_name()}, budget {chunking.budget:,}, {capacity.kv_cache_tokens:,} KV "
        f"tokens, {capacity.max_concurrency:.1f}x {capacity.max_model_len:,}, tp "
        f"{config.parallel_config.tensor_parallel_size}",
        cost(started),
    )


def run_forked(case: dict) -> dict:
    """``check(case)`` in a child process with the case's GPUs and environment."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            simulate_t4s(case["gpus"])
            os.environ.update(case["env"])
            detail, facts = check(case)
            result = {"ok": True, "detail": detail, "cost": facts}
        except Exception as error:  # the case fails; the others still run
            result = {"ok": False, "detail": f"{type(error).__name__}: {error}"[:600]}
        with os.fdopen(write, "w") as out:
            out.write(json.dumps(result))
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        text = answer.read()
    os.waitpid(pid, 0)
    result = json.loads(text) if text else {"ok": False, "detail": "the child process died"}
    return {"key": case["key"], **result}


def main(cases_path: str, results_path: str) -> None:
    cases = json.loads(Path(cases_path).read_text())
    Path(results_path).write_text(json.dumps([run_forked(case) for case in cases]))


if __name__ == "__main__":
    main(*sys.argv[1:])
