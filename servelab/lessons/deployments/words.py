"""The words of chapter 07's sweeps and mixed traffic, in Markdown.

Each function words a findings record of ``servelab.lessons.deployments.throughput_latency`` (where
every verdict is decided against the bars of ``thresholds``) and says plainly when the runs cannot
tell; ``story`` is the page's interpretation, displayed in a cell tagged ``prose``.
"""

from __future__ import annotations

from servelab.bench.spread import Spread
from servelab.lessons.batching.findings import LESSON_GPU
from servelab.lessons.compare import Compared
from servelab.lessons.deployments.throughput_latency import (
    FirstTokens,
    MixedFindings,
    MoreSeqs,
    RateSweepFindings,
)
from servelab.lessons.prediction import page_story
from servelab.lessons.thresholds import ATTAINMENT_TARGET, SERVERS_ALIKE


def _rate(found: RateSweepFindings, value: float | None) -> str:
    """How far the first tokens stayed within the SLO in every run, as a phrase that does not
    read the sweep's highest rate as a measured limit."""
    if value is None:
        return "at none of the rates tried"
    later = found.next_rate(value)
    if later is None:
        return f"at every rate tried, to the sweep's highest of {value:g} req/s"
    return f"up to {value:g} req/s (not in every run at {later:g})"


def _pace(small: Spread, large: Spread, outcome: Compared) -> str:
    """The two caps' time per token at one rate and what the runs tell of it, as a clause."""
    text = (f"{small.median:.0f} ms ({small.low:.0f}–{small.high:.0f}) with the small cap and "
            f"{large.median:.0f} ms ({large.low:.0f}–{large.high:.0f}) with the large one")
    return text + {
        Compared.LOWER: ": the large cap's tokens came quicker, beyond the spread of the runs",
        Compared.HIGHER: (": the large cap's tokens came slower, beyond the spread of the runs, "
                        "as each of its steps carried more sequences"),
    }.get(outcome, f": the ranges overlap or the medians are within {SERVERS_ALIKE:.0%} of each "
           "other, so the runs cannot tell the caps apart here")


def _chat_text(found: RateSweepFindings) -> str:
    text = (f"Each figure is the median of {found.tpot_low_i.n} runs, the lowest and highest in "
            f"brackets. At {found.low_rate:g} req/s a token took "
            f"{_pace(found.tpot_low_i, found.tpot_low_b, found.pace_low)}. At "
            f"{found.high_rate:g} req/s it took "
            f"{_pace(found.tpot_high_i, found.tpot_high_b, found.pace_high)}. "
            + _slo_text(found))
    if not found.tail_described:
        text += (f"With {min(found.requests)} to {max(found.requests)} requests a run, each "
                 "p99 lies between a run's two slowest first tokens: it is close to the "
                 "slowest one, not a tail. ")
    verdict = found.first_tokens
    if verdict is FirstTokens.BOTH_MISSED:
        return text + ("Both missed the target in every run even at the lowest rate: the SLO is "
                       "too tight for this device, or the requests too long.")
    if verdict is FirstTokens.STRADDLED:
        return text + (f"At {found.straddled_rate:g} req/s the runs fell on both sides of the "
                       "target, so these runs cannot tell which cap's first tokens break first.")
    if verdict is FirstTokens.NOT_SEPARATED:
        return text + ("Neither cap separated from the other on first tokens over these rates; "
                       "higher rates or longer answers would be needed to see the queue form.")
    which, cause = (("small", "once requests arrive faster than its few slots finish them, they "
                     "queue, and the first token waits for the queue")
                    if verdict is FirstTokens.SMALL_BROKE else
                    ("large", "its longer steps delayed the first tokens more than the small "
                     "cap's queue did"))
    text += (f"The {which} cap broke first: at {found.split_rate:g} req/s its p99 first "
             f"token missed the target in every run while the other cap's met it in every "
             f"run. {cause[0].upper()}{cause[1:]}.")
    return text + _attainment_text(found)


def _slo_text(found: RateSweepFindings) -> str:
    """The first-token target and goodput, as one sentence where both held to the same rates
    for each cap, since two sentences would then repeat each other."""
    setting = found.setting
    first_token = f"The p99 first token stayed within {setting.ttft_slo_ms:,.0f} ms"
    if (found.sustained_i, found.sustained_b) == (found.goodput_rate_i, found.goodput_rate_b):
        return (f"{first_token}, and at least "
                f"{ATTAINMENT_TARGET:.0%} of the requests met both targets (first token and time "
                f"per token), in every run with max_num_seqs={setting.interactive_seqs} "
                f"{_rate(found, found.sustained_i)}; with {setting.batch_seqs}, "
                f"{_rate(found, found.sustained_b)}. The highest rate that holds is goodput as "
                "DistServe counts it. ")
    return (f"{first_token} in every run with "
            f"max_num_seqs={setting.interactive_seqs} {_rate(found, found.sustained_i)}; with "
            f"{setting.batch_seqs}, {_rate(found, found.sustained_b)}. " + _goodput_text(found))


