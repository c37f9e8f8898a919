"""Chapter 08: what the engines cost to set up, and how they serve one user and many.

``footprint_mb`` and ``folder_mb`` measure what each engine needs on disk; ``comparison`` puts
the runs side by side (``servelab.plots.comparisons.engine_bars`` draws the three numbers the
guidance rests on: the speed one user sees, the total throughput under many users, and how long
those users wait for a first token). llama.cpp runs through llama-cpp-python's server on the
4-bit file and on a 16-bit one, so that the page can separate what the engine does from what the
file format does, and as its own ``llama-server`` with parallel slots on the 4-bit file, so that
the crowd meets llama.cpp at its best.
``EngineFindings`` reads the runs once, with every comparison a named verdict; ``story`` only
words it.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import cast

import pandas as pd

from servelab.bench.frames import Result
from servelab.bench.metrics import OUTPUT_TOK_S, TTFT_MS_P50, TTFT_MS_P99, USER_TOK_S
from servelab.bench.pace import CpuPace
from servelab.bench.spread import Spread, spread_table
from servelab.lessons.compare import Compared
from servelab.lessons.prediction import page_story
from servelab.lessons.single_user.against import Against
from servelab.lessons.single_user.drift import DriftFindings, drift_text
from servelab.lessons.thresholds import ALIKE, ALONE_KEEPS
from servelab.tables import spread_view

MB = 1e6
COLUMNS = [OUTPUT_TOK_S, USER_TOK_S, "tokens_per_request", "ttft_s_p50", "ttft_s_p99",
           "e2e_s_p50", "max_in_flight", "completed", "failed"]


def footprint_mb(*distributions: str) -> float:
    """Megabytes the installed files of these distributions take (missing ones count 0)."""
    total = 0
    for name in distributions:
        try:
            files = importlib.metadata.distribution(name).files or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for file in files:
            path = Path(file.locate())
            if path.is_file():
                total += path.stat().st_size
    return total / MB


def folder_mb(path: str | Path) -> float:
    """Megabytes of one file, or of every file under a folder."""
    path = Path(path)
    if path.is_file():
        return path.stat().st_size / MB
    if not path.is_dir():
        raise FileNotFoundError(f"{path} does not exist")
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / MB


SPREAD_COLUMNS = (USER_TOK_S, OUTPUT_TOK_S, "ttft_s_p50")  # compared, with ranges
# Decimals the page gives the other figures: counts none, a mean count of tokens one (the rest,
# seconds, two).
COLUMN_DIGITS = {"max_in_flight": 0, "completed": 0, "failed": 0, "tokens_per_request": 1}
IN_ORDER = (USER_TOK_S, OUTPUT_TOK_S)  # also kept run by run, as ``*_runs``, in run order


def _run_row(result: Result) -> dict[str, float]:
    s = result.summary()
    done = result.requests[result.requests["ok"]]
    return {OUTPUT_TOK_S: s[OUTPUT_TOK_S], USER_TOK_S: s[USER_TOK_S],
            "tokens_per_request": float(done["output_tokens"].mean()) if len(done) else 0.0,
            "ttft_s_p50": s[TTFT_MS_P50] / 1000, "ttft_s_p99": s[TTFT_MS_P99] / 1000,
            "e2e_s_p50": s["e2e_ms_p50"] / 1000, "max_in_flight": s["max_in_flight"],
            "completed": s["completed"], "failed": s["failed"]}


def comparison(results: Mapping[tuple[str, int], Sequence[Result]]) -> pd.DataFrame:
    """One row per (engine, users): throughput, per-user speed and latencies in seconds, each
    the median of that load's runs, beside ``SPREAD_COLUMNS`` their ranges (``Spread``
    columns), and for ``IN_ORDER`` every run's figure in the order it ran (``*_runs``)."""
    rows = []
    for (engine, users), runs in results.items():
        for result in runs:
            rows.append({"load": (engine, users), **_run_row(result)})
    if not rows:
        raise ValueError("no runs to compare")
    table = spread_table(pd.DataFrame(rows), "load", SPREAD_COLUMNS, medians=COLUMNS)
    for key in IN_ORDER:
        table[f"{key}_runs"] = pd.Series(
            [tuple(row[key] for row in rows if row["load"] == load) for load in table["load"]],
            index=table.index, dtype=object)
    order = list(dict.fromkeys(row["load"] for row in rows))
    table.index = pd.MultiIndex.from_tuples(table.pop("load"), names=["engine", "users"])
    return table.loc[order]


