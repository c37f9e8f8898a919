"""Chapter 06's plain lines as it sizes the load, and its words for what this device's model
predicted of the document read alone (:mod:`servelab.lessons.chunked_prefill.forecast`), before the
page times it and against the reads."""

from __future__ import annotations

from servelab.bench.prefill import PrefillFit
from servelab.bench.spread import Spread
from servelab.lessons.chunked_prefill.chapter import CHAPTER
from servelab.lessons.chunked_prefill.forecast import DocumentForecast, LengthWhy
from servelab.lessons.chunking.findings import ReadAlone
from servelab.lessons.chunking.sizing import (
    DOCUMENT_PAUSES,
    SPACING_MARGIN,
    BudgetPlan,
    DocumentBound,
    DocumentLoad,
    paused_tokens,
)
from servelab.lessons.device_model.foretold import Foretold
from servelab.lessons.device_model.kept import FITTED_HERE, PromptReading
from servelab.lessons.device_model.words import foretold_text, line_source
from servelab.lessons.plural import plural_s


def _source(reading: PromptReading) -> str:
    """Where the reading came from, as a noun phrase."""
    prefill = reading.prefill
    if reading.fitted_in != CHAPTER.id:
        return (
            f"chapter {reading.fitted_in[:2]}'s prompt reading (prompts of up to "
            f"{prefill.long_tokens:,} tokens)"
        )
    return (
        f"this page's own first {prefill.short_tokens:,}- and {prefill.long_tokens:,}-token "
        "prompts, as no reading is kept on this device"
    )


def _step(forecast: DocumentForecast) -> str:
    """Where the step each chunk pays came from, as a noun phrase."""
    reading = forecast.reading
    if not forecast.step_from_line:
        return "the users' usual step in run 1, as no step line is kept"
    if reading.step_from == FITTED_HERE:  # the chapter that fitted the reading swept for it
        return f"the step line's shared part, from a short sweep in chapter {reading.fitted_in[:2]}"
    return f"the step line's shared part, from {line_source(reading.step_from or '')}"


def document_line(first_fit: PrefillFit, document_tokens: int, pause_ms: int) -> str:
    """How the document's length followed from a first prompt read alone (chapter 06): the
    prefill rate's length, or the bound that replaced it."""
    paused = paused_tokens(first_fit.tok_s, pause_ms)
    rate = (
        f"{first_fit.long_tokens} tokens alone: {first_fit}. At that rate "
        f"{DOCUMENT_PAUSES} x the {pause_ms} ms pause target is {paused} tokens"
    )
    bound = DocumentBound.of(paused, document_tokens)
    if bound is DocumentBound.LEAST:
        return f"{rate}, so the document is the chapter's least, {document_tokens} tokens"
    if bound is DocumentBound.LONGEST:
        return f"{rate}, so the document is the longest the server takes, {document_tokens} tokens"
    return f"{rate}: the document's length"


def spacing_line(load: DocumentLoad, prefill: PrefillFit, smallest_spacing_s: float) -> str:
    """How the documents' spacing followed from one read alone (chapter 06)."""
    return (
        f"{load.document_tokens} tokens alone: {prefill}. The first token takes "
        f"{load.read_s:.2f} s, so every run's documents come {load.spacing_s} s apart "
        f"({SPACING_MARGIN:g} x that, at least {smallest_spacing_s} s)"
    )


def alone_line(alone: ReadAlone, plan: BudgetPlan) -> str:
    """The document read alone on each server (chapter 06)."""
    return (
        f"{plan.document_tokens} tokens alone in {plan.chunks} chunks: {alone.chunked_s:.2f} s "
        f"to the first token (in one step: {alone.one_step_s:.2f} s)"
    )


def reading_line(reading: PromptReading, document_tokens: int) -> str:
    """The prediction printed before the document is read alone in one step."""
    return (
        f"Prompt reading from {_source(reading)}: {reading.fixed_ms:,.0f} ms a request, "
        f"then {reading.tok_s:,.0f} tokens/s. The {document_tokens:,}-token document alone "
        f"should get its first token in about {reading.first_token_ms(document_tokens):,.0f} "
        "ms in one step."
    )


