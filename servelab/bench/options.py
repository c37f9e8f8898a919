"""The keyword options of ``servelab.bench.run``, as one type the workload helpers pass on.

``closed_loop(server, users=4, time_limit=60, progress=False)`` hands ``time_limit`` and
``progress`` to ``run`` unchanged; ``Unpack[RunOptions]`` lets the type checker hold each one to
the type ``run`` takes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from servelab.bench.prompts import PromptSource


class RunOptions(TypedDict, total=False):
    """``run``'s keywords, each optional (``run`` documents what they do and their defaults)."""

    endpoint: str
    time_limit: float
    slo: Mapping[str, float] | None
    metrics_interval: float | None
    progress: bool
    prompts: PromptSource | None
