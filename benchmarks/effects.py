"""The lessons' effects, measured on the offline CPU engine and printed as ratios.

- batching: aggregate output tok/s of 32 users ÷ that of a single stream;
- static_vs_continuous: the same requests (exponential output lengths), continuous batching
  throughput ÷ static batching (waves of 8) throughput;
- prefix_ttft: median TTFT on a 2,000-token shared system prompt without ÷ with prefix caching.
  "Without" gives every request its own ``cache_salt``, which keeps vLLM from reusing the cached
  prefix: the same server and scheduler settings, with only the reuse taken away;
- chunked_p99_itl: p99 of the decoding users' inter-token gaps while a 2,000-token prompt is
  prefilled, unchunked (a token budget of 4,096 per step: the prompt fits in one step) ÷ chunked
  (256 tokens per step).

Last line:  effects: batching=<x> static_vs_continuous=<x> prefix_ttft=<x> chunked_p99_itl=<x>
Run it with the engine lock held:  flock /tmp/servelab-engine.lock python benchmarks/effects.py
"""

from __future__ import annotations

import time

import numpy as np

import servelab.bench as bench
from servelab import Server

MAX_MODEL_LEN = 4096
DOCUMENT_TOKENS = 2000
CHUNK_TOKENS = 256
UNCHUNKED_TOKENS = 4096
QUIET = {"progress": False}


def server(max_num_batched_tokens: int) -> Server:
    return Server(max_model_len=MAX_MODEL_LEN, max_num_seqs=32, enable_prefix_caching=True,
                  enable_chunked_prefill=True, max_num_batched_tokens=max_num_batched_tokens,
                  enforce_eager=True)


def p99_itl_during_prefill(result: bench.Result) -> float:
    gaps = result.itls_during("interferer")
    if not gaps:
        raise RuntimeError(f"no user token gaps overlap the long prefill: {result}")
    return float(np.percentile(gaps, 99))


def interference(target: Server, label: str) -> float:
    result = bench.interferer(target, users=4, user_max_tokens=160,
                              document_tokens=DOCUMENT_TOKENS, arrival=1.0, **QUIET)
    p99 = p99_itl_during_prefill(result)
    print(f"  {label}: {result}\n    p99 ITL while the document is prefilled: {p99 * 1000:.0f} ms",
          flush=True)
    return p99


def main() -> None:
    started = time.monotonic()
    with server(CHUNK_TOKENS) as chunked:
        print(f"{chunked.model} on {chunked.device.label}\n{chunked.command_line}", flush=True)
        bench.closed_loop(chunked, users=4, max_tokens=16, seed=99, **QUIET)  # warm-up

        single = bench.closed_loop(chunked, users=1, input_tokens=32, max_tokens=64, **QUIET)
        many = bench.closed_loop(chunked, users=32, input_tokens=32, max_tokens=64, seed=1,
                                 **QUIET)
        batching = many.summary()["output_tok_s"] / single.summary()["output_tok_s"]
        print(f"batching:\n  {single}\n  {many}", flush=True)

        plan = {"batch_size": 8, "num_requests": 16, "mean_output_tokens": 64,
                "max_output_tokens": 256, "seed": 2}
        static = bench.static_batching(chunked, continuous=False, **plan, **QUIET)
        continuous = bench.static_batching(chunked, continuous=True, **plan, **QUIET)
        static_vs_continuous = (continuous.summary()["output_tok_s"]
                                / static.summary()["output_tok_s"])
        print(f"static vs continuous:\n  {static}\n  {continuous}", flush=True)

        shared = {"prefix_tokens": DOCUMENT_TOKENS, "users": 1, "requests_per_user": 3,
                  "max_tokens": 8}
        cached = bench.shared_prefix(chunked, reuse_cache=True, seed=3, **shared, **QUIET)
        uncached = bench.shared_prefix(chunked, reuse_cache=False, seed=4, **shared, **QUIET)
        prefix_ttft = uncached.summary()["ttft_ms_p50"] / cached.summary()["ttft_ms_p50"]
        print(f"prefix caching:\n  with: {cached}\n  without: {uncached}\n"
              f"  prefix-cache hit rate with: {cached.summary()['prefix_cache_hit_rate']:.2f}",
              flush=True)

        print("long prefill while users decode:", flush=True)
        chunked_itl = interference(chunked, f"chunked ({CHUNK_TOKENS} tokens per step)")

    with server(UNCHUNKED_TOKENS) as unchunked:
        bench.closed_loop(unchunked, users=4, max_tokens=16, seed=99, **QUIET)  # warm-up
        unchunked_itl = interference(unchunked, f"unchunked ({UNCHUNKED_TOKENS} per step)")

    print(f"(took {time.monotonic() - started:.0f} s)")
    print(f"effects: batching={batching:.2f} static_vs_continuous={static_vs_continuous:.2f} "
          f"prefix_ttft={prefix_ttft:.2f} chunked_p99_itl={unchunked_itl / chunked_itl:.2f}")


if __name__ == "__main__":
    main()
