"""The words of chapter 07's two rate sweeps, in Markdown.

Each function words ``sweep_findings.RateSweepFindings``, where every figure and verdict is
decided against the bars of ``thresholds``, and says plainly when the runs cannot tell.
"""

from __future__ import annotations

from servelab.lessons.batching.findings import LESSON_GPU
from servelab.lessons.compare import Compared
from servelab.lessons.device_model.words import foretold_text, line_source
from servelab.lessons.findings_table import findings_table
from servelab.lessons.fold import fold
from servelab.lessons.plural import plural_s
from servelab.lessons.throughput_vs_latency.pace import CapsPace
from servelab.lessons.throughput_vs_latency.sweep_findings import (
    FirstTokens,
    MoreSeqs,
    RateSweepFindings,
)
from servelab.lessons.throughput_vs_latency.thresholds import ATTAINMENT_TARGET, SERVERS_ALIKE
from servelab.lessons.untold_words import overlap


def held_to(found: RateSweepFindings, value: float | None) -> str:
    """How far the first tokens stayed within the SLO in every run, as a phrase that does not
    read the sweep's highest rate as a measured limit."""
    if value is None:
        return "at none of the rates tried"
    later = found.next_rate(value)
    if later is None:
        return f"at every rate tried, to the sweep's highest of {value:g} req/s"
    return f"up to {value:g} req/s (not in every run at {later:g})"


#: What the pace table says of each rate, by how the large cap's time per token compared.
_PACE_TOLD = {Compared.LOWER: "large cap quicker", Compared.HIGHER: "large cap slower"}
_PACE_UNTOLD = "cannot tell the caps apart"


def _pace(found: RateSweepFindings) -> str:
    """The two caps' time per token at the lowest and the highest rate, as a table with what
    the runs tell of each, and what backs a verdict beyond the spread or none."""
    rows = [
        [f"{rate:g}", small.with_range(), large.with_range(), _PACE_TOLD.get(outcome, _PACE_UNTOLD)]
        for rate, small, large, outcome in (
            (found.low_rate, found.small.tpot_low, found.large.tpot_low, found.pace_low),
            (found.high_rate, found.small.tpot_high, found.large.tpot_high, found.pace_high),
        )
    ]
    table = findings_table(
        ["Rate (req/s)", "Small cap (ms a token)", "Large cap (ms a token)", "The runs"], rows
    )
    outcomes = {found.pace_low, found.pace_high}
    notes = []
    if outcomes & {Compared.LOWER, Compared.HIGHER}:
        notes.append("The table calls a cap quicker or slower only beyond the spread of the runs.")
    if Compared.HIGHER in outcomes:
        notes.append("Each of the large cap's steps carried more sequences.")
    if outcomes - {Compared.LOWER, Compared.HIGHER}:
        notes.append(
            f"Where the runs cannot tell, {overlap()} or the medians are within "
            f"{SERVERS_ALIKE:.0%} of each other."
        )
    return f"{table}\n\n{' '.join(notes)}"


def _first_tokens(found: RateSweepFindings) -> tuple[str, str]:
    """Which cap's first tokens broke first, and why, as (the finding, what backs it)."""
    verdict = found.first_tokens
    if verdict is FirstTokens.BOTH_MISSED:
        return (
            "Both caps missed the first-token target in every run, even at the lowest rate.",
            "The SLO is too tight for this device, or the requests too long.",
        )
    if verdict is FirstTokens.STRADDLED:
        return (
            f"At {found.straddled_rate:g} req/s the runs fell on both sides of the first-"
            "token target. So these runs cannot tell which cap's first tokens break first.",
            "",
        )
    if verdict is FirstTokens.NOT_SEPARATED:
        return (
            "Neither cap separated from the other on first tokens over these rates.",
            "Higher rates or longer answers would be needed to see the queue form.",
        )
    which, cause = (
        (
            "small",
            "once requests arrive faster than its few slots finish them, they "
            "queue, and the first token waits for the queue",
        )
        if verdict is FirstTokens.SMALL_BROKE
        else (
            "large",
            "its longer steps delayed the first tokens more than the small cap's queue did",
        )
    )
    return (
        f"**The {which} cap broke first**: at {found.split_rate:g} req/s its p99 first "
        "token missed the target in every run. The other cap's met it in every run.",
        f"{cause[0].upper()}{cause[1:]}.",
    )


