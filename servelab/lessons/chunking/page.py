"""Chapter 06 whole: every sentence the page writes from its findings, in page order, as one
text to review (the story snapshots in ``tests/snapshots``)."""

from __future__ import annotations

from servelab.bench.prefill import PrefillFit
from servelab.lessons.chunking.findings import ReadAlone, TradeFindings
from servelab.lessons.chunking.forecast import DocumentForecast
from servelab.lessons.chunking.forecast_words import (
    alone_line,
    chunked_line,
    document_line,
    forecast_text,
    reading_line,
    spacing_line,
)
from servelab.lessons.chunking.sizing import DocumentLoad
from servelab.lessons.chunking.words import story


def page_words(first_fit: PrefillFit, document_tokens: int, pause_ms: int, load: DocumentLoad,
               prefill: PrefillFit, smallest_spacing_s: float, alone: ReadAlone,
               findings: TradeFindings, forecast: DocumentForecast,
               prediction: str = "") -> str:
    """Every sentence chapter 06 writes from its findings, in page order: one text to review."""
    return "\n\n".join((
        document_line(first_fit, document_tokens, pause_ms),
        reading_line(forecast.reading, document_tokens),
        spacing_line(load, prefill, smallest_spacing_s),
        chunked_line(forecast, findings.plan.budget), alone_line(alone, findings.plan),
        story(findings, prediction), forecast_text(forecast)))
