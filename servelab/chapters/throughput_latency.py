"""Chapter 07: mixed traffic — a chat stream and a batch job — and how each part fared.

The servers' shares of the device come from ``servelab.placement``; ``run_together`` drives two
servers at once, so "two deployments" is measured as it would run, not each part alone on the
whole machine. The mixed traffic is served ``sizes.mix_repeats`` times on each deployment, and
``setup_row`` gives each comparison's median and range.

The findings are built apart from the words: ``SweepFindings`` from the two rate sweeps,
``MixedFindings`` from the mixed-traffic table, each with its numbers and named verdicts and
every bar a named constant; ``story`` only words them.

The traffic itself, ``MixedTraffic``, is a workload of ``servelab.bench.workloads``; the chapter
imports it from here with the rest of its helpers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from typing import Unpack

import numpy as np
import pandas as pd

from servelab.bench import metrics, run
from servelab.bench.frames import Result
from servelab.bench.options import RunOptions
from servelab.bench.spread import Spread
from servelab.bench.workloads import BATCH, CHAT, Workload
from servelab.bench.workloads import MixedTraffic as MixedTraffic  # the chapter imports it here
from servelab.chapters.batch_findings import LESSON_GPU
from servelab.chapters.prediction import page_story
from servelab.chapters.thresholds import KEPT_UP, MOST_OF_EXTRA, SATURATED_GAIN
from servelab.running import RunningServer


def part_metrics(result: Result, slo: dict[str, float]) -> dict[str, float]:
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

    from servelab.plots import SERIES_COLORS, legend_below, style

    with style():
        figure, (ttft, throughput, attained) = plt.subplots(1, 3, figsize=(12, 3.8),
                                                            layout="constrained")
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
        figure.suptitle(title)
        legend_below(figure)
    return figure


def run_together(jobs: Mapping[str, tuple[RunningServer, Workload]],
                 **options: Unpack[RunOptions]) -> dict[str, Result]:
    """Run each ``label: (server, workload)`` at the same time, one thread each; the results by
    label."""
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = {label: pool.submit(run, server, workload, **options)
                   for label, (server, workload) in jobs.items()}
        return {label: future.result() for label, future in futures.items()}


PAIR = "two deployments, side by side"


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


class FirstTokens(StrEnum):
    """Which cap's p99 first token left the SLO at the lower rate."""

    BOTH_MISSED = "both missed at the lowest rate"
    SMALL_BROKE = "the small cap broke first"
    LARGE_BROKE = "the large cap broke first"
    NOT_SEPARATED = "neither separated"


class Capacity(StrEnum):
    """What the two peaks say about more sequences per step on this device."""

    LOAD_BOUND = "both kept up with the load"
    MOST_OF_EXTRA = "most of what the extra sequences could give"
    NO_QUEUE = "the small cap never queued"
    LARGE_KEPT_UP = "the large cap kept up"
    SATURATED = "almost nothing: the device was saturated"
    LOST = "less than the small cap"
    SOME_GAIN = "a real gain, below the lesson's"


