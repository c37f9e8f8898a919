"""Which cores should vLLM's CPU engine compute on: its own placement, or every core?

Left to itself (``VLLM_CPU_OMP_THREADS_BIND=auto``) vLLM's CPU engine computes on all cores but
one and keeps that one for the server's other processes; on a 2-core machine the model runs on
one core. Bound to every core, the model has them all and the API server shares them. The book
runs every chapter one way (``servelab.hardware.engine_env``); this script decides which. It
starts the same server both ways, ``--rounds`` times each, interleaved, and prints each figure's
median and range per placement and the every-core ÷ own-placement ratio (``server_modes``)::

    flock /tmp/servelab-engine.lock python benchmarks/placement.py

Last line:  placement: start=<x> single_tok_s=<x> many_tok_s=<x> batching_gain=<x> itl_p50=<x>
            prefill_tok_s=<x> stall_p99=<x> overlap=<figures whose ranges overlap>
A ratio of 1 inside the overlap list means this run cannot tell the two apart on that figure.
"""

from __future__ import annotations

import argparse

from server_modes import compare

from servelab.hardware import BIND_VARIABLE, available_cores, bind_env

MODES = {
    "own_placement": {"env": {BIND_VARIABLE: "auto"}},
    "every_core": {"env": bind_env(available_cores())},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    compare("placement", MODES, parser.parse_args().rounds)


if __name__ == "__main__":
    main()
