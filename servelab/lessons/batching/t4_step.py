"""The book's stated step on a T4, one model for two uses: the wait the GPU contract counts for
each chapter on Colab and Kaggle (``env/gpu_contract/t4_count.py``) and chapter 10's T4 plan.

Chapter 02's roofline gives the least a T4 step can cost from the datasheet. Its window allows
the engine at most ``OVERHEAD_UP_TO`` again on each part; this model takes the window's slow end
and then stated factors for the engine's own work on top (scheduler, sampling, Python), low and
high. They are stated, not measured: no T4 here has run vLLM (issue #63), and the first class's
records are to replace them.
"""

from __future__ import annotations

from servelab.lessons.batching.roofline import OVERHEAD_UP_TO

# (low, high): the engine's work on the shared part and on each sequence's, over the window's
# slow end. Issue #63 puts a T4 step of this model near 8-12 ms + 0.14-0.30 ms a sequence.
ENGINE_SHARED = (1.1, 1.6)
ENGINE_PER_SEQUENCE = (1.0, 1.35)
SOURCE = (
    "stated: chapter 02's T4 roofline at its window's slow end times the engine's own work, "
    f"{ENGINE_SHARED[0]:g}-{ENGINE_SHARED[1]:g}x shared and "
    f"{ENGINE_PER_SEQUENCE[0]:g}-{ENGINE_PER_SEQUENCE[1]:g}x per sequence (issue #63)"
)


def t4_engine_shares(end: int) -> tuple[float, float]:
    """The engine's shares of the datasheet step at the model's ``end`` (0: low, 1: high), as
    ``Roofline.with_engine`` takes them (1.0 adds as much again)."""
    return (
        (1 + OVERHEAD_UP_TO) * ENGINE_SHARED[end] - 1,
        (1 + OVERHEAD_UP_TO) * ENGINE_PER_SEQUENCE[end] - 1,
    )
