"""What a student waits for on a free T4, chapter by chapter: the arithmetic and its constants.

The counts come from vLLM 0.11.2's own configuration (``engine_side`` reads them off each start's
``VllmConfig``); this module only adds them up. Every figure that is not counted is an
:class:`Estimate` below, with the place it comes from, so a reader can see which number to
measure next. Standard library only: it runs in the project's venv and is unit-tested there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

GIB = 2**30


@dataclass(frozen=True)
class Estimate:
    """One constant of the arithmetic, its unit, where it comes from, and whether it was
    measured (on a T4 or, as its source says, the way a T4 runtime would) or is stated."""

    value: float
    unit: str
    source: str
    measured: bool = False


# Memory (GiB). 0.11.2's worker asks for gpu_memory_utilization x the card's CUDA total and refuses
# to start when less than that is free (vllm/v1/worker/gpu_worker.py, init_device). The CUDA
# context is made before that snapshot and the graph pool after the KV cache is sized ("memory
# profiling does not consider CUDAGraph memory size", gpu_worker.py, compile_or_warm_up_model), so
# both come on top of the share.
T4_CUDA_TOTAL_GIB = Estimate(
    14.58,
    "GiB",
    "torch.cuda.mem_get_info's total on a Tesla T4, as PyTorch reports it ('GPU 0 "
    "has a total capacty of 14.58 GiB', datawhalechina/self-llm#162); nvidia-smi's 15,360 MiB "
    "less what the driver keeps",
    measured=True,
)
CUDA_CONTEXT_GIB = Estimate(
    0.4,
    "GiB",
    "stated estimate: a torch 2.9 process's CUDA context and cuBLAS workspace on "
    "sm75 with lazy module loading (0.3-0.5 GiB in nvidia-smi); one per server process",
)
GRAPH_POOL_GIB = Estimate(
    0.3,
    "GiB",
    "stated estimate: 0.11.2 logs 'Graph capturing finished in N secs, took X GiB' "
    "(gpu_model_runner.py, capture_model); 0.1-0.5 GiB for sub-1B models; 0 under eager",
)

# Time (seconds). The 0.11.2 figures in the sources are those its own code prints or states.
PIP_INSTALL_S = Estimate(
    285.0,
    "s",
    "stated, issue #49: the GPU pins (servelab/constraints-gpu.txt) are about 5 GB "
    "of downloads, 3.5-6 min with pip in a fresh Colab runtime; the midpoint",
)
UV_OVER_PIP = Estimate(
    0.59,
    "x",
    "measured: benchmarks/install_time.py on a 2-core AMD EPYC shared with other "
    "work, 7 December 2026, the install cell's command (-c constraints-gpu.txt vllm==0.11.2) "
    "over a venv already holding torch 2.13.0, which it replaces with 2.9.0, no download cache, "
    "side by side, each counting the first import of vLLM's API server after it: pip 360 + "
    "16.5 s, uv 190 + 32.4 s (uv writes no bytecode, so that import compiles it), uv "
    "--compile-bytecode 257 + 18.4 s (0.73, so the install cell keeps plain uv). "
    "servelab.env installs the engine with uv where it is on the path: Colab's image ships it "
    "(googlecolab/colabtools#5237), and so does Kaggle's (Kaggle/kaggle-environments#396)",
    measured=True,
)
INSTALL_S = Estimate(
    round(PIP_INSTALL_S.value * UV_OVER_PIP.value),
    "s",
    "derived: PIP_INSTALL_S x UV_OVER_PIP, the pip figure scaled by the ratio measured side by "
    "side, the bytecode the first import compiles included",
)
MODEL_DOWNLOAD_S = Estimate(
    30.0,
    "s",
    "stated estimate: Qwen/Qwen3-0.6B's 1.5 GB of safetensors at about 50 MB/s "
    "from the Hugging Face hub; once per runtime",
)
START_FIXED_S = Estimate(
    25.0,
    "s",
    "stated estimate: each start is a fresh process that imports vLLM and torch, "
    "loads the weights from the page cache and profiles one step (0.11.2's start-up log "
    "between its version line and 'torch.compile takes')",
)
COMPILE_COLD_S = Estimate(
    90.0,
    "s",
    "stated, issue #49: 1-2 min on a T4 when the compile cache misses (0.11.2 logs "
    "'torch.compile takes N s in total'); the midpoint",
)
COMPILE_WARM_S = Estimate(
    15.0,
    "s",
    "stated estimate: Dynamo's trace plus 'Directly load the compiled graph(s) ... "
    "from the cache' when the key (vllm/compilation/backends.py, VllmBackend.__call__) hits",
)
SECONDS_PER_GRAPH = Estimate(
    0.25,
    "s",
    "stated estimate: 0.11.2 says capture 'usually takes 5~20 seconds' for its "
    "default sizes (gpu_model_runner.py, capture_model), about 0.1-0.2 s a graph on the GPUs it "
    "is tuned on; a T4 is slower",
)
ESTIMATES: dict[str, Estimate] = {
    "T4_CUDA_TOTAL_GIB": T4_CUDA_TOTAL_GIB,
    "CUDA_CONTEXT_GIB": CUDA_CONTEXT_GIB,
    "GRAPH_POOL_GIB": GRAPH_POOL_GIB,
    "PIP_INSTALL_S": PIP_INSTALL_S,
    "UV_OVER_PIP": UV_OVER_PIP,
    "INSTALL_S": INSTALL_S,
    "MODEL_DOWNLOAD_S": MODEL_DOWNLOAD_S,
    "START_FIXED_S": START_FIXED_S,
    "COMPILE_COLD_S": COMPILE_COLD_S,
    "COMPILE_WARM_S": COMPILE_WARM_S,
    "SECONDS_PER_GRAPH": SECONDS_PER_GRAPH,
}


@dataclass(frozen=True)
class Start:
    """One server start as 0.11.2 configured it.

    ``compile_key``: the compile cache's config factors (``None`` when the compilation mode is
    NONE, as under ``--enforce-eager``: nothing is compiled). ``graphs``: CUDA graphs captured
    (0 for a refused start, which stops at KV sizing, after the compile). ``share``: its
    ``gpu_memory_utilization``. ``card``: the card it runs on. ``server``: which constructed
    server this is a start of (a restart repeats an earlier one).
    """

    server: int
    compile_key: str | None
    graphs: int
    share: float
    card: str = "0"
    refused: bool = False


@dataclass(frozen=True)
class SharedCard:
    """Servers up at once on one card, in the order they start, and the memory left for each.

    Each start needs ``share x total`` free after its own CUDA context; the servers before it
    hold their context, their share and their graph pool.
    """

    shares: tuple[float, ...]
    graphs: tuple[int, ...]

    def margins_gib(self) -> list[float]:
        """GiB left over at each start (free after its context, less its share), then what
        remains of the card once every server has captured its graphs."""
        total, context = T4_CUDA_TOTAL_GIB.value, CUDA_CONTEXT_GIB.value
        held, margins = 0.0, []
        for share, graphs in zip(self.shares, self.graphs, strict=True):
            margins.append(total - held - context - share * total)
            held += context + share * total + (GRAPH_POOL_GIB.value if graphs else 0.0)
        return [*margins, total - held]

    @property
    def fits(self) -> bool:
        return min(self.margins_gib()) > 0


def shared_cards(starts: Sequence[Start]) -> list[SharedCard]:
    """The cards on which a chapter keeps more than one server up at once.

    The capture records which servers are built, not which run together, so this takes the
    book's convention: a server given half a card or less (``share <= 0.5``) is built to run
    beside the others on its card; a larger share runs alone. Restarts are not counted twice.
    """
    first = {start.server: start for start in starts if not start.refused}
    by_card: dict[str, list[Start]] = {}
    for start in first.values():
        if start.share <= 0.5:
            by_card.setdefault(start.card, []).append(start)
    return [
        SharedCard(tuple(s.share for s in group), tuple(s.graphs for s in group))
        for _, group in sorted(by_card.items())
        if len(group) > 1
    ]


def start_seconds(start: Start, cold: bool) -> float:
    """One start: the fixed part, its compile (cold or warm), and its graphs."""
    compile_s = 0.0
    if start.compile_key is not None:
        compile_s = COMPILE_COLD_S.value if cold else COMPILE_WARM_S.value
    return START_FIXED_S.value + compile_s + start.graphs * SECONDS_PER_GRAPH.value


@dataclass(frozen=True)
class ChapterCount:
    """One chapter on one runtime: its starts in order, and what they add up to."""

    chapter: str
    runtime: str
    starts: tuple[Start, ...] = field(default_factory=tuple)
    partial: bool = False  # the capture stopped before some server: the counts are a floor

    @property
    def cold_compiles(self) -> int:
        """Distinct compile-cache keys: each misses the empty cache of a fresh runtime once."""
        return len({s.compile_key for s in self.starts if s.compile_key is not None})

    @property
    def graphs(self) -> list[int]:
        return [start.graphs for start in self.starts]

    def starts_seconds(self) -> float:
        """The starts' wall time: each key's first start compiles cold, its later ones warm."""
        seen: set[str] = set()
        total = 0.0
        for start in self.starts:
            total += start_seconds(start, cold=start.compile_key not in seen)
            if start.compile_key is not None:
                seen.add(start.compile_key)
        return total

    def line(self) -> str:
        """One row of the table ``make gpu-contract`` prints; its ``t4-wait`` line (``t4_count``)
        adds the starts' time to the install, the download and the measurement."""
        cards = shared_cards(self.starts)
        shared = (
            "; ".join(
                f"{len(c.shares)} x {c.shares[0]:.2f} on one T4: "
                + ", ".join(f"{m:+.2f}" for m in c.margins_gib())
                + " GiB"
                for c in cards
            )
            or "none"
        )
        graphs = "+".join(str(n) for n in self.graphs) or "0"
        return (
            f"{self.chapter:<28} {self.runtime:<6} starts {len(self.starts):>2}  cold "
            f"compiles {self.cold_compiles}  graphs {graphs} = {sum(self.graphs)}  "
            f"shared {shared}  starts take {self.starts_seconds() / 60:.1f} min"
            + ("  PARTIAL: not every server was reached" if self.partial else "")
        )


def constants_text() -> list[str]:
    """Each constant with its value and source, for the foot of the table."""
    return [
        f"  {name} = {e.value:g} {e.unit} ({'measured' if e.measured else 'stated'}): {e.source}"
        for name, e in ESTIMATES.items()
    ]
