"""What should vLLM's CPU engine compute in on this processor: the model's bfloat16, or float32?

``servelab.hardware.default_dtype`` keeps the model's bfloat16 where the processor has bf16
instructions (``BF16_CPU_FLAGS``) and picks float32 elsewhere, where vLLM's CPU kernels emulate
bf16 (on a 2-core AVX2 EPYC a 512-token prefill took 14.4 s in bf16 and 2.3 s in float32). This
script checks that rule on the machine it runs on: it starts the same server in each dtype,
``--rounds`` times each, interleaved, and prints each figure's median and range per dtype and the
float32 ÷ bfloat16 ratio (``server_modes``)::

    flock /tmp/servelab-engine.lock python benchmarks/dtype.py

Last line:  dtype: start=<x> single_tok_s=<x> many_tok_s=<x> batching_gain=<x> itl_p50=<x>
            prefill_tok_s=<x> stall_p99=<x> overlap=<figures whose ranges overlap>
A ratio of 1 inside the overlap list means this run cannot tell the two apart on that figure.
float32 also takes twice the bytes per cached token, so the same cache holds half the tokens.
"""

from __future__ import annotations

import argparse

from server_modes import compare

from servelab.hardware import BF16_CPU_FLAGS, cpu_flags

MODES = {"bfloat16": {"dtype": "bfloat16"}, "float32": {"dtype": "float32"}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    rounds = parser.parse_args().rounds
    flags = sorted(cpu_flags() & BF16_CPU_FLAGS) or ["none"]
    print(f"bf16 instructions on this processor: {', '.join(flags)}", flush=True)
    compare("dtype", MODES, rounds)


if __name__ == "__main__":
    main()
