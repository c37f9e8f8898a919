"""The words of chapter 04: prefix reuse, the first token explained and shared blocks, each from
its findings record (``reuse_findings``, ``first_token``, ``sharing_findings``). Each function
says plainly when an effect did not show; the chapter displays it in a cell tagged ``prose``.
"""

from __future__ import annotations

import math

from servelab.lessons.device_model.foretold import Foretold
from servelab.lessons.device_model.kept import FITTED_HERE
from servelab.lessons.device_model.words import foretold_text, line_source
from servelab.lessons.fold import fold
from servelab.lessons.guess import Aim, Unit
from servelab.lessons.prediction import prediction_text
from servelab.lessons.prefix.reuse_findings import LoadReuseFindings, ReuseFindings
from servelab.lessons.prefix_caching.first_token import FirstTokenModel
from servelab.lessons.prefix_caching.sharing_findings import SharingFindings
from servelab.lessons.untold_words import overlap


def reuse_prediction(prediction: str, reuse: ReuseFindings, load: LoadReuseFindings) -> str:
    """Chapter 04's prediction beside the second request's computed tokens and the TTFT ratio."""
    return prediction_text(
        prediction,
        (
            f"with caching on, the second request computed {reuse.second_computed:,.0f} of its "
            f"{reuse.prompt_tokens:,.0f} prompt tokens, and under load its first token came "
            f"{load.gain:.1f}× sooner"
        ),
        [
            Aim("the tokens the second request computed", reuse.second_computed, Unit.TOKENS),
            Aim("the first token's gain under load", load.gain, Unit.TIMES),
        ],
    )


def reuse_text(reuse: ReuseFindings, load: LoadReuseFindings) -> str:
    """Chapter 04: prompt tokens computed per request by the probe, and the load's first tokens
    with caching on and off."""
    if reuse.reused:
        later = "each later one" if reuse.several_later else "the second"
        mean = " on average" if reuse.several_later else ""
        cost = (
            f"With caching on, the first request computed **{reuse.first_computed:,.0f}** of "
            f"its {reuse.prompt_tokens:,.0f} prompt tokens and {later} "
            f"**{reuse.later_on:,.0f}**{mean}. The rest came from cached blocks. With "
            f"caching off {later} computed **{reuse.later_off:,.0f}**. Only full "
            "blocks are reused: the question and the partly filled last block of the "
            "shared prompt are computed every time."
        )
    else:
        cost = (
            f"Later requests computed {reuse.later_on:,.0f} prompt tokens with caching on and "
            f"{reuse.later_off:,.0f} with it off: this run did not show the reuse."
        )
    on, off = load.on, load.off
    opening = "Under load the median first token came after"
    ranges = (
        f"Each run's median: {on.range_text(' ms', 0, 'runs')} with caching, "
        f"{off.range_text(' ms', 0, 'runs')} without."
    )
    if load.sooner:
        wait = (
            f"{opening} **{on.median:,.0f} ms** with caching and **{off.median:,.0f} ms** "
            f"without: **{load.gain:.1f}×** sooner. {ranges} Even the slowest run with the "
            "cache beat the quickest without it. So most of the wait was the shared "
            "prompt's prefill."
        )
    else:
        wait = (
            f"{opening} {on.median:,.0f} ms with caching and {off.median:,.0f} ms without "
            f"({load.gain:.1f}×). {ranges} {overlap(start=True)} or the gap is small. So these "
            "runs cannot say the cache made first tokens sooner under load."
        )
    method = (
        f"Each server ran {on.n} times. Before each run it served one request with that "
        "run's own shared prompt, not measured."
    )
    hits = (
        "The server reported no prefix-cache queries with caching on."
        if not load.hits_counted
        else f"The server counted a prefix-cache hit rate of **{load.hit_rate:.0%}** with caching "
        "on (the median run): the share of prompt tokens it found already cached."
    )
    return "\n\n".join([cost, wait + fold(f"{method} {hits}")])


def sharing_text(sharing: SharingFindings) -> str:
    """Chapter 04: the blocks ``n`` samples, identical and different prompts held at the peak,
    against the counts expected shared and not."""
    expect = sharing.expect
    counts = (
        f"{expect.copies} sequences of {expect.prompt_tokens} + {expect.output_tokens} "
        f"tokens need **{expect.shared}** blocks of {expect.block_size} if they share the "
        f"prompt's first {expect.shared_blocks} blocks, and **{expect.unshared}** if not."
    )
    why = (
        f"Why {expect.shared_blocks} blocks, not {expect.prompt_tokens} ÷ "
        f"{expect.block_size}? A later sample reuses at most {expect.reusable_tokens} of the "
        f"{expect.prompt_tokens} prompt tokens. The engine always computes a prompt's last "
        "token itself."
    )
    n4_on, n4_off = sharing.n4_on, sharing.n4_off
    if sharing.shared:
        shared = (
            f"`n={expect.copies}` held about **{n4_on:,.0f}** blocks at its peak with "
            f"prefix caching on and **{n4_off:,.0f}** with it off. The children shared "
            f"the prompt only when prefix caching was on. The server found "
            f"{counted(sharing.hits_on)} prompt tokens in the cache, against "
            f"{counted(sharing.hits_off)} without."
        )
    else:
        shared = (
            f"`n={expect.copies}` held about {n4_on:,.0f} blocks with prefix caching on "
            f"and {n4_off:,.0f} with it off. This run did not show the children sharing "
            "the prompt. Peaks are sampled, so a short run can miss them."
        )
    if sharing.twins_match:
        twin = (
            f"Four *separate* requests with an identical prompt held "
            f"**{sharing.same_on:,.0f}**, about the same as `n={expect.copies}`. The engine "
            "treats the samples as separate requests that happen to share a prefix."
        )
    else:
        twin = (
            f"Four separate identical requests held {sharing.same_on:,.0f} blocks against "
            f"{n4_on:,.0f} for `n={expect.copies}`. In this run they did not match."
        )
    if sharing.different_held_more:
        other = (
            f"Four *different* prompts of the same length held "
            f"**{sharing.different_on:,.0f}**: nothing to share."
        )
    else:
        other = (
            f"Four different prompts held {sharing.different_on:,.0f} blocks, not clearly "
            f"more than `n={expect.copies}`. This control did not separate them in this run."
        )
    return "\n\n".join([counts + fold(why), f"{shared} {twin} {other}"])


