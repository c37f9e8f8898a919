"""Where a chapter's wall time went: its install, each server start, and the rest (measuring).

:data:`CLOCK` is this kernel's: ``env.bootstrap`` stops its install timer (started by the install
cell), each vLLM server adds its start as it comes up (``engines.vllm_server``), and the chapter's
result record (``servelab.results``) takes the split from it. A start's compile, CUDA-graph
capture and engine initialisation are the seconds vLLM itself logs; a part it does not log (an
eager start compiles and captures nothing) is ``None``.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

# vLLM 0.11.2 ("torch.compile takes 41.07 s in total", vllm/compilation/monitor.py) and the CPU
# engine 0.32 ("torch.compile took ..."): the whole compile of one start.
_COMPILE = re.compile(r"torch\.compile (?:takes|took) ([\d.]+) s in total")
# Both versions: "Graph capturing finished in 12 secs, took 0.31 GiB" (gpu_model_runner.py).
_GRAPHS = re.compile(r"Graph capturing finished in ([\d.]+) secs")
# 0.11.2: "... took 58.20 seconds"; 0.32: "... took 0.77 s" (vllm/v1/engine/core.py).
_ENGINE = re.compile(r"init engine \(profile, create kv cache, warmup model\) took ([\d.]+) s")


@dataclass(frozen=True)
class StartTimes:
    """One server start: ``wall_s`` from launch until it answered (servelab's own clock), and
    what vLLM logged of it; with two workers (tensor parallel) each logs, and the slower
    counts, as they run side by side."""

    wall_s: float
    engine_s: float | None
    compile_s: float | None
    graphs_s: float | None


def _logged(pattern: re.Pattern[str], log_text: str) -> float | None:
    found = [float(value) for value in pattern.findall(log_text)]
    return max(found) if found else None


def read_start(log_text: str, wall_s: float) -> StartTimes:
    """The times a vLLM server's start-up log holds, beside the ``wall_s`` it took."""
    return StartTimes(
        wall_s=wall_s,
        engine_s=_logged(_ENGINE, log_text),
        compile_s=_logged(_COMPILE, log_text),
        graphs_s=_logged(_GRAPHS, log_text),
    )


@dataclass
class Clock:
    """This kernel's wall time so far: the install, then every server start since."""

    install_s: float | None = None
    installed_at: float | None = None  # time.monotonic() when the install cell finished
    starts: list[StartTimes] = field(default_factory=list)

    def installed(self, started: float | None) -> None:
        """The install cell is done; ``started`` is its timer (``None``: an install cell older
        than this split, which did not time itself)."""
        self.installed_at = time.monotonic()
        self.install_s = None if started is None else self.installed_at - started
        self.starts.clear()

    def measured_s(self) -> float | None:
        """Seconds since the install cell, less the server starts: the chapter's measuring (and
        any pause between cells, none under Run all); ``None`` before an install cell ran."""
        if self.installed_at is None:
            return None
        return time.monotonic() - self.installed_at - sum(s.wall_s for s in self.starts)


CLOCK = Clock()
