"""Chapter 09 whole: every sentence the page writes from its findings, in page order, as one
text to review (the story snapshots in ``tests/snapshots``)."""

from __future__ import annotations

from servelab.lessons.routing.copies_words import copies_pace_text, copies_title, two_gpus_note
from servelab.lessons.routing.failure_words import failure_line
from servelab.lessons.routing.findings import (
    CopiesFindings,
    Failure,
    RoutingFindings,
)
from servelab.lessons.routing.interpretation import interpretation_text
from servelab.lessons.routing.pace import CopiesPace
from servelab.lessons.routing.policy_words import spread_title


def page_words(routed: RoutingFindings, failure: Failure, gpus: int, copied: CopiesFindings,
               device_label: str, pace: CopiesPace, prediction: str = "") -> str:
    """Every sentence chapter 09 writes from its findings, in page order (the figures' titles
    among them): one text to review."""
    return "\n\n".join((
        spread_title(routed), failure_line(failure), two_gpus_note(gpus),
        copies_title(copied, device_label), copies_pace_text(pace),
        interpretation_text(routed, failure, copied, prediction)))
