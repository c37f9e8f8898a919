"""Chapter 08's findings: the engines' runs read once, every comparison a named verdict.

llama.cpp runs through llama-cpp-python's server on the 4-bit file and on a 16-bit one, so that
the page can separate what the engine does from what the file format does, and as its own
``llama-server`` with parallel slots on the 4-bit file, so that the crowd meets llama.cpp at its
best. ``EngineFindings`` holds what ``servelab.lessons.when_not_to.words`` states.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import cast

import pandas as pd

from servelab.bench.metrics import OUTPUT_TOK_S, USER_TOK_S
from servelab.bench.pace import CpuPace
from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared, compare
from servelab.lessons.thresholds import ALIKE
from servelab.lessons.when_not_to.against import Against
from servelab.lessons.when_not_to.thresholds import ALONE_KEEPS

LLAMA_Q4, LLAMA_F16 = "llama-cpp-python Q4_1", "llama-cpp-python F16"
LLAMA_SERVER, VLLM = "llama-server Q4_1", "vLLM"


@dataclass(frozen=True)
class Facts:
    """What the page states besides the runs: where each engine ran, the files and the set-up."""

    many: int
    llama_device: str  # e.g. "the CPU (2 cores)"
    vllm_device: str  # e.g. "the CPU (2 cores)" or "GPU Tesla T4 (15 GiB, ...)"
    vllm_on_gpu: bool
    q4_bits: float  # bits per weight of the packed file, scales included
    f16_bits: float
    start_s: Mapping[str, float]  # seconds from launch to the first answer, per engine
    compile_s: float | None  # llama-cpp-python's build on this machine (None: not recorded)
    vllm_dtype: str = "bfloat16"  # what vLLM computed in (server.flags["dtype"] or the model's)
    server_compile_s: float | None = None  # llama-server's build here, after the binding's

    @property
    def vllm_bits(self) -> int:
        return 32 if self.vllm_dtype in ("float32", "float") else 16

    @property
    def bytes_f16_over_q4(self) -> float:
        """How many times the bytes per token the F16 file reads against the packed one."""
        return self.f16_bits / self.q4_bits


def _by_engine(column: pd.Series) -> dict[str, float]:
    """A column indexed by engine, as the findings hold it."""
    return {str(engine): float(value) for engine, value in column.items()}


def fell_run_after_run(runs: Sequence[float]) -> bool:
    """Each of three or more runs slower than the one before, the last below the first by more
    than ``ALIKE``: an order a range cannot show. (Three runs fall in order by chance one time
    in six, so the page says what it suggests, not that the machine slowed.)"""
    return (
        len(runs) >= 3
        and all(later < earlier for earlier, later in pairwise(runs))
        and runs[-1] < (1 - ALIKE) * runs[0]
    )


def _falling_loads(table: pd.DataFrame) -> dict[tuple[str, int], tuple[float, ...]]:
    """The loads of ``comparison``'s table whose compared speed (one user's alone, the total
    with more) fell run after run, with those runs in order."""
    falling = {}
    for load, row in table.iterrows():
        engine, users = cast(tuple[str, int], load)
        key = f"{'user' if users == 1 else 'output'}_tok_s_runs"
        if key in row and fell_run_after_run(row[key]):
            falling[(str(engine), int(users))] = tuple(row[key])
    return falling


def _spreads_by_engine(rows: pd.DataFrame | pd.Series, key: str) -> dict[str, Spread]:
    """``key``'s spread for each engine of ``rows`` (indexed by engine)."""
    return {str(engine): Spread.in_row(row, key) for engine, row in rows.iterrows()}


