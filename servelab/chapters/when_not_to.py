"""Chapter 08: what two engines cost to set up, and how they serve one user and many.

``footprint_mb`` and ``folder_mb`` measure what each engine needs on disk; ``comparison`` puts
the runs side by side; ``plot_comparison`` draws the three numbers the guidance rests on: the
speed one user sees, the total throughput under many users, and how long those users wait for a
first token. llama.cpp runs twice, on the 4-bit file and on a 16-bit one, so that ``story`` can
separate what the engine does from what the file format does.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from servelab.chapters.prediction import page_story

MB = 1e6
COLUMNS = ["output_tok_s", "user_tok_s", "tokens_per_request", "ttft_s_p50", "ttft_s_p99",
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


def comparison(results: Mapping[tuple[str, int], object]) -> pd.DataFrame:
    """One row per (engine, users) run: throughput, per-user speed and latencies in seconds."""
    rows = []
    for (engine, users), result in results.items():
        s = result.summary()
        done = result.requests[result.requests["ok"]]
        rows.append({
            "engine": engine, "users": users,
            "output_tok_s": s["output_tok_s"], "user_tok_s": s["user_tok_s"],
            "tokens_per_request": float(done["output_tokens"].mean()) if len(done) else 0.0,
            "ttft_s_p50": s["ttft_ms_p50"] / 1000, "ttft_s_p99": s["ttft_ms_p99"] / 1000,
            "e2e_s_p50": s["e2e_ms_p50"] / 1000, "max_in_flight": s["max_in_flight"],
            "completed": s["completed"], "failed": s["failed"],
        })
    if not rows:
        raise ValueError("no runs to compare")
    return pd.DataFrame(rows).set_index(["engine", "users"])[COLUMNS]


def plot_comparison(table: pd.DataFrame, many: int, title: str):
    """Three panels, one bar per engine: tok/s one user sees alone; total tok/s with ``many``
    users; and the median wait for a first token with ``many`` users."""
    import matplotlib.pyplot as plt

    from servelab.plots import SERIES_COLORS, style

    engines = list(table.index.get_level_values("engine").unique())
    panels = [
        (1, "user_tok_s", "1 user: speed it sees", "tokens/s"),
        (many, "output_tok_s", f"{many} users: total", "tokens/s"),
        (many, "ttft_s_p50", f"{many} users: median wait for 1st token", "seconds"),
    ]
    with style():
        figure, axes = plt.subplots(1, len(panels), figsize=(10, 3.8))
        for ax, (users, column, label, unit) in zip(axes, panels, strict=True):
            values = [table.loc[(engine, users), column] for engine in engines]
            bars = ax.bar([engine.replace(" ", "\n") for engine in engines], values,
                          color=SERIES_COLORS[: len(engines)])
            ax.bar_label(bars, fmt="%.3g", fontsize=9)
            ax.set_title(label, fontsize=10, fontweight="normal")
            ax.set_ylabel(unit)
            ax.margins(y=0.15)
        figure.suptitle(title, fontsize=11, fontweight="bold")
        figure.tight_layout()
    return figure


LLAMA_Q4, LLAMA_F16, VLLM = "llama.cpp Q4_1", "llama.cpp F16", "vLLM"


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

    @property
    def vllm_bits(self) -> int:
        return 32 if self.vllm_dtype in ("float32", "float") else 16


def _ratio(a: float, b: float) -> str:
    """``a`` against ``b`` in words: "2.1× faster", "1.4× slower" or "about as fast"."""
    if 0.9 <= a / b <= 1.1:
        return "about as fast as"
    return f"{a / b:.1f}× as fast as" if a > b else f"{b / a:.1f}× slower than"


def _where_text(facts: Facts) -> str:
    text = (f"llama.cpp ran on {facts.llama_device} in both of its runs; vLLM ran on "
            f"{facts.vllm_device}. ")
    if facts.vllm_on_gpu:
        return text + ("So every comparison between the two engines below is also a comparison "
                       "between a CPU and a GPU; only the two llama.cpp runs compare like with "
                       "like, and they separate the file format from the engine.")
    return text + "Same processor, same model, same requests: the engines and formats differ."


def _setup_text(setup: pd.DataFrame, facts: Facts) -> str:
    llama_start, vllm_start = facts.start_s[LLAMA_Q4], facts.start_s[VLLM]
    disk_llama = setup.loc["llama.cpp"].sum()
    disk_vllm = setup.loc["vLLM"].sum()
    text = (f"llama.cpp answered {llama_start:.1f} s after it was launched and vLLM after "
            f"{vllm_start:.1f} s. On disk vLLM needed {disk_vllm:,.0f} MB of packages and model "
            f"files, llama.cpp {disk_llama:,.0f} MB. ")
    if facts.compile_s is None:
        text += ("How long llama-cpp-python took to compile was not recorded here, so the "
                 "set-up comparison leaves out its build. ")
    else:
        first_time = facts.compile_s + llama_start
        text += (f"But PyPI has no compiled llama-cpp-python for the CPU: it was built from source "
                 f"in {facts.compile_s / 60:.1f} minutes on this machine, so the first start of "
                 f"llama.cpp took about {first_time / 60:.1f} minutes in all")
        text += (", longer than vLLM's start; later starts skip the build. "
                 if first_time > vllm_start else ", still less than vLLM's start. ")
    return text + ("vLLM's CPU engine cannot load the 4-bit GGUF file, so it serves a bf16 copy, "
                   f"computing in {facts.vllm_dtype} (vLLM on a GPU has experimental GGUF "
                   "loading, not used here).")


def _one_user_text(one: pd.DataFrame, facts: Facts) -> str:
    q4, f16, vllm = (one.loc[name, "user_tok_s"] for name in (LLAMA_Q4, LLAMA_F16, VLLM))
    text = (f"One user saw {q4:.0f} tokens/s from llama.cpp on the Q4_1 file, {f16:.0f} on the "
            f"F16 file and {vllm:.0f} from vLLM. The Q4_1 file stores {facts.q4_bits:.1f} bits "
            f"per weight, its block scales included, against {facts.f16_bits:.1f} for F16 "
            f"({facts.f16_bits / facts.q4_bits:.1f}× the bytes to read per token); on the same "
            f"engine the packed file was {_ratio(q4, f16)} the 16-bit one. ")
    if facts.vllm_on_gpu:
        return text + (f"vLLM on the GPU was {_ratio(vllm, f16)} llama.cpp's F16 run on the CPU: "
                       "that gap is mostly the device, not the engine.")
    if facts.vllm_bits != 16:
        text += (f"vLLM computed in {facts.vllm_dtype}, {facts.vllm_bits} bits per weight "
                 "(servelab picks it on a CPU without bf16 instructions, where vLLM's bf16 "
                 f"kernels are far slower); llama.cpp's F16 run was {_ratio(f16, vllm)} vLLM. ")
        if q4 > vllm * 1.1:
            return text + ("So llama.cpp led for one user, but the two engines read different "
                           "numbers of bytes per weight here, so this run does not say how much "
                           "of the lead is the engine and how much the file format.")
        return text + "Even the 4-bit file did not put llama.cpp ahead for one user in this run."
    text += f"At 16 bits each, llama.cpp was {_ratio(f16, vllm)} vLLM. "
    if q4 > vllm * 1.1 and 0.9 <= f16 / vllm <= 1.1:
        return text + ("So llama.cpp's lead for one user came from the smaller file, not from "
                       "the engine.")
    if q4 > vllm * 1.1 and f16 > vllm * 1.1:
        return text + ("So llama.cpp led for one user at equal precision too, and the 4-bit "
                       "file widened the lead.")
    if q4 > vllm * 1.1:
        return text + ("So at equal precision vLLM was the quicker engine here, and the 4-bit "
                       "format alone put llama.cpp ahead.")
    return text + "Even the 4-bit file did not put llama.cpp ahead for one user in this run."


def _many_text(many: pd.DataFrame, facts: Facts) -> str:
    vllm = many.loc[VLLM]
    llama_name = many.drop(index=VLLM)["output_tok_s"].idxmax()
    llama = many.loc[llama_name]
    text = (f"With {facts.many} users at once, vLLM produced {vllm['output_tok_s']:.0f} tokens/s "
            f"in total and the faster llama.cpp run ({llama_name}) "
            f"{llama['output_tok_s']:.0f}. The median user waited "
            f"{vllm['ttft_s_p50']:.1f} s for a first token on vLLM and "
            f"{llama['ttft_s_p50']:.1f} s on llama.cpp, the unluckiest {vllm['ttft_s_p99']:.1f} s "
            f"and {llama['ttft_s_p99']:.1f} s. ")
    if vllm["output_tok_s"] > 1.1 * llama["output_tok_s"]:
        return text + (f"vLLM served {vllm['output_tok_s'] / llama['output_tok_s']:.1f}× the "
                       "tokens because each of its steps carries every running request, while "
                       "llama-cpp-python's server answers one request after another.")
    return text + ("vLLM did not serve more in total in this run; the table shows where the "
                   "time went.")


def _guidance_text(one: pd.DataFrame, many: pd.DataFrame, facts: Facts) -> str:
    alone_llama = one.loc[LLAMA_Q4, "user_tok_s"] >= 0.9 * one.loc[VLLM, "user_tok_s"]
    crowd_vllm = many.loc[VLLM, "output_tok_s"] > 1.1 * many.drop(index=VLLM)["output_tok_s"].max()
    where = " (on different devices, as said above)" if facts.vllm_on_gpu else ""
    if alone_llama and crowd_vllm:
        return ("Ask how many requests will be in flight at the same moment. For one person "
                "at a time, a packed file on llama.cpp was at least as quick here and starts in "
                "seconds once built; when requests overlap, vLLM's shared steps turned the same "
                f"model into several times the total output{where}.")
    if crowd_vllm:
        return ("vLLM was ahead under load and not behind for one user in this run, so here the "
                f"choice would be vLLM either way{where}; the 4-bit format is what a lighter "
                "engine has to offer, and the table shows how much it gave.")
    return ("This run did not show vLLM ahead under load, so it gives no reason to pick vLLM on "
            "this device; the table shows what it did measure.")


def story(table: pd.DataFrame, setup: pd.DataFrame, facts: Facts, prediction: str) -> str:
    """The page's interpretation, in Markdown, from ``comparison``'s table (engines
    ``LLAMA_Q4``, ``LLAMA_F16``, ``VLLM``; users 1 and ``facts.many``) and the disk table."""
    one = table.xs(1, level="users")
    many = table.xs(facts.many, level="users")
    measured = (f"one user saw {one.loc[LLAMA_Q4, 'user_tok_s']:.0f} tokens/s on llama.cpp (Q4_1) "
                f"and {one.loc[VLLM, 'user_tok_s']:.0f} on vLLM; with {facts.many} users vLLM "
                f"produced {many.loc[VLLM, 'output_tok_s']:.0f} tokens/s in total against "
                f"{many.loc[LLAMA_Q4, 'output_tok_s']:.0f}.")
    return page_story(prediction, measured, [
        ("Where each engine ran", _where_text(facts)),
        ("Set-up and start", _setup_text(setup, facts)),
        ("One user", _one_user_text(one, facts)),
        (f"{facts.many} users", _many_text(many, facts)),
        ("The guidance", _guidance_text(one, many, facts)),
    ])
