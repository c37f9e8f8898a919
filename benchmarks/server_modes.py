"""Interleaved rounds of one server started in two or more modes, and the figures compared.

``benchmarks/in_process.py`` (where the engine core runs), ``benchmarks/placement.py`` (which
cores the engine computes on) and ``benchmarks/dtype.py`` (what the CPU engine computes in) differ
only in the ``Server`` options each mode gives the server (its environment, its dtype). Each
round starts the server once per mode, in turn, and measures the start, one stream, ``USERS``
streams, the prefill rate and a long prompt's effect on decoding users; ``compare`` prints each
figure's median and range per mode, then one line of ratios (the second mode over the first) and
the figures whose ranges overlap, where this run cannot tell the modes apart.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

import servelab.bench as bench
from servelab import Server
from servelab.bench.options import RunOptions

MAX_MODEL_LEN = 4096
USERS = 16
ANSWER_TOKENS = 64
PREFILL_TOKENS = 1024
DOCUMENT_TOKENS = 2048
QUIET: RunOptions = {"progress": False}


def measure(options: Mapping[str, Any]) -> dict[str, float]:
    """One start of the server with ``options`` (``Server`` keyword arguments) and the figures
    the lessons rest on."""
    began = time.monotonic()
    with Server(max_model_len=MAX_MODEL_LEN, max_num_seqs=USERS, **options) as server:
        start_s = time.monotonic() - began
        bench.warm_up(server)
        one = bench.closed_loop(server, users=1, max_tokens=ANSWER_TOKENS, **QUIET).summary()
        many = bench.closed_loop(
            server, users=USERS, max_tokens=ANSWER_TOKENS, seed=1, **QUIET
        ).summary()
        prefill = bench.prefill_fit(server, long_tokens=PREFILL_TOKENS)
        stall = bench.interferer(
            server,
            users=4,
            user_max_tokens=96,
            document_tokens=DOCUMENT_TOKENS,
            arrival=1.0,
            **QUIET,
        )
        gaps = stall.itls_during(bench.Role.INTERFERER)
    return {
        "start": start_s,
        "single_tok_s": one["output_tok_s"],
        "many_tok_s": many["output_tok_s"],
        "batching_gain": many["output_tok_s"] / one["output_tok_s"],
        "itl_p50": many["itl_ms_p50"],
        "prefill_tok_s": prefill.tok_s,
        "stall_p99": float(np.percentile(gaps, 99)) * 1000 if gaps else float("nan"),
    }


def compare(name: str, modes: Mapping[str, Mapping[str, Any]], rounds: int) -> None:
    """Measure every mode (its ``Server`` keyword arguments) ``rounds`` times, interleaved, and
    print the comparison."""
    first, second = list(modes)[:2]
    runs: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
    began = time.monotonic()
    for round_ in range(rounds):
        for mode, options in modes.items():
            runs[mode].append(measure(options))
            print(
                f"round {round_ + 1} {mode}: "
                + ", ".join(f"{k}={v:.2f}" for k, v in runs[mode][-1].items()),
                flush=True,
            )
    ratios, overlap = [], []
    for figure in runs[first][0]:
        values = {mode: [run[figure] for run in runs[mode]] for mode in modes}
        for mode, seen in values.items():
            print(
                f"  {figure:<14} {mode:<12} median {np.median(seen):9.2f}  "
                f"range {min(seen):.2f}-{max(seen):.2f}"
            )
        ratio = np.median(values[second]) / np.median(values[first])
        ratios.append(f"{figure}={ratio:.2f}")
        if min(values[second]) <= max(values[first]) and min(values[first]) <= max(values[second]):
            overlap.append(figure)
    print(f"(took {time.monotonic() - began:.0f} s, {rounds} rounds)")
    print(f"{name}: {' '.join(ratios)} overlap={','.join(overlap) or 'none'}")