@dataclass(frozen=True)
class SweepFindings:
    """The two rate sweeps side by side: the pace of tokens at the lowest and highest rate
    (``*_i`` with the small cap, ``*_b`` with the large one), the highest rate whose first
    tokens met the SLO, each peak against the tokens offered at the top rate, and whether any
    request queued for one of the small cap's slots."""

    setting: Setting
    low_rate: float
    high_rate: float
    tpot_low_i: float
    tpot_low_b: float
    tpot_high_i: float
    tpot_high_b: float
    sustained_i: float | None
    sustained_b: float | None
    peak_i: float
    peak_b: float
    offered: float
    small_queued: bool

    @classmethod
    def of(cls, interactive: pd.DataFrame, batch: pd.DataFrame,
           setting: Setting) -> SweepFindings:
        low_i, low_b = interactive.iloc[0], batch.iloc[0]
        high_i, high_b = interactive.iloc[-1], batch.iloc[-1]
        waiting = interactive.get("waiting_max", pd.Series([0.0])).fillna(0)
        return cls(setting=setting, low_rate=float(low_i["rate"]), high_rate=float(high_i["rate"]),
                   tpot_low_i=float(low_i["tpot_ms_p50"]), tpot_low_b=float(low_b["tpot_ms_p50"]),
                   tpot_high_i=float(high_i["tpot_ms_p50"]),
                   tpot_high_b=float(high_b["tpot_ms_p50"]),
                   sustained_i=sustained_rate(interactive, setting.ttft_slo_ms),
                   sustained_b=sustained_rate(batch, setting.ttft_slo_ms),
                   peak_i=float(interactive["output_tok_s"].max()),
                   peak_b=float(batch["output_tok_s"].max()),
                   offered=float(batch["rate"].max()) * setting.output_tokens,
                   small_queued=float(waiting.max()) > 0)

    @property
    def first_tokens(self) -> FirstTokens:
        if self.sustained_i is None and self.sustained_b is None:
            return FirstTokens.BOTH_MISSED
        held_i, held_b = self.sustained_i or 0.0, self.sustained_b or 0.0
        if held_b > held_i:
            return FirstTokens.SMALL_BROKE
        if held_i > held_b:
            return FirstTokens.LARGE_BROKE
        return FirstTokens.NOT_SEPARATED

    @property
    def cap_ratio(self) -> float:
        return self.setting.batch_seqs / self.setting.interactive_seqs

    @property
    def gain(self) -> float:
        """The large cap's peak against the small cap's."""
        return self.peak_b / self.peak_i

    @property
    def large_full(self) -> bool:
        """The large cap fell short of the load, so its peak is what it could do."""
        return self.peak_b < KEPT_UP * self.offered

    @property
    def capacity(self) -> Capacity:
        """A verdict on what the device can do needs both caps at their limit: the small one
        full only if requests queued for its slots, the large one only if it fell short of the
        load."""
        if min(self.peak_i, self.peak_b) >= KEPT_UP * self.offered:
            return Capacity.LOAD_BOUND
        if self.gain >= MOST_OF_EXTRA * min(self.cap_ratio, LESSON_GPU.gain):
            return Capacity.MOST_OF_EXTRA
        if not self.small_queued:
            return Capacity.NO_QUEUE
        if not self.large_full:
            return Capacity.LARGE_KEPT_UP
        if self.gain <= 1 / SATURATED_GAIN:
            return Capacity.LOST
        if self.gain < SATURATED_GAIN:
            return Capacity.SATURATED
        return Capacity.SOME_GAIN


def setup_row(chat_runs: Sequence[Result], job_runs: Sequence[Result],
              slo: dict[str, float]) -> dict[str, float]:
    """One way of serving the mixed traffic, repeated: the chat users' p99 first token and the
    job's time as the median, lowest, highest and count over the runs
    (:class:`~servelab.bench.spread.Spread`), the rest as medians. The chat part is read from
    ``chat_runs`` and the job from ``job_runs`` (the same runs on one server)."""
    chats = [part_metrics(result, slo) for result in chat_runs]
    jobs = [part_metrics(result, slo) for result in job_runs]
    return {
        **Spread.of(row["chat_ttft_ms_p99"] for row in chats).columns("chat_ttft_ms_p99"),
        **Spread.of(row["batch_job_s"] for row in jobs).columns("batch_job_s"),
        "chat_tpot_ms_p50": float(np.nanmedian([row["chat_tpot_ms_p50"] for row in chats])),
        "chat_within_slo": float(np.nanmedian([row["chat_within_slo"] for row in chats])),
        "batch_output_tok_s": float(np.median([row["batch_output_tok_s"] for row in jobs])),
    }


class Outcome(StrEnum):
    """The side-by-side pair against the best single server, for one part of the traffic."""

    BETTER = "better beyond the spread"
    WORSE = "worse beyond the spread"
    UNTOLD = "within the spread"


def _outcome(pair: Spread, best: Spread) -> Outcome:
    """Lower is better: a time or a wait."""
    if pair.below(best):
        return Outcome.BETTER
    if pair.above(best):
        return Outcome.WORSE
    return Outcome.UNTOLD