def counted(value: float) -> str:
    """A counter for the text; a counter the server did not export reads as "none"."""
    return "none" if math.isnan(value) else f"{value:,.0f}"


def first_token_text(model: FirstTokenModel) -> str:
    """The model's prediction, then how it met the probe's first tokens."""
    reading, reuse = model.reading, model.reuse
    if not reading.prefill.separated and reading.step_ms == 0:
        return (
            f"The prefill fit could not tell the fixed part from the prompt's "
            f"({reading.prefill}), and no step line was to hand. So this run cannot predict "
            "how much of the first token reuse removes."
        )
    text = (
        f"The model predicted **{model.on_ms:,.0f} ms** with reuse and "
        f"**{model.off_ms:,.0f} ms** without. That is {model.time_share:.1%} of the wait for "
        f"{model.token_share:.1%} of the tokens ({reuse.later_on:,.0f} computed against "
        f"{reuse.later_off:,.0f}). {_fixed_part_text(model)}"
    )
    return f"{text}\n\n{_checked_text(model)}"


def _fixed_part_text(model: FirstTokenModel) -> str:
    """What every request waits whatever its prompt, and where each part came from."""
    reading = model.reading
    rate = f"its computed tokens at {reading.tok_s:,.0f} tok/s"
    if reading.fixed_ms == 0:
        return (
            f"The prefill fit found no fixed part, and no step line was to hand. So the model "
            f"counts only {rate}, and expects the wait to shrink with them."
        )
    if reading.step_ms == 0:
        parts = f"{reading.fixed_ms:,.0f} ms fitted beside the prompt (no step line was to hand)"
    else:
        step = (
            "the shared part of the step that reads it, by the step line from "
            f"{line_source(reading.step_from or FITTED_HERE)}"
        )
        parts = (
            step
            if reading.from_step
            else f"{reading.request_ms:,.0f} ms of work around the request and "
            f"{reading.step_ms:,.0f} ms, {step}"
        )
    text = (
        f"Every request waits {reading.fixed_ms:,.0f} ms whatever its prompt. That is "
        f"{parts}. "
        f"Then it reads {rate}. Reuse cannot remove the fixed part, which is "
        f"{model.fixed_share_on:.0%} of the shorter wait."
    )
    if reading.from_step:
        text += fold(
            f"The prefill fit put its own fixed part at "
            f"{reading.prefill.fixed_ms:,.0f} ms, below one step's. So the model takes "
            "the step's, and reads the rate from the "
            f"{reading.prefill.long_tokens:,}-token prompt alone."
        )
    return text


def _checked_text(model: FirstTokenModel) -> str:
    """The probe's first tokens against the prediction, and what the model missed."""
    reuse = model.reuse
    if model.foretold is None or reuse.ttft_on is None or reuse.ttft_off is None:
        return "The probe did not time its first tokens, so nothing checks the model here."
    checks = []
    for label, measured, found in zip(
        ("With reuse", "Without reuse"),
        (reuse.ttft_on, reuse.ttft_off),
        model.foretold,
        strict=True,
    ):
        checks.append(
            f"{label} the probe measured {measured.with_range(0, ' ms')}, the "
            f"prediction {foretold_text(found, measured)}."
        )
    text = " ".join(checks)
    if model.foretold[0] is not Foretold.OFF:
        return text
    if model.took_longer:
        text += (
            f" With reuse the model missed **{model.miss_ms:,.0f} ms**. It leaves out "
            f"that each of the {reuse.later_on:,.0f} computed tokens attends to the "
            f"{model.cached_tokens:,.0f} cached tokens before it. The rate was read from "
            "prompts that share nothing."
        )
        if model.reading.step_ms == 0:
            text += " It also leaves out the step that reads the prompt: no step line priced it."
        return text
    return text + (
        f" With reuse the wait came {model.miss_ms:,.0f} ms sooner than the "
        "model said; this run cannot tell which part was shorter."
    )


def probe_title(reuse: ReuseFindings) -> str:
    """The probe's plot title: prompt tokens computed after the first request, on and off."""
    return (
        f"After the first request: {reuse.later_on:.0f} tokens computed per request "
        f"instead of {reuse.later_off:.0f}"
    )


def peaks_title(sharing: SharingFindings) -> str:
    """The peak-blocks plot's title: the ``n`` samples with prefix caching and without."""
    return (
        f"n={sharing.expect.copies} held {sharing.n4_on:.0f} blocks with prefix caching, "
        f"{sharing.n4_off:.0f} without"
    )


def shared_blocks_title(sharing: SharingFindings) -> str:
    """The block table's title: the prompt blocks the samples share, against none shared."""
    expect = sharing.expect
    return (
        f"{expect.copies} samples of a {expect.prompt_tokens}-token prompt: "
        f"{expect.shared_blocks} prompt blocks shared, {expect.shared} held in all against "
        f"{expect.unshared} if each kept its own"
    )
