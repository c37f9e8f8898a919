"""What each snapshotted chapter keeps of one real run, and how its whole story is rendered.

``NAMES``: the findings a chapter's executed notebook holds, by the name they are kept under,
each an expression in that notebook's kernel; ``KINDS``: the type each is read back as;
``RENDER``: the chapter's function that writes every sentence of the page from them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from servelab.lessons.batching import page as batching_page
from servelab.lessons.batching.findings import BatchFindings, CeilingFindings, Intensity
from servelab.lessons.batching.roofline import Roofline
from servelab.lessons.batching.step_cost import GainFindings, StepCost
from servelab.lessons.batching.waves_findings import WavesFindings
from servelab.lessons.capacity import words as capacity_words
from servelab.lessons.capacity.findings import PlanCheck
from servelab.lessons.deployments.request_metrics import PercentileReach, RequestTiming
from servelab.lessons.single_user.findings import EngineFindings
from servelab.lessons.single_user.slots import SlotFindings
from servelab.lessons.single_user.slots_words import page_words

NAMES: dict[str, dict[str, str]] = {
    "01-serving-engine": {"timing": "timing", "reach": "PercentileReach(99, crowd_requests)",
                          "found": "found", "client_tokens": "float(client_tokens)",
                          "server_tokens": "float(server_tokens)", "smoke": "smoke"},
    "02-continuous-batching": {
        "here": "here", "lesson_row": "published[-1]", "found": "found",
        "ceiling": "CeilingFindings.of(limit)", "cost": "cost",
        "gain": "GainFindings(GainCheck.of(steady_totals(runs), top), fit, LessonStep.of(), "
                "single_step_ms=one_step_ms)",
        "intensity": "intensity", "waves": "found_waves", "smoke": "smoke"},
    "08-when-not-to": {"engines": "engines_found", "found": "slot_found",
                       "prefix_words": "sizes.prefix_words"},
    "10-capacity-plan": {"check": "check"},
}
KINDS: dict[str, dict[str, Any]] = {
    "01-serving-engine": {"timing": RequestTiming, "reach": PercentileReach,
                          "found": BatchFindings, "client_tokens": float,
                          "server_tokens": float, "smoke": bool},
    "02-continuous-batching": {
        "here": Roofline, "lesson_row": Roofline, "found": BatchFindings,
        "ceiling": CeilingFindings, "cost": StepCost, "gain": GainFindings,
        "intensity": Intensity, "waves": WavesFindings, "smoke": bool},
    "08-when-not-to": {"engines": EngineFindings, "found": SlotFindings, "prefix_words": int},
    "10-capacity-plan": {"check": PlanCheck},
}
RENDER: dict[str, Callable[..., str]] = {
    "01-serving-engine": batching_page.serving_engine_words,
    "02-continuous-batching": batching_page.continuous_batching_words,
    "08-when-not-to": page_words,
    "10-capacity-plan": capacity_words.page_words,
}
