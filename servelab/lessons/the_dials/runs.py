"""Chapter 05: the sweep's two latencies, a mixed-length workload, and a refused start.

``max_model_len`` reserves nothing under paged attention. What it decides is (1) the smallest
cache the engine agrees to start with, since one request of the full length must fit, and
(2) how long a conversation may grow, and so how many blocks a few long conversations may take
from many short ones. The mixed-length workload (``MixedLengths``, a workload of
``servelab.bench.workloads`` that the chapter imports from here) and :func:`start_refusal` show
both.

Where a setting depends on the device (the memory dial, whether tensor parallelism can run at
all), :class:`MemoryDial` and :func:`tensor_parallel_sizes` decide, so the page asks once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from servelab import bench
from servelab.bench.frames import Result
from servelab.bench.runner import run
from servelab.bench.workloads import MixedLengths as MixedLengths  # the chapter imports it here
from servelab.engines.running import RunningServer
from servelab.engines.vllm_server import DEFAULT_CPU_KV_CACHE_GIB, Server
from servelab.hardware import Device
from servelab.lessons.paging.capacity import DEFAULT_SHARE

# On a GPU the chapter gives vLLM its default share of the card (``DEFAULT_SHARE``), and its
# table compares these.
GPU_SHARES = (0.7, 0.8, 0.9, 0.95)
# On a CPU the cache is sized directly: Server's default, beside these sizes in the table.
CPU_CACHE_GIBS = (0.5, 1.0, 2.0, 4.0)


@dataclass(frozen=True)
class MemoryDial:
    """The KV memory setting a runtime serves with, as ``Server``'s keyword ``flag`` set to
    ``value``, and the ``settings`` the chapter's table sets beside it. On a GPU it is a share
    of the card (``card_gib``, CUDA's total); on a CPU, where a share would be one of all RAM,
    a cache size in GiB."""

    flag: str
    value: float
    settings: tuple[float, ...]
    card_gib: float | None

    @classmethod
    def for_device(cls, device: Device) -> MemoryDial:
        if device.kind == "cuda":
            return cls("gpu_memory_utilization", DEFAULT_SHARE, GPU_SHARES, device.cuda_memory_gib)
        return cls("kv_cache_gib", DEFAULT_CPU_KV_CACHE_GIB, CPU_CACHE_GIBS, None)

    @property
    def server_args(self) -> dict[str, float]:
        """The keyword to pass to ``Server``."""
        return {self.flag: self.value}

    def cache_gib(self, setting: float, kv_gib: float) -> float:
        """The KV cache ``setting`` gives, from the ``kv_gib`` the engine reported at
        ``value``. A share moves the cache by its difference of the card (an estimate: the
        weights and working space are assumed to stay the same size); a size is itself."""
        if self.card_gib is None:
            return setting
        return kv_gib + (setting - self.value) * self.card_gib


def tensor_parallel_sizes(device: Device) -> tuple[int, ...]:
    """The tensor-parallel sizes the chapter compares on ``device``: one GPU against two where
    it has two, none elsewhere."""
    return (1, 2) if device.kind == "cuda" and device.count >= 2 else ()


_REFUSAL = re.compile(
    r"max seq len \((?P<max_model_len>\d+)\), \((?P<needed>[\d.]+) GiB KV cache is needed, "
    r"which is larger than the available KV cache memory \((?P<available>[\d.]+) GiB\)\. "
    r"(?:Based on the available memory, the estimated maximum model length is "
    r"(?P<estimate>\d+)\. )?"
)


@dataclass(frozen=True)
class StartRefusal:
    """vLLM's reason for refusing to start: one full-length request needs more cache than it
    has. ``estimate`` is the longest ``max_model_len`` it says would fit (None if not given)."""

    max_model_len: int
    needed_gib: float
    available_gib: float
    estimate: int | None


def start_refusal(error_text: str) -> StartRefusal | None:
    """The refusal in a failed start's log tail, or None if the start failed for another
    reason."""
    match = _REFUSAL.search(" ".join(error_text.split()))
    if match is None:
        return None
    estimate = match.group("estimate")
    return StartRefusal(
        int(match.group("max_model_len")),
        float(match.group("needed")),
        float(match.group("available")),
        int(estimate) if estimate else None,
    )


REFUSAL_CHARS = 400


@dataclass(frozen=True)
class OverLong:
    """One request of ``prompt_tokens`` asking for ``max_tokens`` more from a server whose
    limit is ``limit``: the server's refusal (None if it was served) or, where it was served,
    the answer's tokens and why it stopped (``finish_reason``)."""

    prompt_tokens: int
    max_tokens: int
    limit: int
    message: str | None
    answer_tokens: int | None = None
    finish_reason: str | None = None

    @property
    def room(self) -> int:
        """The answer tokens the limit leaves after the prompt."""
        return max(self.limit - self.prompt_tokens, 0)

    @property
    def counted_to(self) -> int:
        """The prompt tokens vLLM's refusal says it has "at least": it stops tokenizing one
        token past the limit."""
        return self.limit + 1


def _refusal_message(error: Exception) -> str:
    """A refusal's message in full (whitespace collapsed, at most ``REFUSAL_CHARS``
    characters): the numbers that explain it come after its first sentence."""
    body = getattr(error, "body", None)
    message = body.get("message", str(error)) if isinstance(body, dict) else str(error)
    message = " ".join(message.split())
    return message if len(message) <= REFUSAL_CHARS else message[:REFUSAL_CHARS] + "…"


def limit_probe(
    server: RunningServer, prompt: str, prompt_tokens: int, max_tokens: int, limit: int
) -> OverLong:
    """Send ``prompt`` (``prompt_tokens`` long) once, asking for ``max_tokens`` with
    ``ignore_eos`` so that only a limit can stop the answer early, and record what the server
    whose limit is ``limit`` did with it."""
    from openai import BadRequestError, OpenAI

    client = OpenAI(base_url=server.base_url, api_key="servelab", max_retries=0)
    try:
        reply = client.completions.create(
            model=server.model,
            prompt=prompt,
            max_tokens=max_tokens,
            extra_body={"ignore_eos": True},
        )
    except BadRequestError as error:
        return OverLong(prompt_tokens, max_tokens, limit, _refusal_message(error))
    finally:
        client.close()
    answer = reply.usage.completion_tokens if reply.usage else None
    return OverLong(prompt_tokens, max_tokens, limit, None, answer, reply.choices[0].finish_reason)


def alone_and_beside(
    server: RunningServer, workload: MixedLengths, passes: int, metrics_interval: float
) -> tuple[list[Result], list[Result]]:
    """``workload``'s short requests alone (no long ones) and then beside its long ones,
    ``passes`` times in turn so that a shared machine's drift falls on both loads: the two
    loads' runs, in pass order. Every run has prompts of its own seed, so none finds another's
    prefix in the cache."""
    alone: list[Result] = []
    beside: list[Result] = []
    for number in range(passes):
        seed = workload.seed + 2 * number
        alone.append(
            run(
                server,
                replace(workload, long_requests=0, seed=seed),
                metrics_interval=metrics_interval,
            )
        )
        beside.append(
            run(server, replace(workload, seed=seed + 1), metrics_interval=metrics_interval)
        )
    return alone, beside


def burst_sweep(
    server: RunningServer,
    levels: Sequence[int],
    passes: int,
    rate: float,
    burst: int,
    input_tokens: int,
    output_tokens: int,
) -> pd.DataFrame:
    """A burst of ``burst`` requests at ``rate`` per second, at most each of ``levels`` running
    at once, every level in turn and the whole sweep ``passes`` times: one row per run, its
    level (``max_num_seqs``), output rate, p99 time per output token and served time, and its
    latencies from arrival (:func:`latency_from_arrival`)."""
    rows = []
    for number in range(passes):
        for level in levels:
            result = bench.open_loop(
                server,
                rate,
                num_requests=burst,
                input_tokens=input_tokens,
                max_tokens=output_tokens,
                max_concurrency=level,
                seed=100 * number + level,
                metrics_interval=0.25,
                progress=False,
            )
            summary = result.summary()
            rows.append(
                {
                    "max_num_seqs": level,
                    "output_tok_s": summary["output_tok_s"],
                    "tpot_ms_p99": summary["tpot_ms_p99"],
                    "served_s_p99": summary["e2e_ms_p99"] / 1000,
                    **latency_from_arrival(result),
                }
            )
    return pd.DataFrame(rows)


def one_and_many(
    server: Server, users: int, max_tokens: int, passes: int
) -> list[dict[str, float]]:
    """One user alone, then ``users`` at once, in turn ``passes`` times: per pass the one
    user's speed, the crowd's output rate and the server's KV cache (tokens)."""
    runs = []
    for number in range(passes):
        one = bench.closed_loop(
            server, users=1, max_tokens=max_tokens, seed=2 * number, progress=False
        )
        many = bench.closed_loop(
            server, users=users, max_tokens=max_tokens, seed=2 * number + 1, progress=False
        )
        runs.append(
            {
                "one_user_tok_s": one.summary()["user_tok_s"],
                "many_users_output_tok_s": many.summary()["output_tok_s"],
                "kv_cache_tokens": server.capacity.kv_cache_tokens,
            }
        )
    return runs


def latency_from_arrival(result: Result) -> dict[str, float]:
    """p50/p99 of last token − arrival (s), counting any time a request waited in a queue,
    on the client or in the server; how many requests waited for a slot (sent only after an
    earlier request had finished: one that found a slot free was sent on arrival, before any
    had finished); and the requests the server ran at most at once."""
    requests = result.requests
    done = requests[requests["ok"]]
    total = (done["end_s"] - done["queued_s"]).to_numpy()
    server = result.server
    running = float(server["running"].max()) if not server.empty else np.nan
    waited = int((done["sent_s"] >= done["end_s"].min()).sum()) if not done.empty else 0
    return {
        "latency_s_p50": float(np.percentile(total, 50)),
        "latency_s_p99": float(np.percentile(total, 99)),
        "queued": float(waited),
        "server_running_max": running,
    }