def chat_text(found: RateSweepFindings) -> str:
    """The pace of tokens, the first-token target, goodput and which cap broke first."""
    finding, cause = _first_tokens(found)
    lead = " ".join(part for part in (finding, cause) if part)
    text = (
        f"{lead}\n\nThe time per token at the lowest and the highest rate, each cap:"
        f"\n\n{_pace(found)}"
    )
    backing = (
        f"Each figure is the median of {found.small.tpot_low.n} runs' steady "
        "middles, the lowest and highest in brackets. " + _slo_text(found)
    )
    if not found.tail_described:
        counts = (
            f"{found.fewest_requests}"
            if found.fewest_requests == found.most_requests
            else f"{found.fewest_requests} to {found.most_requests}"
        )
        backing += (
            f"With {counts} requests a run, each p99 lies between a run's two slowest "
            "first tokens: it is close to the slowest one, not a tail. "
        )
    if found.first_tokens in (FirstTokens.SMALL_BROKE, FirstTokens.LARGE_BROKE):
        backing += _attainment_text(found)
    return text + fold(backing, "The target, goodput and the tail")


def _slo_text(found: RateSweepFindings) -> str:
    """The first-token target and goodput, as one sentence where both held to the same rates
    for each cap, since two sentences would then repeat each other."""
    setting = found.setting
    small, large = (held_to(found, found.sustained(cap)) for cap in (found.small, found.large))
    first_token = f"The p99 first token stayed within {setting.ttft_slo_ms:,.0f} ms"
    if found.goodput_as_slo:
        return (
            f"{first_token}, and at least "
            f"{ATTAINMENT_TARGET:.0%} of the requests met both targets (first token and time "
            f"per token), in every run with max_num_seqs={setting.interactive_seqs} "
            f"{small}. With {setting.batch_seqs}, {large}. The highest rate that holds is "
            "goodput as DistServe counts it. "
        )
    return (
        f"{first_token} in every run with max_num_seqs={setting.interactive_seqs} {small}. "
        f"With {setting.batch_seqs}, {large}. " + _goodput_text(found)
    )


def _goodput_text(found: RateSweepFindings) -> str:
    """Goodput as DistServe counts it: the highest rate each cap kept ``ATTAINMENT_TARGET`` of
    its requests within both targets, in every run."""
    setting = found.setting
    small, large = (held_to(found, found.goodput_rate(cap)) for cap in (found.small, found.large))
    return (
        f"At least {ATTAINMENT_TARGET:.0%} of the requests met both targets, first token and "
        f"time per token, in every run with max_num_seqs={setting.interactive_seqs} "
        f"{small}. With {setting.batch_seqs}, {large}. The highest rate that holds is "
        "goodput as DistServe counts it. "
    )


def _attainment_text(found: RateSweepFindings) -> str:
    """What the share within the SLO counts where a cap broke: requests, so it depends on how
    many a run sent."""
    split = found.split_share
    if split is None:
        return ""
    return (
        f"Where the cap broke, its share of requests within the SLO was "
        f"{split.share.with_range(2)}, of {split.sent} requests a run ({split.met} at the "
        "median). A queue that grows keeps growing for as long as requests arrive. So that "
        "share counts how many were sent as much as the server: a longer run at the same "
        "rate would score lower."
    )


