"""What each snapshotted chapter keeps of one real run, and how its whole story is rendered.

``NAMES``: the findings a chapter's executed notebook holds, by the name they are kept under,
each an expression in that notebook's kernel; ``KINDS``: the type each is read back as;
``RENDER``: the chapter's function that writes every sentence of the page from them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from servelab.bench.prefill import PrefillFit
from servelab.lessons.batching import page as batching_page
from servelab.lessons.batching.findings import BatchFindings, CeilingFindings, Intensity
from servelab.lessons.batching.roofline import Roofline
from servelab.lessons.batching.step_cost import GainFindings, StepCost
from servelab.lessons.batching.waves_findings import WavesFindings
from servelab.lessons.capacity import words as capacity_words
from servelab.lessons.capacity.findings import PlanCheck
from servelab.lessons.chunking import page as chunking_page
from servelab.lessons.chunking.findings import ReadAlone, TradeFindings
from servelab.lessons.chunking.forecast import DocumentForecast
from servelab.lessons.chunking.sizing import BudgetPlan, DocumentLoad
from servelab.lessons.deployments import page as deployments_page
from servelab.lessons.deployments.metrics_findings import MetricsFindings
from servelab.lessons.deployments.mixed_findings import MixedFindings
from servelab.lessons.deployments.pace import CapsPace
from servelab.lessons.deployments.request_metrics import PercentileReach, RequestTiming
from servelab.lessons.deployments.slot_rate import SlotRate
from servelab.lessons.deployments.sweep_findings import RateSweepFindings
from servelab.lessons.dials import page as dials_page
from servelab.lessons.dials.findings import ContextFindings, SweepFindings
from servelab.lessons.dials.line_gain import LineGain
from servelab.lessons.dials.step_model import DialPrediction
from servelab.lessons.dials.tp_findings import TensorParallelFindings
from servelab.lessons.overview import page as overview_page
from servelab.lessons.paging import page as paging_page
from servelab.lessons.paging.capacity import CachePlan, EngineCheck
from servelab.lessons.paging.findings import (
    AdmissionFindings,
    PagingFindings,
    SqueezeFindings,
    TokenCost,
)
from servelab.lessons.paging.pace import RoomyPace
from servelab.lessons.prefix import page as prefix_page
from servelab.lessons.prefix.first_token import FirstTokenModel
from servelab.lessons.prefix.reuse_findings import LoadReuseFindings, ReuseFindings
from servelab.lessons.prefix.sharing_findings import SharingFindings
from servelab.lessons.routing import page as routing_page
from servelab.lessons.routing.findings import CopiesFindings, Failure, RoutingFindings
from servelab.lessons.routing.pace import CopiesPace
from servelab.lessons.single_user.findings import EngineFindings
from servelab.lessons.single_user.forecast import VllmForecast
from servelab.lessons.single_user.slots import SlotFindings
from servelab.lessons.single_user.slots_words import page_words

NAMES: dict[str, dict[str, str]] = {
    "00-serving-many-users": {
        "found": "found", "paging": "paging", "reused": "reused", "load": "load",
        "user_speed": "float(user_speed)", "plan": "plan", "prefill": "prefill",
        "chunks": "chunks"},
    "01-serving-engine": {"timing": "timing", "reach": "PercentileReach(99, crowd_requests)",
                          "found": "found", "client_tokens": "float(client_tokens)",
                          "server_tokens": "float(server_tokens)", "smoke": "smoke"},
    "02-continuous-batching": {
        "here": "here", "lesson_row": "published[-1]", "found": "found",
        "ceiling": "CeilingFindings.of(limit)", "cost": "cost",
        "gain": "GainFindings(GainCheck.of(steady_totals(runs), top), fit, LessonStep.of(), "
                "single_step_ms=one_step_ms)",
        "intensity": "intensity", "waves": "found_waves", "smoke": "smoke"},
    "03-paged-attention": {
        "plans": "plans", "contexts": "plan_contexts", "engine_check": "engine_check",
        "paging": "paging", "cost": "cost", "squeeze": "squeeze", "admission": "admission",
        "pace": "pace"},
    "04-prefix-caching": {
        "first_token": "FirstTokenModel(reading, reuse)", "reuse": "reuse", "load": "load",
        "sharing": "SharingFindings.from_peaks(peaks, hits, expect)"},
    "05-the-dials": {
        "expected": "expected", "swept": "swept", "context": "context",
        "tensor_parallel": "None if tensor_parallel is None else TensorParallelFindings"
                           ".from_table(tensor_parallel, users=sizes.tp_users)",
        "device_label": "runtime.device.label", "line_gain": "line_gain"},
    "06-chunked-prefill": {
        "first_fit": "first_fit", "document_tokens": "int(DOCUMENT)", "pause_ms": "sizes.pause_ms",
        "load": "load", "prefill": "prefill", "smallest_spacing_s": "MIN_SPACING_S",
        "alone": "alone", "findings": "findings", "forecast": "forecast"},
    "07-throughput-vs-latency": {
        "slot_rate": "slot_rate", "found_metrics": "found_metrics", "rates": "RATES",
        "sweeps": "sweeps", "mixed": "mixed", "pace": "pace"},
    "08-when-not-to": {"engines": "engines_found", "found": "slot_found",
                       "prefix_words": "sizes.prefix_words", "forecast": "forecast"},
    "09-past-one-machine": {
        "routed": "routed", "failure": "failure", "gpus": "runtime.device.count",
        "copied": "copied", "device_label": "runtime.device.label", "pace": "pace"},
    "10-capacity-plan": {"check": "check"},
}
KINDS: dict[str, dict[str, Any]] = {
    "00-serving-many-users": {
        "found": BatchFindings, "paging": PagingFindings, "reused": ReuseFindings,
        "load": DocumentLoad, "user_speed": float, "plan": BudgetPlan, "prefill": PrefillFit,
        "chunks": TradeFindings},
    "01-serving-engine": {"timing": RequestTiming, "reach": PercentileReach,
                          "found": BatchFindings, "client_tokens": float,
                          "server_tokens": float, "smoke": bool},
    "02-continuous-batching": {
        "here": Roofline, "lesson_row": Roofline, "found": BatchFindings,
        "ceiling": CeilingFindings, "cost": StepCost, "gain": GainFindings,
        "intensity": Intensity, "waves": WavesFindings, "smoke": bool},
    "03-paged-attention": {
        "plans": list[CachePlan], "contexts": tuple[int, ...], "engine_check": EngineCheck,
        "paging": PagingFindings, "cost": TokenCost, "squeeze": SqueezeFindings,
        "admission": AdmissionFindings, "pace": RoomyPace},
    "04-prefix-caching": {
        "first_token": FirstTokenModel, "reuse": ReuseFindings, "load": LoadReuseFindings,
        "sharing": SharingFindings},
    "05-the-dials": {
        "expected": DialPrediction, "swept": SweepFindings, "context": ContextFindings,
        "tensor_parallel": TensorParallelFindings | None, "device_label": str,
        "line_gain": LineGain},
    "06-chunked-prefill": {
        "first_fit": PrefillFit, "document_tokens": int, "pause_ms": int, "load": DocumentLoad,
        "prefill": PrefillFit, "smallest_spacing_s": float, "alone": ReadAlone,
        "findings": TradeFindings, "forecast": DocumentForecast},
    "07-throughput-vs-latency": {
        "slot_rate": SlotRate, "found_metrics": MetricsFindings, "rates": list[int],
        "sweeps": RateSweepFindings, "mixed": MixedFindings, "pace": CapsPace},
    "08-when-not-to": {"engines": EngineFindings, "found": SlotFindings, "prefix_words": int,
                       "forecast": VllmForecast},
    "09-past-one-machine": {
        "routed": RoutingFindings, "failure": Failure, "gpus": int, "copied": CopiesFindings,
        "device_label": str, "pace": CopiesPace},
    "10-capacity-plan": {"check": PlanCheck},
}
RENDER: dict[str, Callable[..., str]] = {
    "00-serving-many-users": overview_page.page_words,
    "01-serving-engine": batching_page.serving_engine_words,
    "02-continuous-batching": batching_page.continuous_batching_words,
    "03-paged-attention": paging_page.page_words,
    "04-prefix-caching": prefix_page.page_words,
    "05-the-dials": dials_page.page_words,
    "06-chunked-prefill": chunking_page.page_words,
    "07-throughput-vs-latency": deployments_page.page_words,
    "08-when-not-to": page_words,
    "09-past-one-machine": routing_page.page_words,
    "10-capacity-plan": capacity_words.page_words,
}