def comparison_view(table: pd.DataFrame) -> pd.DataFrame:
    """What the page prints of ``comparison``: the compared figures as median (lowest–highest),
    the rest as numbers."""
    return spread_view(table, {USER_TOK_S: 1, OUTPUT_TOK_S: 1, "ttft_s_p50": 2},
                       {key: COLUMN_DIGITS.get(key, 2) for key in COLUMNS
                        if key not in SPREAD_COLUMNS})


LLAMA_Q4, LLAMA_F16 = "llama-cpp-python Q4_1", "llama-cpp-python F16"
LLAMA_SERVER, VLLM = "llama-server Q4_1", "vLLM"
TOKENS_PER_S = " tokens/s"


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
    return (len(runs) >= 3 and all(later < earlier for earlier, later in pairwise(runs))
            and runs[-1] < (1 - ALIKE) * runs[0])


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
    def of(cls, table: pd.DataFrame, setup: pd.DataFrame, facts: Facts,
           pace: Mapping[str, CpuPace] | None = None) -> EngineFindings:
        """From ``comparison``'s table (engines ``LLAMA_Q4``, ``LLAMA_F16``, ``LLAMA_SERVER``,
        ``VLLM``, each with users 1 and, all but ``LLAMA_F16``, ``facts.many``), the disk table
        (one row per engine, megabytes) and the CPU probes taken with no server running, by
        moment in the order they ran."""
        one = table.xs(1, level="users")
        many = table.xs(facts.many, level="users")
        return cls(facts=facts, one=_spreads_by_engine(one, USER_TOK_S),
                   crowd=_spreads_by_engine(many, OUTPUT_TOK_S),
                   first_alone=_spreads_by_engine(one, "ttft_s_p50"),
                   wait_p50_s=_by_engine(many["ttft_s_p50"]),
                   wait_p99_s=_by_engine(many["ttft_s_p99"]),
                   disk_mb=_by_engine(setup.sum(axis=1)), falling=_falling_loads(table),
                   pace=dict(pace or {}))

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
    def q4_leads(self) -> bool:
        """llama.cpp's packed file was faster than vLLM for one user, beyond ``ALIKE``."""
        return Against(self.one[LLAMA_Q4], self.one[VLLM]).compared is Compared.HIGHER

    @property
    def alone_llama(self) -> bool:
        """llama.cpp's packed file served one user at least about as quickly as vLLM: its
        median within ``ALONE_KEEPS`` of vLLM's, and not slower beyond the runs' spread."""
        against = Against(self.one[LLAMA_Q4], self.one[VLLM])
        return (self.one[LLAMA_Q4].median >= ALONE_KEEPS * self.one[VLLM].median
                and against.compared is not Compared.LOWER)

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


def _as_fast(against: Against) -> str:
    """``a`` against ``b`` in words: "2.1× as fast as", "1.4× slower than" or "about as fast
    as"."""
    if against.compared is Compared.ALIKE:
        return "about as fast as"
    if against.compared is Compared.UNTOLD:
        return "not clearly faster or slower than"
    if against.compared is Compared.HIGHER:
        return f"{against.ratio:.1f}× as fast as"
    return f"{1 / against.ratio:.1f}× slower than"


