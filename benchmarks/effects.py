"""The lessons' effects, measured on the offline CPU engine and printed as ratios.

- batching: output tok/s of 32 users ÷ that of a single stream, over each whole run (ramp-up and
  tail included); batching_steady: the same ratio inside each run's steady window, where every
  user is decoding (``servelab.bench.metrics.steady``) — what the lesson's "100 tok/s for one
  stream, 2,000 for 32" describes;
- static_vs_continuous: the same requests (most answers 2-8 tokens, one in eight 160-192, seeded),
  continuous batching throughput ÷ static batching (waves of 16) throughput;
- prefix_ttft: median TTFT on a 2,000-token shared system prompt without ÷ with prefix caching.
  "Without" gives every request its own ``cache_salt``, which keeps vLLM from reusing the cached
  prefix: the same server and scheduler settings, with only the reuse taken away;
- chunked_p99_itl: p99 of the decoding users' inter-token gaps while a 2,000-token prompt is
  prefilled, unchunked (a token budget of 4,096 per step: the prompt fits in one step) ÷ chunked
  (256 tokens per step).

Last line:  effects: batching=<x> batching_steady=<x> static_vs_continuous=<x> prefix_ttft=<x>
            chunked_p99_itl=<x>   (one line)
Run it with the engine lock held:  flock /tmp/servelab-engine.lock python benchmarks/effects.py
``--enforce-eager on|off`` overrides the engine's own choice (``Server`` picks when not given).
On the CPU engine ``off`` (compiled) answers some greedy questions wrongly (see ``Server``): use it
only to measure what compilation changes, never for the lesson's figures.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np

import servelab.bench as bench
from servelab import Server
from servelab.bench.options import RunOptions

MAX_MODEL_LEN = 4096
DOCUMENT_TOKENS = 2000
CHUNK_TOKENS = 256
UNCHUNKED_TOKENS = 4096
MANY_USERS = 32
ANSWER_TOKENS = 128
WAVES = bench.StaticBatching(
    batch_size=16,
    num_requests=96,
    input_tokens=16,
    short_tokens=(2, 8),
    long_tokens=(160, 192),
    long_share=0.125,
    seed=0,
)
QUIET: RunOptions = {"progress": False}
EAGER_CHOICES = {"auto": None, "on": True, "off": False}


def server(max_num_batched_tokens: int, enforce_eager: bool | None) -> Server:
    return Server(
        max_model_len=MAX_MODEL_LEN,
        max_num_seqs=MANY_USERS,
        enable_prefix_caching=True,
        enable_chunked_prefill=True,
        max_num_batched_tokens=max_num_batched_tokens,
        enforce_eager=enforce_eager,
    )


def p99_itl_during_prefill(result: bench.Result) -> float:
    gaps = result.itls_during(bench.Role.INTERFERER)
    if not gaps:
        raise RuntimeError(f"no user token gaps overlap the long prefill: {result}")
    return float(np.percentile(gaps, 99))


def interference(target: Server, label: str) -> float:
    result = bench.interferer(
        target, users=4, user_max_tokens=160, document_tokens=DOCUMENT_TOKENS, arrival=1.0, **QUIET
    )
    p99 = p99_itl_during_prefill(result)
    print(
        f"  {label}: {result}\n    p99 ITL while the document is prefilled: {p99 * 1000:.0f} ms",
        flush=True,
    )
    return p99


def ratio(a: bench.Result, b: bench.Result, key: str) -> float:
    return a.summary()[key] / b.summary()[key]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--enforce-eager", choices=EAGER_CHOICES, default="auto")
    eager = EAGER_CHOICES[parser.parse_args().enforce_eager]
    started = time.monotonic()
    with server(CHUNK_TOKENS, eager) as chunked:
        print(f"{chunked.model} on {chunked.device.label}\n{chunked.command_line}", flush=True)
        bench.closed_loop(chunked, users=4, max_tokens=16, seed=99, **QUIET)  # warm-up

        single = bench.closed_loop(
            chunked, users=1, input_tokens=32, max_tokens=ANSWER_TOKENS, **QUIET
        )
        many = bench.closed_loop(
            chunked, users=MANY_USERS, input_tokens=32, max_tokens=ANSWER_TOKENS, seed=1, **QUIET
        )
        batching = ratio(many, single, "output_tok_s")
        batching_steady = ratio(many, single, "steady_output_tok_s")
        share = ratio(many, single, "steady_user_tok_s")
        print(
            f"batching:\n  {single}\n  {many}\n  steady state: each of {MANY_USERS} users "
            f"decodes at {share:.0%} of the single stream's speed",
            flush=True,
        )

        static = bench.run(chunked, WAVES, **QUIET)
        continuous = bench.run(chunked, replace(WAVES, continuous=True), **QUIET)
        static_vs_continuous = ratio(continuous, static, "output_tok_s")
        print(
            f"static vs continuous:\n  {static}\n  {continuous}\n  idle slot share: static "
            f"{static.summary()['idle_slot_share']:.0%}, continuous "
            f"{continuous.summary()['idle_slot_share']:.0%}",
            flush=True,
        )

        cached = bench.shared_prefix(
            chunked,
            DOCUMENT_TOKENS,
            users=1,
            requests_per_user=3,
            max_tokens=8,
            reuse_cache=True,
            seed=3,
            **QUIET,
        )
        uncached = bench.shared_prefix(
            chunked,
            DOCUMENT_TOKENS,
            users=1,
            requests_per_user=3,
            max_tokens=8,
            reuse_cache=False,
            seed=4,
            **QUIET,
        )
        prefix_ttft = ratio(uncached, cached, "ttft_ms_p50")
        print(
            f"prefix caching:\n  with: {cached}\n  without: {uncached}\n"
            f"  prefix-cache hit rate with: {cached.summary()['prefix_cache_hit_rate']:.2f}",
            flush=True,
        )

        print("long prefill while users decode:", flush=True)
        chunked_itl = interference(chunked, f"chunked ({CHUNK_TOKENS} tokens per step)")

    with server(UNCHUNKED_TOKENS, eager) as unchunked:
        bench.closed_loop(unchunked, users=4, max_tokens=16, seed=99, **QUIET)  # warm-up
        unchunked_itl = interference(unchunked, f"unchunked ({UNCHUNKED_TOKENS} per step)")

    print(f"(took {time.monotonic() - started:.0f} s)")
    print(
        f"effects: batching={batching:.2f} batching_steady={batching_steady:.2f} "
        f"static_vs_continuous={static_vs_continuous:.2f} prefix_ttft={prefix_ttft:.2f} "
        f"chunked_p99_itl={unchunked_itl / chunked_itl:.2f}"
    )


if __name__ == "__main__":
    main()
