"""Chapter 07: mixed traffic — a chat stream and a batch job — and how each part fared.

The servers' shares of the device come from ``servelab.placement``; ``run_together`` drives two
servers at once, so "two deployments" is measured as it would run, not each part alone on the
whole machine.
``story`` writes the page's interpretation from the measured numbers.

The traffic itself, ``MixedTraffic``, is a workload of ``servelab.bench.workloads``; the chapter
imports it from here with the rest of its helpers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd

from servelab.bench import metrics, run
from servelab.bench.workloads import BATCH, CHAT
from servelab.bench.workloads import MixedTraffic as MixedTraffic  # the chapter imports it here
from servelab.chapters.batch_findings import LESSON_GPU
from servelab.chapters.prediction import page_story


def part_metrics(result: object, slo: dict[str, float]) -> dict[str, float]:
    """What chat users felt (TTFT p99, TPOT p50, share within ``slo``) and how long the batch
    job took (its last token, s after the start) in one run; NaN for a part not sent."""
    chat = [r for r in result.records if r.planned.role == CHAT and r.ok]
    batch = [r for r in result.records if r.planned.role == BATCH and r.ok]
    row = {"chat_ttft_ms_p99": math.nan, "chat_tpot_ms_p50": math.nan,
           "chat_within_slo": math.nan, "batch_job_s": math.nan, "batch_output_tok_s": math.nan}
    if chat:
        row["chat_ttft_ms_p99"] = float(np.percentile([r.ttft for r in chat], 99)) * 1000
        tpots = [t for t in map(metrics.tpot, chat) if t is not None]
        row["chat_tpot_ms_p50"] = float(np.median(tpots)) * 1000 if tpots else math.nan
        row["chat_within_slo"] = float(np.mean([metrics.meets_slo(r, slo) for r in chat]))
    if batch:
        job_s = max(r.end for r in batch)
        row["batch_job_s"] = job_s
        row["batch_output_tok_s"] = sum(r.output_tokens or 0 for r in batch) / job_s
    return row


def setups_table(rows: dict[str, dict[str, float]]) -> pd.DataFrame:
    """One row per way of serving the mixed traffic."""
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("setup")


def plot_sweeps(curves: dict[str, pd.DataFrame], ttft_slo_ms: float, title: str):
    """TTFT p99, output throughput and the share of requests within the SLO against the arrival
    rate, one line per config."""
    import matplotlib.pyplot as plt

    from servelab.plots import SERIES_COLORS, style

    with style():
        figure, (ttft, throughput, attained) = plt.subplots(1, 3, figsize=(12, 3.8))
        for color, (label, frame) in zip(SERIES_COLORS, curves.items(), strict=False):
            ttft.plot(frame["rate"], frame["ttft_ms_p99"], marker="o", color=color, label=label)
            throughput.plot(frame["rate"], frame["output_tok_s"], marker="o", color=color)
            attained.plot(frame["rate"], 100 * frame["slo_attainment"], marker="o", color=color)
        ttft.axhline(ttft_slo_ms, color="grey", linestyle="--", label=f"SLO {ttft_slo_ms:.0f} ms")
        rates = sorted({rate for frame in curves.values() for rate in frame["rate"]})
        for ax, ylabel in ((ttft, "time to first token, p99 (ms)"),
                           (throughput, "output throughput (tok/s)"),
                           (attained, "requests within the SLO (%)")):
            ax.set_xlabel("arrival rate (requests/s)")
            ax.set_ylabel(ylabel)
            ax.set_xscale("log", base=2)
            ax.set_xticks(rates, [f"{rate:g}" for rate in rates])
            ax.set_ylim(bottom=0)
        ttft.legend(fontsize=8)
        figure.suptitle(title)
        figure.tight_layout()
    return figure


# A server kept up with the load when its peak output reached this share of the tokens offered.
KEPT_UP = 0.8


def run_together(jobs: Mapping[str, tuple[object, object]], **options: object) -> dict[str, object]:
    """Run each ``label: (server, workload)`` at the same time, one thread each; the results by
    label."""
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = {label: pool.submit(run, server, workload, **options)
                   for label, (server, workload) in jobs.items()}
        return {label: future.result() for label, future in futures.items()}


def sustained_rate(sweep: pd.DataFrame, ttft_slo_ms: float) -> float | None:
    """The highest rate of a sweep whose p99 time to first token met the SLO (None: none did)."""
    met = sweep.loc[sweep["ttft_ms_p99"] <= ttft_slo_ms, "rate"]
    return None if met.empty else float(met.max())


@dataclass(frozen=True)
class Setting:
    """What the page needs to know about the two configurations and the device."""

    interactive_seqs: int
    batch_seqs: int
    ttft_slo_ms: float
    output_tokens: int
    device_label: str
    split: str | None  # how the device was split for the side-by-side run; None: it was not


def _rate(value: float | None) -> str:
    """How far the first tokens stayed within the SLO, as a phrase."""
    return "at none of the rates tried" if value is None else f"up to {value:g} req/s"


def _chat_text(interactive: pd.DataFrame, batch: pd.DataFrame, setting: Setting) -> str:
    low_i, low_b = interactive.iloc[0], batch.iloc[0]
    high_i, high_b = interactive.iloc[-1], batch.iloc[-1]
    top_i = sustained_rate(interactive, setting.ttft_slo_ms)
    top_b = sustained_rate(batch, setting.ttft_slo_ms)
    text = (f"At {low_i['rate']:g} req/s a token took {low_i['tpot_ms_p50']:.0f} ms (median) with "
            f"max_num_seqs={setting.interactive_seqs} and {low_b['tpot_ms_p50']:.0f} ms with "
            f"{setting.batch_seqs}; at {high_i['rate']:g} req/s, {high_i['tpot_ms_p50']:.0f} ms "
            f"and {high_b['tpot_ms_p50']:.0f} ms. The p99 first token stayed within "
            f"{setting.ttft_slo_ms:.0f} ms {_rate(top_i)} with the small cap and "
            f"{_rate(top_b)} with the large one. ")
    held_i, held_b = top_i or 0.0, top_b or 0.0
    if top_i is None and top_b is None:
        text += ("Both missed the target even at the lowest rate: the SLO is too tight for this "
                 "device, or the requests too long.")
    elif held_b > held_i:
        text += ("The small cap broke first: once requests arrive faster than its few slots "
                 "finish them, they queue, and the first token waits for the queue.")
    elif held_i > held_b:
        text += ("Here the large cap broke first: its longer steps delayed the first tokens "
                 "more than the small cap's queue did.")
    else:
        text += ("Neither cap separated from the other on first tokens over these rates; "
                 "higher rates or longer answers would be needed to see the queue form.")
    return text


def _throughput_text(interactive: pd.DataFrame, batch: pd.DataFrame, setting: Setting) -> str:
    peak_i, peak_b = interactive["output_tok_s"].max(), batch["output_tok_s"].max()
    offered = float(batch["rate"].max()) * setting.output_tokens
    text = (f"The large cap peaked at {peak_b:,.0f} output tok/s and the small one at "
            f"{peak_i:,.0f} tok/s. ")
    if min(peak_i, peak_b) >= KEPT_UP * offered:
        return text + (f"Both kept up with the highest rate tried ({offered:,.0f} tok/s of answers "
                       f"arriving), so these peaks measure the load, not what the servers could "
                       f"do; the sweep would have to go higher to separate them.")
    gain = peak_b / peak_i
    # The small cap is full only if requests queued for its slots, the large one only if it
    # fell short of the load; a verdict on what the device can do needs both.
    small_queued = float(interactive.get("waiting_max", pd.Series([0.0])).fillna(0).max()) > 0
    large_full = peak_b < KEPT_UP * offered
    ratio = setting.batch_seqs / setting.interactive_seqs
    text += (f"On {setting.device_label}, allowing {ratio:g}× as many sequences per step gave "
             f"{gain:.1f}× the peak throughput")
    lesson = f"about {LESSON_GPU.gain:.0f}× for {LESSON_GPU.users} streams"
    if gain >= 0.5 * min(ratio, LESSON_GPU.gain):
        return text + (", most of what the extra sequences could give: the steps had arithmetic "
                       f"to spare, as on the GPU of the lesson's example ({lesson} against "
                       "one).")
    if not (small_queued and large_full):
        seen = ("no request ever waited for one of the small cap's slots" if not small_queued
                else f"the large cap kept up with the {offered:,.0f} tok/s offered")
        return text + (f", but {seen}, so the sweep did not reach what the device can do: it "
                       "cannot tell whether more sequences per step add throughput here. "
                       "Higher rates would be needed.")
    if gain < 1.2:
        return text + (f": almost nothing. A step with {setting.interactive_seqs} sequences "
                       f"already used most of this device, so a bigger batch mostly made each "
                       f"step longer. The lesson's GPU example gains {lesson}.")
    return text + (f": a real gain, but well below the lesson's GPU example ({lesson}): on this "
                   "device each added sequence made every step longer.")


def _mixed_text(table: pd.DataFrame, setting: Setting) -> str:
    if setting.split is None:
        return ("This device could not be split between two servers (it has one core), so the "
                "page makes no claim about two deployments; the one-deployment rows are above.")
    pair = table.iloc[0]
    singles = table.iloc[1:]
    best_chat = singles["chat_ttft_ms_p99"].min()
    best_job = singles["batch_job_s"].min()
    text = (f"Side by side, each server with {setting.split}, the chat users' p99 first token "
            f"was {pair['chat_ttft_ms_p99']:,.0f} ms and the job finished in "
            f"{pair['batch_job_s']:.1f} s. On one server for everything, the best p99 first "
            f"token was {best_chat:,.0f} ms and the quickest job {best_job:.1f} s. ")
    chat_won = pair["chat_ttft_ms_p99"] < 0.95 * best_chat
    job_won = pair["batch_job_s"] <= 1.05 * best_job
    if chat_won and job_won:
        return text + ("With half the device each, the split gave the chat users quicker first "
                       "tokens and finished the job about as soon or sooner: keeping the job's "
                       "long requests out of the chat server's steps paid for itself here.")
    if chat_won:
        return text + ("The split protected the chat users, and the job paid for it: with half "
                       "the device it took longer than on a server of its own. That is the "
                       "trade to decide on — a chat that stays quick, or a job that ends sooner.")
    if job_won:
        return text + ("The job did at least as well on its half, but the chat users waited "
                       "longer than on a shared server: with half the device, the chat server's "
                       "own steps were slower.")
    return text + ("Splitting the device lost on both counts here: each half was too small for "
                   "its traffic, and one server with the whole device did better. Two "
                   "deployments pay off when each has enough hardware of its own.")


def story(interactive: pd.DataFrame, batch: pd.DataFrame, table: pd.DataFrame,
          setting: Setting, prediction: str) -> str:
    """The page's interpretation, in Markdown, from the two sweeps and the mixed-traffic table
    (first row: the two servers side by side; then one row per single server)."""
    top_i = sustained_rate(interactive, setting.ttft_slo_ms)
    top_b = sustained_rate(batch, setting.ttft_slo_ms)
    measured = (f"at the lowest rate a token took {interactive.iloc[0]['tpot_ms_p50']:.0f} ms "
                f"with max_num_seqs={setting.interactive_seqs} and "
                f"{batch.iloc[0]['tpot_ms_p50']:.0f} ms with {setting.batch_seqs}; first tokens "
                f"stayed within the SLO {_rate(top_i)} and {_rate(top_b)}.")
    return page_story(prediction, measured, [
        ("Interactive chat", _chat_text(interactive, batch, setting)),
        ("Batch processing", _throughput_text(interactive, batch, setting)),
        ("Mixed traffic", _mixed_text(table, setting)),
    ])