def _runs(spread: Spread) -> str:
    """How many runs each figure is the median of, as a clause; empty for one run."""
    return f", each the median of {spread.n} runs" if spread.n > 1 else ""


def _where_text(found: EngineFindings) -> str:
    facts = found.facts
    text = (f"llama.cpp ran on {facts.llama_device} in all three of its runs; vLLM ran on "
            f"{facts.vllm_device}. ")
    drift = drift_text(DriftFindings(found.pace))
    if facts.vllm_on_gpu:
        return text + ("So every comparison between the two engines below is also a comparison "
                       "between a CPU and a GPU; only the llama.cpp runs compare like with "
                       "like: they separate the file format, and the slots, from the engine. "
                       + drift)
    return text + ("Same processor, same cores, same model, same requests: the engines and formats "
                   "differ. " + drift)


def _falling_text(found: EngineFindings) -> str:
    """The loads whose runs fell one after another, and what that order suggests."""
    if not found.falling:
        return ""
    loads = "; ".join(
        f"{engine} {'alone' if users == 1 else f'with {users} users'}: "
        f"{', '.join(f'{speed:.0f}' for speed in runs)} tokens/s"
        for (engine, users), runs in found.falling.items())
    return (f" Within one engine, though, the order of the runs tells something their range "
            f"does not. These loads fell run after run ({loads}), so the machine or the "
            "server may have slowed while they ran, and their medians depend on when they ran.")


def _setup_text(found: EngineFindings) -> str:
    facts = found.facts
    text = (f"llama.cpp answered {facts.start_s[LLAMA_Q4]:.1f} s after it was launched and vLLM "
            f"after {facts.start_s[VLLM]:.1f} s. On disk vLLM needed "
            f"{found.disk_mb['vLLM']:,.0f} MB of packages and model files, llama.cpp "
            f"{found.disk_mb['llama.cpp']:,.0f} MB. ")
    if found.first_start_s is None or facts.compile_s is None:
        text += ("How long llama-cpp-python took to compile was not recorded here, so the "
                 "set-up comparison leaves out its build. ")
    else:
        text += (f"But PyPI has no compiled llama-cpp-python for the CPU: it was built from source "
                 f"in {facts.compile_s / 60:.1f} minutes on this machine, so the first start of "
                 f"llama.cpp took about {found.first_start_s / 60:.1f} minutes in all")
        text += (", longer than vLLM's start; later starts skip the build. "
                 if found.build_slower else ", still less than vLLM's start. ")
    if facts.server_compile_s is not None:
        text += (f"llama-server, compiled from the same source onto the binding's libraries, "
                 f"took {facts.server_compile_s / 60:.1f} minutes more, once, and answered "
                 f"{facts.start_s[LLAMA_SERVER]:.1f} s after its launch. ")
    return text + ("vLLM's CPU engine cannot load the 4-bit GGUF file, so it serves a bf16 copy, "
                   f"computing in {facts.vllm_dtype} (vLLM on a GPU has experimental GGUF "
                   "loading, not used here).")


