"""The three effects chapter 00's closing summary lists, as its sections found them.

Each record is built once, by the module of the chapter that studies the effect: batching by
``batch_findings`` (02), prefix reuse by ``reuse_findings`` (04) and chunked prefill by
``chunking.findings`` (06). The summary words the same records the sections above it worded, so the
page cannot say two things about one run.
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.lessons.batching.findings import BatchFindings
from servelab.lessons.chunking.findings import TradeFindings
from servelab.lessons.prefix.reuse_findings import ReuseFindings


@dataclass(frozen=True)
class LessonFindings:
    """The three effects chapter 00's summary lists, as its sections found them."""

    batching: BatchFindings
    reuse: ReuseFindings
    chunking: TradeFindings