@dataclass(frozen=True)
class MixedFindings:
    """Two deployments side by side against one server for everything (the best of the single
    servers for each part): the chat users' p99 first token (ms) and the job's time (s), each
    over the repeats. ``split`` says how the device was divided; None: it could not be, and
    there is no pair."""

    split: str | None
    pair_chat: Spread | None
    pair_job: Spread | None
    best_chat: Spread
    best_job: Spread

    @classmethod
    def of(cls, table: pd.DataFrame, split: str | None) -> MixedFindings:
        """From ``setup_row``'s rows by setup: ``PAIR`` (when the device was split) and one row
        per single server."""
        singles = table.drop(index=PAIR, errors="ignore")
        best_chat = singles.sort_values("chat_ttft_ms_p99", kind="stable").iloc[0]
        best_job = singles.sort_values("batch_job_s", kind="stable").iloc[0]
        pair = table.loc[[PAIR]].iloc[0] if split is not None else None
        return cls(split=split,
                   pair_chat=None if pair is None else Spread.in_row(pair, "chat_ttft_ms_p99"),
                   pair_job=None if pair is None else Spread.in_row(pair, "batch_job_s"),
                   best_chat=Spread.in_row(best_chat, "chat_ttft_ms_p99"),
                   best_job=Spread.in_row(best_job, "batch_job_s"))

    @property
    def chat(self) -> Outcome | None:
        return None if self.pair_chat is None else _outcome(self.pair_chat, self.best_chat)

    @property
    def job(self) -> Outcome | None:
        return None if self.pair_job is None else _outcome(self.pair_job, self.best_job)


# -- the words ---------------------------------------------------------------------------------
def _rate(value: float | None) -> str:
    """How far the first tokens stayed within the SLO, as a phrase."""
    return "at none of the rates tried" if value is None else f"up to {value:g} req/s"


def _chat_text(found: SweepFindings) -> str:
    setting = found.setting
    text = (f"At {found.low_rate:g} req/s a token took {found.tpot_low_i:.0f} ms (median) with "
            f"max_num_seqs={setting.interactive_seqs} and {found.tpot_low_b:.0f} ms with "
            f"{setting.batch_seqs}; at {found.high_rate:g} req/s, {found.tpot_high_i:.0f} ms "
            f"and {found.tpot_high_b:.0f} ms. The p99 first token stayed within "
            f"{setting.ttft_slo_ms:.0f} ms {_rate(found.sustained_i)} with the small cap and "
            f"{_rate(found.sustained_b)} with the large one. ")
    return text + {
        FirstTokens.BOTH_MISSED: ("Both missed the target even at the lowest rate: the SLO is "
                                  "too tight for this device, or the requests too long."),
        FirstTokens.SMALL_BROKE: ("The small cap broke first: once requests arrive faster than "
                                  "its few slots finish them, they queue, and the first token "
                                  "waits for the queue."),
        FirstTokens.LARGE_BROKE: ("Here the large cap broke first: its longer steps delayed the "
                                  "first tokens more than the small cap's queue did."),
        FirstTokens.NOT_SEPARATED: ("Neither cap separated from the other on first tokens over "
                                    "these rates; higher rates or longer answers would be "
                                    "needed to see the queue form."),
    }[found.first_tokens]


def _throughput_text(found: SweepFindings) -> str:
    text = (f"The large cap peaked at {found.peak_b:,.0f} output tok/s and the small one at "
            f"{found.peak_i:,.0f} tok/s. ")
    if found.capacity is Capacity.LOAD_BOUND:
        return text + (f"Both kept up with the highest rate tried ({found.offered:,.0f} tok/s "
                       f"of answers arriving), so these peaks measure the load, not what the "
                       f"servers could do; the sweep would have to go higher to separate them.")
    text += (f"On {found.setting.device_label}, allowing {found.cap_ratio:g}× as many sequences "
             f"per step gave {found.gain:.1f}× the peak throughput")
    lesson = f"about {LESSON_GPU.gain:.0f}× for {LESSON_GPU.users} streams"
    if found.capacity is Capacity.MOST_OF_EXTRA:
        return text + (", most of what the extra sequences could give: the steps had arithmetic "
                       f"to spare, as on the GPU of the lesson's example ({lesson} against "
                       "one).")
    if found.capacity in (Capacity.NO_QUEUE, Capacity.LARGE_KEPT_UP):
        seen = ("no request ever waited for one of the small cap's slots"
                if found.capacity is Capacity.NO_QUEUE
                else f"the large cap kept up with the {found.offered:,.0f} tok/s offered")
        return text + (f", but {seen}, so the sweep did not reach what the device can do: it "
                       "cannot tell whether more sequences per step add throughput here. "
                       "Higher rates would be needed.")
    if found.capacity is Capacity.SATURATED:
        return text + (f": almost nothing. Requests queued for the small cap's slots and the "
                       f"large cap fell short of the load, so both ran at their limit: a step "
                       f"with {found.setting.interactive_seqs} sequences already used most of "
                       f"this device, and a bigger batch mostly made each step longer. The "
                       f"lesson's GPU example gains {lesson}.")
    if found.capacity is Capacity.LOST:
        return text + (f": less than the small cap, although requests queued for its slots and "
                       f"the large cap fell short of the load. Its tokens came "
                       f"{found.tpot_low_b:.0f} ms apart at the lowest rate against "
                       f"{found.tpot_low_i:.0f} ms with the small cap, so on this device the "
                       f"longer steps cost more than the extra sequences brought in. A sweep is "
                       f"one run per rate, and on a shared machine other work can slow one "
                       f"server's run; either way, more sequences per step did not add "
                       f"throughput here.")
    return text + (f": a real gain, but well below the lesson's GPU example ({lesson}): on this "
                   "device each added sequence made every step longer.")


