"""Does running vLLM's engine core inside the API server's process change what a lesson measures?

vLLM's default runs the engine core in a process of its own (three processes import vLLM on the
CPU engine); ``VLLM_ENABLE_V1_MULTIPROCESSING=0`` keeps it in the API server's process (one import
fewer). The smoke size uses that already; this script decides whether the cpu size may too. It
starts the same server both ways, ``--rounds`` times each, interleaved (default, in-process,
default, ...), and prints each figure's median and range per mode and the in-process ÷ default
ratio (``server_modes``)::

    flock /tmp/servelab-engine.lock python benchmarks/in_process.py

Last line:  in_process: start=<x> single_tok_s=<x> many_tok_s=<x> batching_gain=<x> itl_p50=<x>
            prefill_tok_s=<x> stall_p99=<x> overlap=<figures whose ranges overlap>
A ratio of 1 inside the overlap list means this run cannot tell the two apart on that figure.
"""

from __future__ import annotations

import argparse

from server_modes import compare

MODES = {"default": {}, "in_process": {"env": {"VLLM_ENABLE_V1_MULTIPROCESSING": "0"}}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    compare("in_process", MODES, parser.parse_args().rounds)


if __name__ == "__main__":
    main()
