"""Does running vLLM's engine core inside the API server's process change what a lesson measures?

vLLM's default runs the engine core in a process of its own (three processes import vLLM on the
CPU engine); ``VLLM_ENABLE_V1_MULTIPROCESSING=0`` keeps it in the API server's process (one import
fewer). The smoke size uses that already; this script decides whether the cpu size may too. It
starts the same server both ways, ``--rounds`` times each, interleaved (default, in-process,
default, ...), and in each measures the start, one stream, ``USERS`` streams, the prefill rate and
a long prompt's effect on decoding users, then prints each figure's median and range per mode
and the in-process ÷ default ratio::

    flock /tmp/servelab-engine.lock python benchmarks/in_process.py

Last line:  in_process: start=<x> single_tok_s=<x> batching_gain=<x> itl_p50=<x>
            prefill_tok_s=<x> stall_p99=<x> overlap=<figures whose ranges overlap>
A ratio of 1 inside the overlap list means this run cannot tell the two apart on that figure.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import servelab.bench as bench
from servelab import Server
from servelab.bench.options import RunOptions

MODES = {"default": {}, "in_process": {"VLLM_ENABLE_V1_MULTIPROCESSING": "0"}}
MAX_MODEL_LEN = 4096
USERS = 16
ANSWER_TOKENS = 64
PREFILL_TOKENS = 1024
DOCUMENT_TOKENS = 2048
QUIET: RunOptions = {"progress": False}


def measure(env: dict[str, str]) -> dict[str, float]:
    """One start of the server in this mode and the figures the lessons rest on."""
    began = time.monotonic()
    with Server(max_model_len=MAX_MODEL_LEN, max_num_seqs=USERS, env=env) as server:
        start_s = time.monotonic() - began
        bench.warm_up(server)
        one = bench.closed_loop(server, users=1, max_tokens=ANSWER_TOKENS, **QUIET).summary()
        many = bench.closed_loop(server, users=USERS, max_tokens=ANSWER_TOKENS, seed=1,
                                 **QUIET).summary()
        prefill = bench.prefill_fit(server, long_tokens=PREFILL_TOKENS)
        stall = bench.interferer(server, users=4, user_max_tokens=96,
                                 document_tokens=DOCUMENT_TOKENS, arrival=1.0, **QUIET)
        gaps = stall.itls_during(bench.Role.INTERFERER)
    return {"start": start_s, "single_tok_s": one["output_tok_s"],
            "batching_gain": many["output_tok_s"] / one["output_tok_s"],
            "itl_p50": many["itl_ms_p50"], "prefill_tok_s": prefill.tok_s,
            "stall_p99": float(np.percentile(gaps, 99)) * 1000 if gaps else float("nan")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    rounds = parser.parse_args().rounds
    runs: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
    began = time.monotonic()
    for round_ in range(rounds):
        for mode, env in MODES.items():
            runs[mode].append(measure(env))
            print(f"round {round_ + 1} {mode}: " + ", ".join(
                f"{k}={v:.2f}" for k, v in runs[mode][-1].items()), flush=True)
    ratios, overlap = [], []
    for figure in runs["default"][0]:
        values = {mode: [run[figure] for run in runs[mode]] for mode in MODES}
        for mode, seen in values.items():
            print(f"  {figure:<14} {mode:<10} median {np.median(seen):9.2f}  "
                  f"range {min(seen):.2f}-{max(seen):.2f}")
        ratio = np.median(values["in_process"]) / np.median(values["default"])
        ratios.append(f"{figure}={ratio:.2f}")
        if (min(values["in_process"]) <= max(values["default"])
                and min(values["default"]) <= max(values["in_process"])):
            overlap.append(figure)
    print(f"(took {time.monotonic() - began:.0f} s, {rounds} rounds)")
    print(f"in_process: {' '.join(ratios)} overlap={','.join(overlap) or 'none'}")


if __name__ == "__main__":
    main()