def _part_words(outcome: Outcome | None, pair: Spread, best: Spread, what: str) -> str:
    """One part of the traffic, side by side against one server, as a clause."""
    if outcome is Outcome.BETTER:
        return f"{what} did better side by side, beyond the spread of the runs"
    if outcome is Outcome.WORSE:
        return f"{what} did worse side by side, beyond the spread of the runs"
    if pair.n < 2 or best.n < 2:
        return f"with one run each there is no spread to weigh the difference for {what} against"
    return f"for {what} the ranges overlap, so this run cannot tell the set-ups apart"


def _mixed_text(found: MixedFindings) -> str:
    if found.split is None or found.pair_chat is None or found.pair_job is None:
        return ("This device could not be split between two servers (it has one core), so the "
                "page makes no claim about two deployments; the one-deployment rows are above.")
    chat, job = found.pair_chat, found.pair_job
    text = (f"Side by side, each server with {found.split}, the chat users' p99 first token "
            f"was {chat.median:,.0f} ms ({chat.range_text(' ms')}) and the job finished in "
            f"{job.median:.1f} s ({job.range_text(' s', 1)}). On one server for everything, "
            f"the best p99 first token was {found.best_chat.median:,.0f} ms "
            f"({found.best_chat.range_text(' ms')}) and the quickest job "
            f"{found.best_job.median:.1f} s ({found.best_job.range_text(' s', 1)}). ")
    outcomes = (found.chat, found.job)
    if outcomes == (Outcome.BETTER, Outcome.BETTER):
        return text + ("With half the device each, the split gave the chat users quicker first "
                       "tokens and finished the job sooner: keeping the job's long requests out "
                       "of the chat server's steps paid for itself here.")
    if outcomes == (Outcome.BETTER, Outcome.WORSE):
        return text + ("The split protected the chat users, and the job paid for it: with half "
                       "the device it took longer than on a server of its own. That is the "
                       "trade to decide on — a chat that stays quick, or a job that ends sooner.")
    if outcomes == (Outcome.WORSE, Outcome.BETTER):
        return text + ("The job did better on its half, but the chat users waited longer than "
                       "on a shared server: with half the device, the chat server's own steps "
                       "were slower.")
    if outcomes == (Outcome.WORSE, Outcome.WORSE):
        return text + ("Splitting the device lost on both counts here: each half was too small "
                       "for its traffic, and one server with the whole device did better. Two "
                       "deployments pay off when each has enough hardware of its own.")
    if outcomes == (Outcome.UNTOLD, Outcome.UNTOLD):
        told = _part_words(Outcome.UNTOLD, chat, found.best_chat, "the chat users and the job")
    else:
        told = "; ".join((_part_words(found.chat, chat, found.best_chat, "the chat users"),
                          _part_words(found.job, job, found.best_job, "the job")))
    return text + (f"{told[0].upper()}{told[1:]}. So this run does not say whether two "
                   "deployments beat one here.")


def story(sweeps: SweepFindings, mixed: MixedFindings, prediction: str) -> str:
    """The page's interpretation, in Markdown, from the two sweeps' and the mixed traffic's
    findings."""
    setting = sweeps.setting
    measured = (f"at the lowest rate a token took {sweeps.tpot_low_i:.0f} ms "
                f"with max_num_seqs={setting.interactive_seqs} and {sweeps.tpot_low_b:.0f} ms "
                f"with {setting.batch_seqs}; first tokens stayed within the SLO "
                f"{_rate(sweeps.sustained_i)} and {_rate(sweeps.sustained_b)}.")
    return page_story(prediction, measured, [
        ("Interactive chat", _chat_text(sweeps)),
        ("Batch processing", _throughput_text(sweeps)),
        ("Mixed traffic", _mixed_text(mixed)),
    ])