def chunked_line(forecast: DocumentForecast, budget: int) -> str:
    """The prediction printed before the document is read alone on the chunked server."""
    if not forecast.in_chunks:
        return (
            f"A {budget:,}-token budget holds the whole document: one step again, about "
            f"{forecast.chunked_ms:,.0f} ms to its first token."
        )
    more = forecast.later_chunks
    return (
        f"In {forecast.chunks} chunks of up to {budget:,} tokens the document takes {more} "
        f"step{plural_s(more)} more, each about {forecast.step_ms:,.0f} ms. Its first token "
        f"comes after about {forecast.chunked_ms:,.0f} ms. The step's time is "
        f"{_step(forecast)}."
    )


def chunks_line(reading: PromptReading, plan: BudgetPlan) -> str:
    """``chunked_line`` from the reading and the chunked server's plan, before its read alone."""
    return chunked_line(DocumentForecast.of(reading, plan), plan.budget)


def _measured(measured: Spread, found: Foretold) -> str:
    return (
        f"The reads alone measured {measured.with_range(0, ' ms')}: the prediction "
        f"{foretold_text(found, measured)}."
    )


def _one_step_why(forecast: DocumentForecast) -> str:
    """Why the one-step prediction missed, from the document's length against the reading's."""
    timed = f"{forecast.reading.prefill.long_tokens:,}-token prompts"
    why = forecast.one_step_why
    if why is LengthWhy.LONGER:
        return (
            f" The document is {forecast.stretched:.1f}× the {timed} the rate was read from. "
            "Each of its tokens attends to every token before it, so it reads slower than "
            "the rate."
        )
    if why is LengthWhy.SHORTER:
        return (
            f" The document is shorter than the {timed} the rate was read from. Its tokens "
            "attend to fewer before them, so it reads faster than the rate."
        )
    return (
        f" The document's length does not explain it: against the {timed} the rate was "
        "read from, a longer prompt reads slower and a shorter one faster, and this one was "
        "as long or went the other way. Two timings on two servers, minutes apart, "
        "differed by that much here."
    )


def _chunked_why(forecast: DocumentForecast, found: Foretold) -> str:
    """What the chunks added against what the model said they would, and why, where it
    missed."""
    text = (
        f" The chunks added {forecast.measured_extra_ms:,.0f} ms to the document's read alone "
        f"(medians) against {forecast.extra_ms:,.0f} ms predicted, "
        f"{forecast.measured_chunk_ms:,.0f} ms for each chunk after "
        f"the first against a step's {forecast.step_ms:,.0f} ms."
    )
    if found is not Foretold.OFF:
        return text
    if forecast.chunks_cost_more:
        return (
            f"{text} The model leaves out that each later chunk attends to every chunk "
            "before it, which a read in one step does once."
        )
    return (
        f"{text} A step that reads a chunk alone did less fixed work than the step the model "
        "counts for it."
    )


def forecast_text(forecast: DocumentForecast) -> str:
    """The predictions against the reads alone, and why they differ, one paragraph each."""
    one, chunked = forecast.found
    paragraphs = [
        f"**The device model predicted {forecast.one_step_ms:,.0f} ms for the "
        f"{forecast.document_tokens:,}-token document alone in one step.** It read "
        f"from {_source(forecast.reading)}."
    ]
    if forecast.one_step is None or one is None:
        return paragraphs[0] + " This run did not keep the reads alone, so nothing checks it."
    paragraphs[0] += " " + _measured(forecast.one_step, one)
    if one is Foretold.OFF:
        paragraphs[0] += _one_step_why(forecast)
    if forecast.chunked is not None and chunked is not None and forecast.in_chunks:
        paragraphs.append(
            f"**In {forecast.chunks} chunks it predicted "
            f"{forecast.chunked_ms:,.0f} ms**, one step of "
            f"{forecast.step_ms:,.0f} ms more for each chunk after the first. "
            + _measured(forecast.chunked, chunked)
            + _chunked_why(forecast, chunked)
        )
    if not forecast.kept:
        paragraphs.append(
            "No chapter kept a prompt reading on this device, so the prediction "
            "rests on this page's own first timings. Run chapter 04 first for one "
            "made apart from this page."
        )
    return "\n\n".join(paragraphs)
