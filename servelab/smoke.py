"""``python -m servelab.smoke``: does the book's engine path work on this machine?

Starts the model this device serves (the same ``Server()`` the chapters use) once, with chunked
prefill on a small per-step budget, and checks: a greedy answer, the capacity lines, one stream
against 32, a prefix-cache hit and a prompt longer than the step budget. One line per check,
then ``N passed, N failed``; the exit status is non-zero if a check failed. On the CPU engine it
takes about two minutes; on a GPU, the first start also downloads the model.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from openai import OpenAI

from servelab import bench
from servelab.bench.options import RunOptions
from servelab.bench.server_metrics import fetch_metrics
from servelab.engines.vllm_server import Server
from servelab.lessons.batching.findings import BatchFindings, two_level_sweep
from servelab.lessons.chunking.engine_log import chunking_state

STEP_BUDGET = 256  # tokens per step: a prompt longer than this is prefilled in chunks
LONG_PROMPT_WORDS = 600
STREAMS = 32  # must show batching by the chapters' own bar (thresholds.SHOWN_GAIN)


class CheckFailed(AssertionError):
    """A smoke check's expectation did not hold."""


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def check_answer(server: Server) -> str:
    client = OpenAI(base_url=server.base_url, api_key="servelab", max_retries=0)
    reply = (
        client.chat.completions.create(
            model=server.model,
            temperature=0,
            max_tokens=32,
            messages=[{"role": "user", "content": "What is the capital of Japan?"}],
            extra_body={"chat_template_kwargs": {"enable_thinking": False}},
        )
        .choices[0]
        .message.content
        or ""
    )
    client.close()
    expect("Tokyo" in reply, f"greedy answer lacks 'Tokyo': {reply!r}")
    return repr(reply.strip())


def check_capacity(server: Server) -> str:
    capacity = server.capacity
    expect(
        capacity.kv_cache_tokens >= capacity.max_model_len,
        f"the cache holds fewer tokens than one request may use: {capacity}",
    )
    return (
        f"{capacity.kv_cache_tokens:,} tokens of KV cache, "
        f"{capacity.max_concurrency:.1f} requests of {capacity.max_model_len:,} tokens"
    )


def check_batching(server: Server) -> str:
    quiet: RunOptions = {"progress": False, "metrics_interval": None}
    one = bench.closed_loop(server, users=1, input_tokens=32, max_tokens=48, **quiet).summary()
    many = bench.closed_loop(
        server, users=STREAMS, input_tokens=32, max_tokens=48, **quiet
    ).summary()
    for result in (one, many):
        expect(result["failed"] == 0, f"{result['failed']:.0f} requests failed")
    found = BatchFindings.from_sweep(two_level_sweep(one, many, STREAMS))
    expect(
        found.shown,
        f"{STREAMS} streams gave only {found.gain:.1f}x one stream's total ({found.basis})",
    )
    return (
        f"1 stream {found.single_total:.0f} tok/s, {STREAMS} streams "
        f"{found.top_total:.0f} tok/s ({found.gain:.1f}x, {found.basis})"
    )


def _complete(server: Server, prompt: str) -> int:
    """Send one completion; the number of prompt tokens the server counted."""
    client = OpenAI(base_url=server.base_url, api_key="servelab", max_retries=0)
    done = client.completions.create(model=server.model, prompt=prompt, max_tokens=2, temperature=0)
    client.close()
    if done.usage is None:
        raise CheckFailed("the server's answer counted no usage (prompt tokens)")
    return done.usage.prompt_tokens


def check_prefix_cache(server: Server) -> str:
    prefix = " ".join(f"rule {i}: answer politely." for i in range(80))
    before = fetch_metrics(server.url)
    _complete(server, prefix + " First question?")
    middle = fetch_metrics(server.url)
    _complete(server, prefix + " Second question?")
    after = fetch_metrics(server.url)
    first = middle["prefix_cache_hits"] - before["prefix_cache_hits"]
    second = after["prefix_cache_hits"] - middle["prefix_cache_hits"]
    expect(
        second > 0,
        f"the second request with the same opening hit no cached token "
        f"(hits: {first:.0f} then {second:.0f})",
    )
    return f"second request reused {second:.0f} cached prompt tokens"


def check_chunked_prefill(server: Server) -> str:
    state = chunking_state(server.log_text())
    expect(
        state.enabled is True,
        f"the engine's log does not say chunked prefill is on: {state.describe()}",
    )
    expect(
        state.budget == STEP_BUDGET,
        f"the log gives a step budget of {state.budget}, not the {STEP_BUDGET} asked for",
    )
    prompt = " ".join(["word"] * LONG_PROMPT_WORDS)
    tokens = _complete(server, prompt)
    expect(state.splits(tokens), f"a {tokens}-token prompt fits one step of {state.budget}")
    return f"a {tokens}-token prompt was served in steps of at most {state.budget} tokens"


CHECKS: list[tuple[str, Callable[[Server], str]]] = [
    ("answer", check_answer),
    ("capacity", check_capacity),
    ("batching", check_batching),
    ("prefix cache", check_prefix_cache),
    ("chunked prefill", check_chunked_prefill),
]


def main() -> int:
    passed = failed = 0
    server = Server(
        max_model_len=2048,
        max_num_seqs=STREAMS,
        enable_prefix_caching=True,
        enable_chunked_prefill=True,
        max_num_batched_tokens=STEP_BUDGET,
    )
    print(f"{server.model} on {server.device.label}\n{server.command_line}", flush=True)
    started = time.monotonic()
    try:
        server.start()
    except Exception as error:  # report, as one failed check, why nothing else could run
        print(f"FAIL start: {error}")
        print(f"0 passed, {1 + len(CHECKS)} failed")
        return 1
    print(f"PASS start: healthy after {time.monotonic() - started:.0f} s", flush=True)
    passed += 1
    with server:
        for name, check in CHECKS:
            try:
                detail = check(server)
            except Exception as error:  # one failed check must not hide the others
                failed += 1
                print(f"FAIL {name}: {type(error).__name__}: {error}", flush=True)
            else:
                passed += 1
                print(f"PASS {name}: {detail}", flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