def _goodput_text(found: RateSweepFindings) -> str:
    """Goodput as DistServe counts it: the highest rate each cap kept ``ATTAINMENT_TARGET`` of
    its requests within both targets, in every run."""
    setting = found.setting
    return (f"At least {ATTAINMENT_TARGET:.0%} of the requests met both targets, first token and "
            f"time per token, in every run with max_num_seqs={setting.interactive_seqs} "
            f"{_rate(found, found.goodput_rate_i)}; with {setting.batch_seqs}, "
            f"{_rate(found, found.goodput_rate_b)}. The highest rate that holds is goodput as "
            "DistServe counts it. ")


def _attainment_text(found: RateSweepFindings) -> str:
    """What the share within the SLO counts where a cap broke: requests, so it depends on how
    many a run sent."""
    rate = found.split_rate
    if rate is None:
        return ""
    index = found.rates.index(rate)
    broke = (found.attainment_i if found.first_tokens is FirstTokens.SMALL_BROKE
             else found.attainment_b)[index]
    sent = found.requests[index]
    return (f" There its share of requests within the SLO was {broke.with_range(2)}, of "
            f"{sent} requests a run ({round(broke.median * sent)} at the median). A queue that "
            "grows keeps growing for as long as requests arrive, so that share counts how many "
            "were sent as much as the server: a longer run at the same rate would score lower.")


def _throughput_text(found: RateSweepFindings) -> str:
    small, large, slots = found.output_i, found.output_b, found.setting.interactive_seqs
    text = (f"At {found.high_rate:g} req/s the large cap produced {large.median:,.0f} output "
            f"tok/s ({large.low:,.0f}–{large.high:,.0f}) and the small one {small.median:,.0f} "
            f"({small.low:,.0f}–{small.high:,.0f}). ")
    if found.capacity is MoreSeqs.NO_QUEUE:
        return text + (f"In at least one run no more than {found.in_flight_i.low:.0f} requests "
                       f"were in flight at once, within the small cap's {slots} slots, so the "
                       "load did not reach that cap and these runs cannot tell whether more "
                       "sequences per step add throughput here: higher rates would be needed.")
    busiest = found.in_flight_i
    peaks = (f"{busiest.low:.0f} in every run" if busiest.low == busiest.high else
             f"{busiest.low:.0f} to {busiest.high:.0f}, run by run")
    text += (f"In every run at that rate more requests were in flight at once than the small "
             f"cap's {slots} slots (at the busiest moment {peaks}), so some waited for a slot, "
             f"while the large cap ran up to {found.large_seqs:.0f} at once: "
             f"{found.seq_ratio:.1f}× as many sequences per step. ")
    if found.large_unfilled:
        text += (f"That is all the load offered, far below its cap of "
                 f"{found.setting.batch_seqs}, so the sweep shows what a few more sequences per "
                 "step bring, not where this device stops gaining. ")
    lesson = f"about {LESSON_GPU.gain:.0f}× for {LESSON_GPU.users} streams against one"
    text += {
        MoreSeqs.MOST_OF_EXTRA: (f"They gave {found.gain:.1f}× the throughput, beyond the "
                                 f"spread of the runs and at least half of the "
                                 f"{found.seq_ratio:.1f}× that many sequences could give at "
                                 f"best: on {found.setting.device_label} a step carrying more "
                                 "sequences cost far less than that many steps, the arithmetic "
                                 f"the lesson's GPU example shows at a larger scale ({lesson})."),
        MoreSeqs.SOME_GAIN: (f"They gave {found.gain:.1f}× the throughput, beyond the spread of "
                             "the runs but well below what the extra sequences could give: on "
                             f"{found.setting.device_label} each added sequence made every step "
                             f"longer. The lesson's GPU example gains {lesson}."),
        MoreSeqs.LOST: ("Yet the large cap produced less, beyond the spread of the runs: on "
                        f"{found.setting.device_label} its longer steps cost more than the "
                        "extra sequences brought in."),
        MoreSeqs.UNTOLD: (f"The two ranges overlap or the medians are within {SERVERS_ALIKE:.0%}"
                          " of each other, so these runs cannot tell whether the extra sequences "
                          "per step added throughput here."),
    }[found.capacity]
    if found.capacity in (MoreSeqs.MOST_OF_EXTRA, MoreSeqs.SOME_GAIN):
        text += " " + _step_text(found)
    return text + _try_text(found)


