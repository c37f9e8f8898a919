"""Chapter 00 whole: every sentence the page writes from its findings, in page order, as one
text to review (the story snapshots in ``tests/snapshots``)."""

from __future__ import annotations

from servelab.bench.prefill import PrefillFit
from servelab.lessons.batching.findings import BatchFindings
from servelab.lessons.chunking.findings import TradeFindings
from servelab.lessons.chunking.sizing import BudgetPlan, DocumentLoad
from servelab.lessons.chunking.words import effect_text, load_line, sizing_text
from servelab.lessons.overview.findings import LessonFindings
from servelab.lessons.overview.words import batching_text, paging_text, prefix_text, summary_text
from servelab.lessons.paging.findings import PagingFindings
from servelab.lessons.prefix.reuse_findings import ReuseFindings


def page_words(found: BatchFindings, paging: PagingFindings, reused: ReuseFindings,
               load: DocumentLoad, user_speed: float, plan: BudgetPlan, prefill: PrefillFit,
               chunks: TradeFindings, prediction: str = "") -> str:
    """Every sentence chapter 00 writes from its findings, in page order: one text to review."""
    return "\n\n".join((
        batching_text(found), paging_text(paging), prefix_text(reused),
        load_line(load, user_speed), sizing_text(plan, fit=prefill), effect_text(chunks),
        summary_text(LessonFindings(found, reused, chunks), prediction)))