def throughput_text(found: RateSweepFindings) -> str:
    """The output at the top rate, and what it says of more sequences per step."""
    small, large, slots = found.small.output, found.large.output, found.setting.interactive_seqs
    text = (
        f"At {found.high_rate:g} req/s, in the steady middle, the large cap produced "
        f"{large.median:,.0f} output tok/s ({large.low:,.0f}–{large.high:,.0f}) and the "
        f"small one {small.median:,.0f} ({small.low:,.0f}–{small.high:,.0f}). "
    )
    if found.capacity is MoreSeqs.NO_QUEUE:
        return text + (
            f"In at least one run no more than {found.small.in_flight.low:.0f} requests "
            f"were in flight at once, within the small cap's {slots} slots. So the "
            "load did not reach that cap. These runs cannot tell whether more "
            "sequences per step add throughput here: higher rates would be needed."
        )
    busiest = found.small.in_flight
    peaks = (
        f"{busiest.low:.0f} in every run"
        if found.busiest_alike
        else f"{busiest.low:.0f} to {busiest.high:.0f}, run by run"
    )
    lesson = f"about {LESSON_GPU.gain:.0f}× for {LESSON_GPU.users} streams against one"
    device = found.setting.device_label
    text += {
        MoreSeqs.MOST_OF_EXTRA: (
            f"The large cap gave **{found.gain:.1f}×** the throughput, "
            "beyond the spread of the runs. That is at least half of the "
            f"{found.seq_ratio:.1f}× its extra sequences could give at "
            f"best. On {device} a step carrying more sequences cost far "
            "less than that many steps. The lesson's GPU example shows the "
            f"same arithmetic at a larger scale ({lesson})."
        ),
        MoreSeqs.SOME_GAIN: (
            f"The large cap gave **{found.gain:.1f}×** the throughput, beyond "
            "the spread of the runs. That is well below what its extra "
            f"sequences could give: on {device} each added sequence made every "
            f"step longer. The lesson's GPU example gains {lesson}."
        ),
        MoreSeqs.LOST: (
            "Yet the large cap produced less, beyond the spread of the runs. On "
            f"{device} its longer steps cost more than the extra sequences brought "
            "in."
        ),
        MoreSeqs.UNTOLD: (
            f"{overlap('two', start=True)} or the medians are within "
            f"{SERVERS_ALIKE:.0%} of each other. So these runs cannot tell "
            "whether the extra sequences per step added throughput here."
        ),
    }[found.capacity]
    backing = (
        f"In every run at {found.high_rate:g} req/s more requests were in flight at "
        f"once than the small cap's {slots} slots (at the busiest moment {peaks}). So "
        f"some waited for a slot, while the large cap ran up to {found.large_seqs:.0f} "
        f"at once: {found.seq_ratio:.1f}× as many sequences per step. "
    )
    backing += _limits_text(found)
    if found.large_unfilled:
        backing += (
            f"That is all the load offered, far below its cap of "
            f"{found.setting.batch_seqs}. So the sweep shows what a few more sequences "
            "per step bring, not where this device stops gaining. "
        )
    if found.capacity in (MoreSeqs.MOST_OF_EXTRA, MoreSeqs.SOME_GAIN):
        backing += _step_text(found)
    return text + fold(backing + _try_text(found), "The slots in use, and the steps' arithmetic")


def _limits_text(found: RateSweepFindings) -> str:
    """Whether the top rate ran the large cap out of slots too, and what each cap then
    finished in its steady middle (nothing where the load stayed below that cap: the
    sentence after says so)."""
    large = found.large.in_flight
    busiest = (
        f"{large.low:.0f} in every run"
        if large.low == large.high
        else f"{large.low:.0f} to {large.high:.0f}, run by run"
    )
    if not found.large_queued:
        return (
            ""
            if found.large_unfilled
            else (
                f"The large cap's {found.setting.batch_seqs} slots were taken in some runs but not "
                f"every one (at the busiest moment {busiest}). So the top rate only touched its "
                "limit. "
            )
        )
    text = (
        f"The large cap ran out of slots too: every run had more than its "
        f"{found.setting.batch_seqs} in flight at the busiest moment ({busiest}). So some "
        "waited for a slot"
    )
    if not found.small.served or not found.large.served:
        return text + ". "
    return text + (
        f". Each cap's steady middle is its limit here: the small cap finished "
        f"{found.small.served[-1].with_range(2, ' req/s')}, the large one "
        f"{found.large.served[-1].with_range(2, ' req/s')}. "
    )


