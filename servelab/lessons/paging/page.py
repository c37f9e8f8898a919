"""Chapter 03 whole: every sentence the page writes from its findings, in page order, as one
text to review (the story snapshots in ``tests/snapshots``)."""

from __future__ import annotations

from collections.abc import Sequence

from servelab.lessons.paging.capacity import CachePlan, EngineCheck
from servelab.lessons.paging.capacity_words import engine_check_text, plan_text
from servelab.lessons.paging.findings import (
    AdmissionFindings,
    PagingFindings,
    SqueezeFindings,
    TokenCost,
)
from servelab.lessons.paging.pace import RoomyPace
from servelab.lessons.paging.words import (
    admission_text,
    pace_text,
    paging_prediction,
    paging_text,
)


def page_words(plans: Sequence[CachePlan], contexts: Sequence[int], engine_check: EngineCheck,
               paging: PagingFindings, cost: TokenCost, squeeze: SqueezeFindings,
               admission: AdmissionFindings, pace: RoomyPace, prediction: str = "") -> str:
    """Every sentence chapter 03 writes from its findings, in page order: one text to review."""
    return "\n\n".join((plan_text(plans, contexts), engine_check_text(engine_check),
                        paging_prediction(prediction, paging), paging_text(paging, cost, squeeze),
                        pace_text(pace), admission_text(admission)))
