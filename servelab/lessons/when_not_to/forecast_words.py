"""Chapter 08's words for what this device's model predicted of vLLM, before vLLM runs and against
what the page measured (:mod:`servelab.lessons.when_not_to.forecast`)."""

from __future__ import annotations

from servelab.bench.spread import Spread
from servelab.lessons.device_model.foretold import Foretold
from servelab.lessons.device_model.kept import PromptReading, StepLine
from servelab.lessons.device_model.words import foretold_text, line_source, reading_source
from servelab.lessons.when_not_to.forecast import PromptCheck, PromptMiss, VllmForecast


def opening_text(step: StepLine | None, reading: PromptReading | None, many: int) -> str:
    """What the kept model predicts of vLLM before it runs, or that nothing is kept."""
    if step is None and reading is None:
        return (
            "No step line (chapter 02) or prompt reading (chapter 04) is kept on this "
            "runtime, so nothing predicts vLLM's steps with the crowd or its reading of a "
            "fresh prompt."
        )
    parts = []
    if step is None:
        parts.append(
            "No step line is kept on this device (chapter 02 has not run on this "
            "runtime), so nothing predicts vLLM's time per token with the crowd."
        )
    else:
        parts.append(
            f"**The step line predicts {step.fit.at(many):,.0f} ms a token for each of "
            f"the {many} users**, all decoding in one step. Its line is "
            f"{step.fit.fixed_ms:,.1f} ms + {step.fit.per_sequence_ms:,.2f} ms per "
            f"sequence, from {line_source(step.fitted_in)}."
        )
    if reading is None:
        parts.append(
            "No prompt reading is kept from chapter 04, so nothing predicts "
            "how long vLLM takes to read a fresh prompt alone."
        )
    else:
        parts.append(
            f"**A fresh prompt read alone should take {reading.fixed_ms:,.0f} ms, then "
            f"{reading.read_ms(100):,.0f} ms for every 100 tokens** "
            f"({reading.tok_s:,.0f} tokens/s, from "
            f"{reading_source(reading.fitted_in)}). The "
            "page counts each prompt's tokens as vLLM reads it, and checks both at the "
            "end."
        )
    return "\n\n".join(parts)


def _measured(measured: Spread, found: Foretold) -> str:
    return (
        f"measured {measured.with_range(0, ' ms')}: the prediction "
        f"{foretold_text(found, measured)}."
    )


def _step_text(forecast: VllmForecast, found: Foretold | None) -> str | None:
    predicted, measured, step = forecast.step_ms, forecast.crowd_tpot_ms, forecast.step
    if predicted is None or step is None:
        return None
    text = (
        f"**The step line predicted {predicted:,.0f} ms a token with {forecast.many} users "
        "at once**."
    )
    if measured is None or found is None:
        return f"{text} The crowd's runs timed no token after the first, so nothing checks it."
    text += f" vLLM's crowd runs {_measured(measured, found)}"
    sweep = forecast.sweep.fit
    text += (
        f" This page's own sweep timed a step with {forecast.many} at "
        f"{forecast.sweep_step_ms:,.0f} ms. Its line was {sweep.fixed_ms:,.1f} ms + "
        f"{sweep.per_sequence_ms:,.2f} ms per sequence, against the kept "
        f"{step.fit.fixed_ms:,.1f} + {step.fit.per_sequence_ms:,.2f}."
    )
    if found is not Foretold.OFF:
        return text
    if forecast.crowd_above_line:
        return (
            f"{text} The crowd's users arrive together, so their first steps also read the "
            "others' prompts. The line was timed on sequences that only decode."
        )
    return (
        f"{text} The kept line was fitted on another chapter's server and minutes apart. "
        "This page's sweep is the nearer measure of its own steps."
    )


def _prompt_text(
    forecast: VllmForecast,
    which: str,
    predicted: float | None,
    tokens: float | None,
    measured: Spread,
    found: Foretold | None,
) -> str | None:
    if predicted is None or tokens is None or found is None or forecast.reading is None:
        return None
    reading = forecast.reading
    text = (
        f"**The prompt reading predicted {predicted:,.0f} ms for {which}** of "
        f"{tokens:,.0f} tokens read alone, {reading.fixed_ms:,.0f} ms of it the fixed part. "
        f"vLLM {_measured(measured, found)}"
    )
    if found is not Foretold.OFF:
        return text
    check = PromptCheck.of(reading, predicted, tokens, measured)
    source = f"chapter {reading.fitted_in[:2]}'s server"
    if check.where is PromptMiss.WITHIN_FIXED:
        return (
            f"{text} The miss, {check.miss_ms:+,.0f} ms, is smaller than the fixed part, which "
            f"the reading fitted on {source}."
        )
    if check.where is PromptMiss.BEFORE_FIXED:
        return (
            f"{text} The first token came sooner than the fixed part alone: this page's "
            f"server did less work around a request than {source}."
        )
    text += (
        f" After the fixed part, vLLM read this prompt at {check.rate_tok_s:,.0f} tokens/s "
        f"against the reading's {reading.tok_s:,.0f}."
    )
    if check.longer_than_timed:
        return (
            f"{text} The prompt is {check.stretched:.1f}× the longest the reading was timed at, "
            "and a token's attention grows with the tokens before it."
        )
    return text


def forecast_text(forecast: VllmForecast) -> str:
    """The kept model's predictions of vLLM against this page's runs, one paragraph each."""
    step, alone, long = forecast.found
    paragraphs = [
        _step_text(forecast, step),
        _prompt_text(
            forecast,
            "the crowd's prompt",
            forecast.first_alone_pred_ms,
            forecast.prompt_tokens,
            forecast.first_alone_ms,
            alone,
        ),
        _prompt_text(
            forecast,
            "the long shared prompt with reuse off",
            forecast.long_pred_ms,
            forecast.long_tokens,
            forecast.long_off_ms,
            long,
        ),
    ]
    kept = [paragraph for paragraph in paragraphs if paragraph is not None]
    if not kept:
        return (
            "With nothing kept from chapters 02 and 04 on this runtime, there is no "
            "prediction of vLLM to check here."
        )
    return "\n\n".join(kept)