def _one_user_text(found: EngineFindings) -> str:
    facts = found.facts
    q4, f16, vllm = (found.one[name] for name in (LLAMA_Q4, LLAMA_F16, VLLM))
    q4_s, f16_s, vllm_s = (speed.with_range(unit=TOKENS_PER_S) for speed in (q4, f16, vllm))
    text = (f"One user saw {q4_s} from llama.cpp on the Q4_1 file, {f16_s} on the F16 file and "
            f"{vllm_s} from vLLM{_runs(q4)}. The Q4_1 file stores "
            f"{facts.q4_bits:.1f} bits per weight, its block scales included, against "
            f"{facts.f16_bits:.1f} for F16 ({facts.bytes_f16_over_q4:.1f}× the bytes to read "
            f"per token); on the same engine the packed file was {_as_fast(found.q4_vs_f16)} "
            "the 16-bit one. llama-server, the same kernels on the same packed file, gave "
            f"{found.one[LLAMA_SERVER].with_range(unit=TOKENS_PER_S)}: "
            f"{_as_fast(found.server_alone)} llama-cpp-python's server. ")
    if facts.vllm_on_gpu:
        return text + (f"vLLM on the GPU was {_as_fast(found.vllm_vs_f16)} llama.cpp's F16 run "
                       "on the CPU: that gap is mostly the device, not the engine.")
    if facts.vllm_bits != 16:
        text += (f"vLLM computed in {facts.vllm_dtype}, {facts.vllm_bits} bits per weight "
                 "(servelab picks it on a CPU without bf16 instructions, where vLLM's bf16 "
                 f"kernels are far slower); llama.cpp's F16 run was "
                 f"{_as_fast(found.f16_vs_vllm)} vLLM. ")
        if found.q4_leads:
            return text + ("So llama.cpp led for one user, but the two engines read different "
                           "numbers of bytes per weight here, so this run does not say how much "
                           "of the lead is the engine and how much the file format.")
        return text + "Even the 4-bit file did not put llama.cpp ahead for one user in this run."
    text += f"At 16 bits each, llama.cpp was {_as_fast(found.f16_vs_vllm)} vLLM. "
    if not found.q4_leads:
        return text + "Even the 4-bit file did not put llama.cpp ahead for one user in this run."
    if found.q4_vs_f16.compared is not Compared.HIGHER:
        return text + ("So llama.cpp led for one user, but its two files were not told apart "
                       "beyond the runs' spread, so this run does not say how much of the lead "
                       "the smaller file gave.")
    return text + {
        Compared.ALIKE: "So llama.cpp's lead for one user came from the smaller file, not from the "
                    "engine.",
        Compared.HIGHER: "So llama.cpp led for one user at equal precision too, and the 4-bit file "
                     "widened the lead.",
        Compared.LOWER: "So at equal precision vLLM was the quicker engine here, and the 4-bit "
                     "format alone put llama.cpp ahead.",
        Compared.UNTOLD: "At equal precision this run cannot tell the engines apart; the 4-bit "
                      "file is what put llama.cpp ahead.",
    }[found.f16_vs_vllm.compared]


def _many_text(found: EngineFindings) -> str:
    many = found.facts.many
    vllm_s, server_s, binding_s = (found.crowd[name].with_range(unit=TOKENS_PER_S)
                                   for name in (VLLM, LLAMA_SERVER, LLAMA_Q4))
    vllm_w, server_w, binding_w = (
        f"{found.wait_p50_s[name]:.1f} s (the unluckiest {found.wait_p99_s[name]:.1f} s)"
        for name in (VLLM, LLAMA_SERVER, LLAMA_Q4))
    waits = f"{vllm_w} on vLLM, {server_w} on llama-server and {binding_w} on the binding"
    text = (f"With {many} users at once, vLLM produced {vllm_s} in total, llama-server with "
            f"{many} slots {server_s}, and llama-cpp-python's server {binding_s}"
            f"{_runs(found.crowd[VLLM])}. The median user waited for a first token {waits}. ")
    slots = found.slots_over_binding
    text += {
        Compared.HIGHER: (f"llama-server's slots served {slots.ratio:.1f}× the binding's total: "
                          "the same kernels on the same file, so the gap is batching alone, "
                          "since the binding answers one request after another. "),
        Compared.ALIKE: ("llama-server served about as much as the binding, so its slots gained "
                         "nothing on this device. "),
        Compared.LOWER: "llama-server served less than the binding in this run. ",
        Compared.UNTOLD: ("llama-server and the binding were not told apart beyond the runs' "
                          "spread. "),
    }[slots.compared]
    lead = found.crowd_lead
    return text + {
        Compared.HIGHER: (f"vLLM still served {lead.ratio:.1f}× llama-server's total, though both "
                          "put every running request into each step; the sections below measure "
                          "what is left between them."),
        Compared.ALIKE: ("vLLM and llama-server served about as much: once llama.cpp batches, the "
                         "crowd alone does not separate the engines here."),
        Compared.LOWER: (f"llama-server served {1 / lead.ratio:.1f}× vLLM's total: with slots, "
                         "llama.cpp was the better engine for this crowd on this device."),
        Compared.UNTOLD: (f"vLLM's median total was {lead.ratio:.1f}× llama-server's, but the "
                          "runs' ranges overlap, so this run cannot say which served more."),
    }[lead.compared]


