"""Chapter 07 whole: every sentence the page writes from its findings, in page order, as one
text to review (the story snapshots in ``tests/snapshots``)."""

from __future__ import annotations

from collections.abc import Sequence

from servelab.lessons.deployments.metrics_findings import MetricsFindings
from servelab.lessons.deployments.metrics_words import metrics_text
from servelab.lessons.deployments.mixed_findings import MixedFindings
from servelab.lessons.deployments.pace import CapsPace
from servelab.lessons.deployments.slot_rate import SlotRate
from servelab.lessons.deployments.slot_words import check_text, prediction_text
from servelab.lessons.deployments.sweep_findings import RateSweepFindings
from servelab.lessons.deployments.sweep_words import caps_pace_text
from servelab.lessons.deployments.words import story


def page_words(slot_rate: SlotRate, found_metrics: MetricsFindings, rates: Sequence[float],
               sweeps: RateSweepFindings, mixed: MixedFindings, pace: CapsPace,
               prediction: str = "") -> str:
    """Every sentence chapter 07 writes from its findings, in page order: one text to review."""
    return "\n\n".join((prediction_text(slot_rate), metrics_text(found_metrics),
                        check_text(slot_rate, rates, sweeps.sustained(sweeps.small)),
                        caps_pace_text(pace), story(sweeps, mixed, prediction)))
