"""The published cards' rooflines at chapter 02's gpu size: the page's T4 and A100 rows, which
chapter 10's plan and the T4 wait count also read."""

from __future__ import annotations

from servelab.lessons.batching.roofline import (
    A100,
    QWEN3_8B,
    T4,
    Roofline,
    decode_context,
    t4_model,
)
from servelab.lessons.continuous_batching.chapter import CHAPTER


def published_rooflines(users: int) -> list[Roofline]:
    """The book's model on a T4 and the lesson's model on an A100, each at the context the
    chapter's gpu size decodes with."""
    gpu = CHAPTER.sizes.gpu
    context = decode_context(gpu.input_tokens, gpu.answer_tokens)
    return [
        Roofline.published(T4, t4_model(), context, users),
        Roofline.published(A100, QWEN3_8B, context, users),
    ]