def _first_token_clause(found: EngineFindings) -> str:
    """Whose first token came sooner for one user alone, beyond the runs' spread."""
    q4, vllm = found.first_alone[LLAMA_Q4], found.first_alone[VLLM]
    if vllm.below(q4):
        return (f", though vLLM's first token came sooner ({vllm.with_range(2, ' s')} on vLLM "
                f"against {q4.with_range(2, ' s')} on llama.cpp)")
    both = f"{q4.with_range(2, ' s')} on llama.cpp against {vllm.with_range(2, ' s')} on vLLM"
    if q4.below(vllm):
        return f", and its first token came sooner too ({both})"
    return f"; their first tokens ({both}) were not told apart"


def _guidance_text(found: EngineFindings) -> str:
    where = " (on different devices, as said above)" if found.facts.vllm_on_gpu else ""
    binding = found.over_binding
    if found.alone_llama:
        alone = Against(found.one[LLAMA_Q4], found.one[VLLM])
        pace = (f"{alone.ratio:.1f}× as quickly as vLLM" if found.q4_leads
                else "at least as quickly")
        text = ("Ask how many requests will be in flight at the same moment. For one person at "
                f"a time, a packed file on llama.cpp streamed {pace} here"
                f"{_first_token_clause(found)}, and it starts in seconds once built. ")
    else:
        text = "llama.cpp did not serve one user faster than vLLM in this run. "
    if binding.compared is Compared.HIGHER:
        text += (f"For a crowd, a server that answers one request at a time is the wrong tool: "
                 f"vLLM served {binding.ratio:.1f}× llama-cpp-python's total{where}. ")
    lead = found.crowd_lead
    return text + {
        Compared.HIGHER: ("llama.cpp's own server with slots narrowed that gap but did not close "
                          f"it: vLLM still served {lead.ratio:.1f}× as much{where}."),
        Compared.ALIKE: ("llama.cpp's own server with slots served about as much as vLLM for this "
                         f"crowd{where}, so the crowd alone is no reason to leave llama.cpp."),
        Compared.LOWER: ("llama.cpp's own server with slots served more than vLLM for this crowd"
                         f"{where}, so the crowd alone is no reason to leave llama.cpp."),
        Compared.UNTOLD: ("llama.cpp's own server with slots was not told apart from vLLM for this "
                          f"crowd{where}, so this run gives no reason to leave llama.cpp for the "
                          "crowd alone."),
    }[lead.compared]


def story(found: EngineFindings, prediction: str) -> str:
    """The page's interpretation, in Markdown, from the engines' findings."""
    measured = (f"one user saw {found.one[LLAMA_Q4].median:.0f} tokens/s on llama.cpp (Q4_1) "
                f"and {found.one[VLLM].median:.0f} on vLLM; with {found.facts.many} users vLLM "
                f"produced {found.crowd[VLLM].median:.0f} tokens/s in total against "
                f"{found.crowd[LLAMA_SERVER].median:.0f} on llama-server and "
                f"{found.crowd[LLAMA_Q4].median:.0f} on llama-cpp-python's server.")
    return page_story(prediction, measured, [
        ("Where each engine ran", _where_text(found) + _falling_text(found)),
        ("Set-up and start", _setup_text(found)),
        ("One user", _one_user_text(found)),
        (f"{found.facts.many} users", _many_text(found)),
        ("The guidance", _guidance_text(found)),
    ])
