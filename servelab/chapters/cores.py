"""Which CPU cores vLLM's CPU engine computes on.

Left to itself (``VLLM_CPU_OMP_THREADS_BIND=auto``) vLLM 0.32's CPU engine binds its threads to
all cores but one and reserves that one for the server's other processes: on a 2-core machine the
model runs on a single core. A chapter that compares vLLM with an engine given every core, or
splits the cores between two servers, names the cores itself with ``bind_env``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

BIND_VARIABLE = "VLLM_CPU_OMP_THREADS_BIND"


def available_cores() -> list[int]:
    """The cores this process may run on, in order."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:
        return list(range(os.cpu_count() or 1))


def bind_env(cores: Sequence[int]) -> dict[str, str]:
    """The environment that binds a vLLM CPU engine's threads to exactly ``cores``."""
    if not cores:
        raise ValueError("at least one core is needed")
    return {BIND_VARIABLE: ",".join(str(core) for core in sorted(cores))}