def _step_text(found: RateSweepFindings) -> str:
    """The arithmetic of one step at the top rate beside the run's measured gain."""
    small, large = found.tpot_high_i.median, found.tpot_high_b.median
    slots, n = found.setting.interactive_seqs, found.requests[-1]
    text = (f"The step times give the arithmetic: a token took {small:.0f} ms with "
            f"{slots} sequences a step and {large:.0f} ms with up to {found.large_seqs:.0f}, so "
            f"{found.seq_ratio:.1f}× the sequences made each step "
            f"{large / small:.2f}× as long, {found.step_gain:.1f}× the tokens per unit of time "
            "while the steps are that full.")
    if found.step_gain <= found.gain:
        return text
    return text + (f" The run's {found.gain:.1f}× counts all of it: its {n} requests took "
                   f"about {found.arrival_s:.1f} s just to arrive ({n} ÷ {found.high_rate:g} "
                   "req/s), and the last to arrive were still decoding after the first had "
                   "finished: in both spells the large cap's steps carried fewer sequences.")


def _try_text(found: RateSweepFindings) -> str:
    """A cap the reader can try that this load would reach."""
    if not found.large_unfilled or found.try_cap is None:
        return ""
    return (f" A cap above {found.large_seqs:.0f} changes nothing for this load; one between "
            f"the two, such as max_num_seqs={found.try_cap}, would be reached and shows the dial "
            "at work.")


def _part_words(outcome: Compared | None, runs: int, what: str) -> str:
    """One part of the traffic, side by side against one server, as a clause; ``runs``: the
    fewer of the two set-ups' servings."""
    if outcome is Compared.LOWER:
        return f"{what} did better side by side, beyond the spread of the runs"
    if outcome is Compared.HIGHER:
        return f"{what} did worse side by side, beyond the spread of the runs"
    if runs < 2:
        return f"with one run each there is no spread to weigh the difference for {what} against"
    return f"for {what} the ranges overlap, so this run cannot tell the set-ups apart"


def _mixed_text(found: MixedFindings) -> str:
    if found.split is None or found.pair_chat is None or found.pair_job is None:
        return ("This device could not be split between two servers (it has one core), so the "
                "page makes no claim about two deployments; the one-deployment rows are above.")
    chat, job = found.pair_chat, found.pair_job
    text = (f"Side by side (the chat server on {found.split[0]}; the job's on "
            f"{found.split[1]}), the chat users' p99 first token "
            f"was {chat.median:,.0f} ms ({chat.range_text(' ms')}) and the job finished in "
            f"{job.median:.1f} s ({job.range_text(' s', 1)}). On one server for everything, "
            f"the best p99 first token was {found.best_chat.median:,.0f} ms "
            f"({found.best_chat.range_text(' ms')}) and the quickest job "
            f"{found.best_job.median:.1f} s ({found.best_job.range_text(' s', 1)}). ")
    outcomes = (found.chat, found.job)
    if outcomes == (Compared.LOWER, Compared.LOWER):
        return text + ("With half the device each, the split gave the chat users quicker first "
                       "tokens and finished the job sooner: keeping the job's long requests out "
                       "of the chat server's steps paid for itself here.")
    if outcomes == (Compared.LOWER, Compared.HIGHER):
        return text + ("The split protected the chat users, and the job paid for it: with half "
                       "the device it took longer than on a server of its own. That is the "
                       "trade to decide on — a chat that stays quick, or a job that ends sooner.")
    if outcomes == (Compared.HIGHER, Compared.LOWER):
        return text + ("The job did better on its half, but the chat users waited longer than "
                       "on a shared server: with half the device, the chat server's own steps "
                       "were slower.")
    if outcomes == (Compared.HIGHER, Compared.HIGHER):
        return text + ("Splitting the device lost on both counts here: each half was too small "
                       "for its traffic, and one server with the whole device did better. Two "
                       "deployments pay off when each has enough hardware of its own.")
    if set(outcomes) <= {Compared.ALIKE, Compared.UNTOLD}:
        told = _part_words(Compared.UNTOLD, min(chat.n, found.best_chat.n),
                           "the chat users and the job")
    else:
        told = "; ".join((_part_words(found.chat, min(chat.n, found.best_chat.n),
                                      "the chat users"),
                          _part_words(found.job, min(job.n, found.best_job.n), "the job")))
    return text + (f"{told[0].upper()}{told[1:]}. So this run does not say whether two "
                   "deployments beat one here.")


def story(sweeps: RateSweepFindings, mixed: MixedFindings, prediction: str) -> str:
    """The page's interpretation, in Markdown, from the two sweeps' and the mixed traffic's
    findings."""
    setting = sweeps.setting
    measured = (f"at the lowest rate a token took {sweeps.tpot_low_i.median:.0f} ms "
                f"with max_num_seqs={setting.interactive_seqs} and "
                f"{sweeps.tpot_low_b.median:.0f} ms with {setting.batch_seqs} (medians of "
                f"{sweeps.tpot_low_i.n} runs); the p99 first token stayed within the SLO in "
                f"every run with {setting.interactive_seqs} {_rate(sweeps, sweeps.sustained_i)} "
                f"and with {setting.batch_seqs} {_rate(sweeps, sweeps.sustained_b)}.")
    return page_story(prediction, measured, [
        ("Interactive chat", _chat_text(sweeps)),
        ("Batch processing", _throughput_text(sweeps)),
        ("Mixed traffic", _mixed_text(mixed)),
    ])
