"""Chapter 05's one GPU against two in words, from ``the_dials.tp_findings``: the chapter shows
``tensor_parallel_text`` under the tensor-parallel table, in the cell that runs only on two GPUs,
and ``tensor_parallel_skipped`` where the runtime has fewer.
"""

from __future__ import annotations

from servelab.lessons.compare import Compared
from servelab.lessons.the_dials.thresholds import CHANGED
from servelab.lessons.the_dials.tp_findings import TensorParallelFindings
from servelab.lessons.the_dials.words import ends
from servelab.lessons.untold_words import cannot_tell, overlap


def _untold(found: TensorParallelFindings) -> str:
    """Why a difference past ``CHANGED`` is still not a finding."""
    why = overlap("runs'") if found.repeated else "one run a side has no range"
    return cannot_tell("whether the split changed it", why)


def _alone_text(found: TensorParallelFindings) -> str:
    speed = ends(found.alone_one, found.alone_split, 1, "tok/s")
    moved = found.alone_moved
    if moved is Compared.LOWER:
        return (
            f"Split over two GPUs, one user's stream was **slower**: {speed}. A single "
            "request gives each step little arithmetic to share out, while after every "
            "layer the two GPUs must exchange their partial results, so every token pays "
            "for that traffic."
        )
    if moved is Compared.HIGHER:
        return (
            f"Split over two GPUs, one user's stream was **faster**: {speed}. Each GPU "
            "read only half of the weights for every token, and here that saved more time "
            "than the exchange after every layer cost."
        )
    if moved is Compared.ALIKE:
        return (
            f"Split over two GPUs, one user's stream kept about its speed: {speed}, within "
            f"{CHANGED:.0%}."
        )
    return f"One user's speed went {speed} with the split, but {_untold(found)}."


def _crowd_text(found: TensorParallelFindings) -> str:
    output = ends(found.crowd_one, found.crowd_split, 0, "tok/s")
    users = found.users
    moved = found.crowd_moved
    if moved is Compared.HIGHER:
        return (
            f"With {users} users at once the split gave **more output**: {output}. Every "
            "step's work was shared by two GPUs' compute and memory bandwidth, and on this "
            "runtime that outweighed the exchange after every layer."
        )
    if moved is Compared.LOWER:
        return (
            f"With {users} users at once the split gave **less output**: {output}. The "
            "exchange after every layer cost more than the second GPU's compute added."
        )
    if moved is Compared.ALIKE:
        return (
            f"With {users} users at once the output stayed about the same: {output}, "
            f"within {CHANGED:.0%}; a second GPU did not buy more throughput."
        )
    return f"With {users} users the output went {output}, but {_untold(found)}."


def _cache_text(found: TensorParallelFindings) -> str:
    held = (
        f"{found.cache_one:,} tokens of KV cache on one GPU, {found.cache_split:,} split over two"
    )
    if found.more_cache:
        return (
            f"The servers held **{held}** ({found.cache_ratio:.1f}×): each GPU keeps only "
            "half of the weights and half of every token's cache, so the memory the "
            "weights no longer take holds more tokens."
        )
    return (
        f"The servers held {held}: this run did not show the larger cache that halving "
        "each GPU's weights should leave."
    )


def tensor_parallel_text(found: TensorParallelFindings) -> str:
    """Chapter 05: one GPU against two for one user and for many (medians of each server's
    repeats, with their ranges), the cache each server had, and what that says about a model
    that fits on one card."""
    runs = (
        f"Each server ran one user, then {found.users} users, in turn, {found.runs} times; "
        "each figure is the median of its runs. "
        if found.repeated
        else ""
    )
    text = f"{runs}{_alone_text(found)} {_crowd_text(found)} {_cache_text(found)}"
    if found.crowd_moved is Compared.HIGHER:
        return (
            f"{text}\n\nSo on this runtime the split paid off under load even though the "
            "model fits on one card; whether it does for yours depends on the load and on "
            "how quickly your GPUs exchange results."
        )
    if found.alone_moved is Compared.LOWER:
        return (
            f"{text}\n\nFor a model that already fits on one card, this run shows the "
            "split's cost to a single stream and no gain for the crowd beyond its runs' "
            "spread to set against it."
        )
    return text


def tensor_parallel_skipped(device_label: str) -> str:
    """Chapter 05 on a runtime with fewer than two GPUs: why the split was not measured."""
    return (
        f"Skipped: tensor parallelism needs at least two GPUs, and this runtime runs on "
        f"one device: {device_label}. On Kaggle, choose the 'GPU T4 x2' accelerator to run "
        "it."
    )


def tensor_parallel_section(
    tensor_parallel: TensorParallelFindings | None, device_label: str
) -> str:
    """The split's paragraph, or where it was not measured, why."""
    if tensor_parallel is None:
        return tensor_parallel_skipped(device_label)
    return tensor_parallel_text(tensor_parallel)
