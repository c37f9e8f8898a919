"""Does servelab.bench measure what vLLM's own benchmark measures?

Starts the offline CPU server once and runs one workload — 64 prompts of exactly INPUT_TOKENS
tokens, MAX_TOKENS output tokens each (ignore_eos), at most 32 in flight — alternately with
servelab.bench and with ``vllm.benchmarks.serve`` (the code behind ``vllm bench serve``; the CPU
build's ``vllm`` command cannot start, so it is called through its module in a subprocess).
Prints both side by side; the last line compares the means of the two:

    fidelity: output_tok_s_ratio=<servelab/vllm> ttft_p50_ratio=<servelab/vllm>

Run it with the engine lock held:  flock /tmp/servelab-engine.lock python benchmarks/fidelity.py
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import servelab.bench as bench
from servelab import Server

PROMPTS = 64
CONCURRENCY = 32
INPUT_TOKENS = 64
MAX_TOKENS = 128
ROUNDS = 2

# servelab summary key -> vLLM result key
COMPARED = {
    "output_tok_s": "output_throughput",
    "request_per_s": "request_throughput",
    "ttft_ms_p50": "median_ttft_ms",
    "ttft_ms_p99": "p99_ttft_ms",
    "tpot_ms_p50": "median_tpot_ms",
    "itl_ms_p50": "median_itl_ms",
    "itl_ms_p99": "p99_itl_ms",
    "e2e_ms_p50": "median_e2el_ms",
}

VLLM_BENCH = (
    "import sys\n"
    "from vllm.benchmarks.serve import add_cli_args, main\n"
    "from vllm.utils.argparse_utils import FlexibleArgumentParser\n"
    "parser = FlexibleArgumentParser()\n"
    "add_cli_args(parser)\n"
    "main(parser.parse_args(sys.argv[1:]))\n"
)


def run_servelab(server: Server, seed: int) -> dict[str, float]:
    result = bench.closed_loop(
        server,
        users=CONCURRENCY,
        requests_per_user=PROMPTS // CONCURRENCY,
        input_tokens=INPUT_TOKENS,
        max_tokens=MAX_TOKENS,
        seed=seed,
        progress=False,
    )
    print("  servelab:", result, flush=True)
    return result.summary()


def run_vllm(server: Server, seed: int, out_dir: Path) -> dict[str, float]:
    name = f"vllm-{seed}.json"
    args = [
        "--backend",
        "openai",
        "--base-url",
        server.url,
        "--endpoint",
        "/v1/completions",
        "--model",
        server.model_path,
        "--served-model-name",
        server.model,
        "--tokenizer",
        server.model_path,
        "--dataset-name",
        "random",
        "--random-input-len",
        str(INPUT_TOKENS),
        "--random-output-len",
        str(MAX_TOKENS),
        "--num-prompts",
        str(PROMPTS),
        "--max-concurrency",
        str(CONCURRENCY),
        "--ignore-eos",
        "--seed",
        str(seed),
        "--percentile-metrics",
        "ttft,tpot,itl,e2el",
        "--metric-percentiles",
        "50,90,99",
        "--disable-tqdm",
        "--save-result",
        "--result-dir",
        str(out_dir),
        "--result-filename",
        name,
    ]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", VLLM_BENCH, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"vllm.benchmarks.serve failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    raw = json.loads((out_dir / name).read_text())
    row = {ours: float(raw[theirs]) for ours, theirs in COMPARED.items()}
    print(
        f"  vllm:     {row['output_tok_s']:.0f} output tok/s · TTFT p50 "
        f"{row['ttft_ms_p50']:.0f} ms · ITL p50 {row['itl_ms_p50']:.0f} ms, p99 "
        f"{row['itl_ms_p99']:.0f} ms · completed {raw['completed']}/{PROMPTS}",
        flush=True,
    )
    return row


def main() -> None:
    started = time.monotonic()
    with (
        Server(max_model_len=2048, max_num_seqs=CONCURRENCY) as server,
        tempfile.TemporaryDirectory() as tmp,
    ):
        print(f"{server.model} on {server.device.label}\n{server.command_line}", flush=True)
        # Warm-up, not measured: first requests pay one-time costs in the server.
        bench.closed_loop(
            server, users=4, input_tokens=INPUT_TOKENS, max_tokens=16, seed=99, progress=False
        )
        ours, theirs = [], []
        for round_ in range(ROUNDS):
            print(f"round {round_ + 1}/{ROUNDS}", flush=True)
            ours.append(run_servelab(server, seed=round_))
            theirs.append(run_vllm(server, seed=round_, out_dir=Path(tmp)))

    print(f"\n{'metric':<16}{'servelab':>12}{'vllm':>12}{'ratio':>8}")
    means = {}
    for key in COMPARED:
        a = statistics.mean(row[key] for row in ours)
        b = statistics.mean(row[key] for row in theirs)
        means[key] = a / b
        print(f"{key:<16}{a:>12.1f}{b:>12.1f}{a / b:>8.3f}")
    print(f"(took {time.monotonic() - started:.0f} s)")
    print(
        f"fidelity: output_tok_s_ratio={means['output_tok_s']:.3f} "
        f"ttft_p50_ratio={means['ttft_ms_p50']:.3f}"
    )


if __name__ == "__main__":
    main()
