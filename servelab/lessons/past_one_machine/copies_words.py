"""The words of chapter 09's last section: two copies behind the router against one server
(and, with two GPUs, one model split over both), read from ``CopiesFindings``.
"""

from __future__ import annotations

import pandas as pd

from servelab.lessons.compare import Compared
from servelab.lessons.device_model.words import foretold_text, line_source
from servelab.lessons.findings_table import findings_table
from servelab.lessons.fold import fold
from servelab.lessons.past_one_machine.findings import CopiesFindings, SetupRuns, has_two_gpus
from servelab.lessons.past_one_machine.pace import CopiesPace


def setup_view(found: CopiesFindings) -> pd.DataFrame:
    """One row per setup (the index) as the page prints it: medians with the runs' range."""
    return pd.DataFrame(
        [
            {
                "set-up": setup.label,
                "runs": f"{setup.output_tok_s.n}",
                "output (tok/s)": setup.output_tok_s.with_range(),
                "time per output token p50 (ms)": setup.tpot_ms_p50.with_range(),
            }
            for setup in found.setups
        ]
    ).set_index("set-up")


def copies_title(copied: CopiesFindings, device_label: str) -> str:
    """The setups figure's finding."""
    return f"On {device_label}, " + {
        Compared.HIGHER: "two copies delivered more output than one server",
        Compared.LOWER: "one server delivered more output than two copies",
    }.get(copied.verdict, "the runs cannot tell two copies from one server")


def _setup_text(setup: SetupRuns) -> str:
    rate = setup.output_tok_s
    return f"{rate.median:,.0f} output tok/s ({rate.low:,.0f}–{rate.high:,.0f}) on {setup.label}"


def copies_text(found: CopiesFindings) -> str:
    """Two replicas against one server (and, with two GPUs, one model split over both)."""
    copies, one = found.copies, found.one
    text = (
        f"The same closed loop of users ran {copies.output_tok_s.n} times on each set-up. "
        f"It gave {_setup_text(copies)}, against {_setup_text(one)}. A token took "
        f"{copies.tpot_ms_p50.median:,.0f} ms (median) against "
        f"{one.tpot_ms_p50.median:,.0f} ms. "
    )
    if found.device_kind == "cpu":
        text += {
            Compared.HIGHER: (
                "Two one-core copies delivered more than one server on both cores, in every run. "
                "On this CPU a single engine did not turn two cores into twice one core's work. "
            ),
            Compared.LOWER: (
                "One server with both cores delivered more than two one-core copies, in every "
                "run. One engine batches every user's tokens into one step, and the copies each "
                "carried the cost of a whole server on half the machine. "
            ),
        }.get(
            found.verdict,
            (
                "The runs cannot tell the two setups apart. Splitting two cores into two copies "
                "bought no clear throughput, only a second process. "
            ),
        )
        text = text.rstrip() + fold(
            "On a CPU the copies share one memory bus, so this run "
            "cannot show what copies on separate GPUs give. It shows "
            "what splitting one machine costs."
        )
    elif not has_two_gpus(found.gpus):
        text += (
            "Both copies shared one GPU here, each with part of its memory and both with "
            "its compute: copies pay off when each has a device of its own."
        )
    else:
        text += {
            Compared.HIGHER: (
                "Two copies, a GPU each, delivered more than one server on one GPU: each copy "
                "brought a device of its own to the load. "
            ),
            Compared.LOWER: (
                "One server on one GPU delivered more than two copies on two: this load did not "
                "need the second GPU, and the router's hop cost time. "
            ),
        }.get(
            found.verdict,
            (
                "The runs cannot tell the copies on two GPUs from one GPU: the load did not "
                "clearly need the second GPU. "
            ),
        )
    if found.split is not None:
        text += (
            f"Split over two GPUs with tensor parallelism the model gave "
            f"{_setup_text(found.split)} at {found.split.tpot_ms_p50.median:,.0f} ms a "
            "token: "
        )
        text += {
            Compared.HIGHER: (
                "fewer tokens than two copies, as the lesson says: splitting a model that fits "
                "on one card adds the GPUs' exchange to every step."
            ),
            Compared.LOWER: (
                "more than two copies, against the lesson's rule of thumb, on this model and "
                "these GPUs."
            ),
        }.get(
            found.split_verdict or Compared.UNTOLD,
            (
                "the runs cannot tell it from two copies; the lesson's reason to prefer copies, "
                "the GPUs' exchange at every step, did not show in throughput here."
            ),
        )
    return text.rstrip()


def two_gpus_note(gpus: int) -> str:
    """Why the page does or does not compare a split model with two copies."""
    if has_two_gpus(gpus):
        return "This machine has two GPUs: the last row splits one model over both."
    return (
        "This machine has no second GPU, so the page does not run "
        "`--tensor-parallel-size 2`. With two GPUs (Kaggle's T4 x2) it would serve one "
        "model split over both and compare it with two copies, one per GPU. A split is how "
        "a model too large for one card is served at all. For one that fits, it gives each "
        "GPU half the weights. That frees memory for KV cache and brings both GPUs' "
        "compute to every token. The price is the GPUs exchanging results after every "
        "layer."
    )


def copies_pace_text(pace: CopiesPace) -> str:
    """The copies' and one server's time per token beside what the step line predicted."""
    if pace.line is None:
        return "No step line was to hand, so nothing predicted these times per token."
    if pace.copies_ms is None or pace.one_ms is None or pace.foretold is None:
        return (
            "The step line times one server; two copies sharing one GPU share its compute "
            "in a way the line does not describe, so it predicts nothing for them."
        )
    assumption = (
        "Each copy has half the cores, so both parts of its step take twice as long"
        if pace.halves_cores
        else "Each copy has a GPU like the one the line was timed on"
    )
    table = findings_table(
        ["Set-up", "Predicted (ms a token)", "Measured (ms a token)", "The prediction"],
        [
            [
                label,
                f"{predicted:,.0f}",
                check.measured.with_range(),
                foretold_text(check.foretold, check.measured),
            ]
            for label, predicted, check in zip(
                ("Two copies", "One server"),
                (pace.copies_ms, pace.one_ms),
                pace.checks,
                strict=True,
            )
        ],
    )
    return (
        f"**The step line predicted {pace.copies_ms:,.0f} ms a token for the copies and "
        f"{pace.one_ms:,.0f} ms for one server.** The line is "
        f"{line_source(pace.line.fitted_in)}, at {pace.users} users. {assumption}."
        f"\n\n{table}"
    )
