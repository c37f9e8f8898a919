"""Chapter 07's interpretation, in Markdown: ``story``, displayed in a cell tagged ``prose``.

It joins the words of the sweeps (``sweep_words``) and of the mixed traffic (``mixed_words``),
after the reader's prediction.
"""

from __future__ import annotations

from servelab.lessons.guess import Aim, Unit
from servelab.lessons.prediction import page_story
from servelab.lessons.throughput_vs_latency.mixed_findings import MixedFindings
from servelab.lessons.throughput_vs_latency.mixed_words import mixed_text
from servelab.lessons.throughput_vs_latency.sweep_findings import RateSweepFindings
from servelab.lessons.throughput_vs_latency.sweep_words import chat_text, held_to, throughput_text


def story(sweeps: RateSweepFindings, mixed: MixedFindings, prediction: str) -> str:
    """The page's interpretation, in Markdown, from the two sweeps' and the mixed traffic's
    findings."""
    setting = sweeps.setting
    small, large = (held_to(sweeps, sweeps.sustained(cap)) for cap in (sweeps.small, sweeps.large))
    measured = (
        f"at the lowest rate a token took {sweeps.small.tpot_low.median:,.0f} ms "
        f"with max_num_seqs={setting.interactive_seqs} and "
        f"{sweeps.large.tpot_low.median:,.0f} ms with {setting.batch_seqs} (medians of "
        f"{sweeps.small.tpot_low.n} runs). With {setting.interactive_seqs} the p99 first "
        f"token stayed within the SLO in every run {small}. With {setting.batch_seqs}, "
        f"{large}."
    )
    aims = [
        Aim(
            f"a token at the lowest rate with max_num_seqs={setting.interactive_seqs}",
            sweeps.small.tpot_low.median,
            Unit.MS,
        ),
        Aim(f"with {setting.batch_seqs}", sweeps.large.tpot_low.median, Unit.MS),
    ]
    return page_story(
        prediction,
        measured,
        [
            ("Interactive chat", chat_text(sweeps)),
            ("Batch processing", throughput_text(sweeps)),
            ("Mixed traffic", mixed_text(mixed)),
        ],
        aims,
    )