@dataclass(frozen=True)
class EngineFindings:
    """The engines' runs, read once: the speed one user saw alone (``one``), the total with
    ``facts.many`` users (``crowd``) and their waits for a first token, by engine; the disk each
    needed; and the set-up facts. ``first_alone`` is one user's median wait for a first token
    (s), by engine; ``falling`` the loads, (engine, users), whose speed fell run after run, with
    their runs in order."""

    facts: Facts
    one: Mapping[str, Spread]
    crowd: Mapping[str, Spread]
    first_alone: Mapping[str, Spread]
    wait_p50_s: Mapping[str, float]
    wait_p99_s: Mapping[str, float]
    disk_mb: Mapping[str, float]  # "llama.cpp" and "vLLM": packages and model files
    falling: Mapping[tuple[str, int], tuple[float, ...]] = field(default_factory=dict)
    pace: Mapping[str, CpuPace] = field(default_factory=dict)  # CPU probes between engines

    @classmethod
    def of(
        cls,
        table: pd.DataFrame,
        setup: pd.DataFrame,
        facts: Facts,
        pace: Mapping[str, CpuPace] | None = None,
    ) -> EngineFindings:
        """From ``comparison``'s table (engines ``LLAMA_Q4``, ``LLAMA_F16``, ``LLAMA_SERVER``,
        ``VLLM``, each with users 1 and, all but ``LLAMA_F16``, ``facts.many``), the disk table
        (one row per engine, megabytes) and the CPU probes taken with no server running, by
        moment in the order they ran."""
        one = table.xs(1, level="users")
        many = table.xs(facts.many, level="users")
        return cls(
            facts=facts,
            one=_spreads_by_engine(one, USER_TOK_S),
            crowd=_spreads_by_engine(many, OUTPUT_TOK_S),
            first_alone=_spreads_by_engine(one, "ttft_s_p50"),
            wait_p50_s=_by_engine(many["ttft_s_p50"]),
            wait_p99_s=_by_engine(many["ttft_s_p99"]),
            disk_mb=_by_engine(setup.sum(axis=1)),
            falling=_falling_loads(table),
            pace=dict(pace or {}),
        )

    @property
    def q4_vs_f16(self) -> Against:
        return Against(self.one[LLAMA_Q4], self.one[LLAMA_F16])

    @property
    def f16_vs_vllm(self) -> Against:
        return Against(self.one[LLAMA_F16], self.one[VLLM])

    @property
    def vllm_vs_f16(self) -> Against:
        return Against(self.one[VLLM], self.one[LLAMA_F16])

    @property
    def alone_lead(self) -> Against:
        """llama.cpp's packed file against vLLM for one user."""
        return Against(self.one[LLAMA_Q4], self.one[VLLM])

    @property
    def q4_leads(self) -> bool:
        """llama.cpp's packed file was faster than vLLM for one user, beyond ``ALIKE``."""
        return self.alone_lead.compared is Compared.HIGHER

    @property
    def alone_llama(self) -> bool:
        """llama.cpp's packed file served one user at least about as quickly as vLLM: its
        median within ``ALONE_KEEPS`` of vLLM's, and not slower beyond the runs' spread."""
        against = Against(self.one[LLAMA_Q4], self.one[VLLM])
        return (
            self.one[LLAMA_Q4].median >= ALONE_KEEPS * self.one[VLLM].median
            and against.compared is not Compared.LOWER
        )

    @property
    def server_alone(self) -> Against:
        """llama-server against the binding for one user: the same kernels on the same file."""
        return Against(self.one[LLAMA_SERVER], self.one[LLAMA_Q4])

    @property
    def slots_over_binding(self) -> Against:
        """llama-server's total under load against the binding's: what its slots are worth."""
        return Against(self.crowd[LLAMA_SERVER], self.crowd[LLAMA_Q4])

    @property
    def crowd_lead(self) -> Against:
        """vLLM's total under load against llama.cpp at its best, llama-server."""
        return Against(self.crowd[VLLM], self.crowd[LLAMA_SERVER])

    @property
    def prompt_alone(self) -> Against:
        """llama-server's first token for one user alone against vLLM's: the time each took to
        read a prompt it had not seen, the crowd's prompt size. ``HIGHER`` reads "llama-server
        took longer" (a time, not a speed); the ratio is how many times as long."""
        return Against(self.first_alone[LLAMA_SERVER], self.first_alone[VLLM])

    @property
    def vllm_first_alone(self) -> Compared:
        """vLLM's first token for one user alone against llama-cpp-python's, with no band: any
        difference the runs' ranges show (``LOWER``: vLLM's came sooner)."""
        return compare(self.first_alone[VLLM], self.first_alone[LLAMA_Q4])

    @property
    def over_binding(self) -> Against:
        """vLLM's total under load against llama-cpp-python's server, one request at a time."""
        return Against(self.crowd[VLLM], self.crowd[LLAMA_Q4])

    @property
    def crowd_vllm(self) -> bool:
        """vLLM served more in total under load than llama-server, beyond ``ALIKE``."""
        return self.crowd_lead.compared is Compared.HIGHER

    @property
    def first_start_s(self) -> float | None:
        """llama.cpp's first start with its build (None: the build was not recorded)."""
        if self.facts.compile_s is None:
            return None
        return self.facts.compile_s + self.facts.start_s[LLAMA_Q4]

    @property
    def build_slower(self) -> bool | None:
        """Whether llama.cpp's build and start took longer than vLLM's start."""
        first = self.first_start_s
        return None if first is None else first > self.facts.start_s[VLLM]