def _step_text(found: RateSweepFindings) -> str:
    """The arithmetic of one step at the top rate beside the run's measured gain."""
    small, large = found.small.tpot_high.median, found.large.tpot_high.median
    slots, n = found.setting.interactive_seqs, found.requests[-1]
    text = (
        f"The step times give the arithmetic: a token took {small:,.0f} ms with "
        f"{slots} sequences a step and {large:,.0f} ms with up to {found.large_seqs:.0f}. So "
        f"{found.seq_ratio:.1f}× the sequences made each step "
        f"{found.step_ratio:.2f}× as long, {found.step_gain:.1f}× the tokens per unit of time "
        "while the steps are that full. "
    )
    if found.gain_within_steps:
        return text
    return text + (
        f"The run's {found.gain:.1f}× counts all of it: its {n} requests took "
        f"about {found.arrival_s:.1f} s just to arrive ({n} ÷ {found.high_rate:g} "
        "req/s). The last to arrive were still decoding after the first had "
        "finished. In both spells the large cap's steps carried fewer sequences. "
    )


def _try_text(found: RateSweepFindings) -> str:
    """A cap the reader can try that this load would reach."""
    if not found.large_unfilled or found.try_cap is None:
        return ""
    return (
        f"A cap above {found.large_seqs:.0f} changes nothing for this load. One between "
        f"the two, such as max_num_seqs={found.try_cap}, would be reached and would show the "
        "dial at work."
    )


def caps_pace_text(pace: CapsPace) -> str:
    """Both caps' time per token at the top rate beside what the step line predicted."""
    if pace.line is None or pace.small_ms is None or pace.large_ms is None:
        return "No step line was to hand, so nothing predicted the two caps' time per token."
    rows = [
        [
            f"{seqs:,.0f}",
            f"{predicted:,.0f}",
            measured.with_range(),
            foretold_text(check.foretold, measured),
        ]
        for check, predicted, measured, seqs in zip(
            pace.checks,
            (pace.small_ms, pace.large_ms),
            (pace.small_tpot, pace.large_tpot),
            (pace.small_seqs, pace.large_seqs),
            strict=True,
        )
    ]
    table = findings_table(
        [
            "Sequences in a step",
            "Predicted (ms a token)",
            "Measured at the top rate (ms)",
            "The prediction",
        ],
        rows,
    )
    return (
        f"**The step line predicted {pace.small_ms:,.0f} ms a token with "
        f"{pace.small_seqs:,.0f} sequences in a step and {pace.large_ms:,.0f} ms with "
        f"{pace.large_seqs:,.0f}**, {pace.predicted_ratio:.2f}× as long. At the top rate the "
        f"runs measured **{pace.measured_ratio:.2f}×** as long.\n\n{table}\n\nThe line is "
        f"from {line_source(pace.line.fitted_in)}."
    ) + _past_line_text(pace)


def _past_line_text(pace: CapsPace) -> str:
    """Where the large cap's prediction stretched the line past the batches it was timed at."""
    if not pace.past_line or pace.line is None:
        return ""
    return (
        f" The line was timed at up to {max(pace.line.batches)} sequences a step, so at "
        f"{pace.large_seqs:,.0f} it is stretched past what it measured."
    )


def rates_title(sweeps: RateSweepFindings) -> str:
    """The caps' figure's title: what the large cap bought and cost at the top rate, medians
    of the runs' steady middles."""
    setting, small, large = sweeps.setting, sweeps.small, sweeps.large
    return (
        f"At {sweeps.high_rate:g} req/s, max_num_seqs={setting.batch_seqs} against "
        f"{setting.interactive_seqs}: {sweeps.gain:.1f}× the output, first token p99 "
        f"{large.ttft[-1].median:,.0f} against {small.ttft[-1].median:,.0f} ms, "
        f"{sweeps.step_ratio:.1f}× the time per token ({large.output.n} "
        f"run{plural_s(large.output.n)} a rate)"
    )
