"""Chapter 04: several sequences from one prompt, and how many KV blocks they really held.

The pinned engines (vLLM 0.11.2 on a GPU, vLLM 0.32 on the CPU) turn a request with ``n=4`` into
four child requests with the same prompt. The children share the prompt's full blocks only
through prefix caching, exactly as four separate requests with an identical prompt would.
:class:`IdenticalPrompts` is that second case; the blocks each run held at its peak come from
the KV usage the server reported.
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.bench.frames import Result
from servelab.bench.prompts import PromptSource
from servelab.bench.workloads import SEED_STRIDE, PlannedRequest, Session, drive_users
from servelab.lessons.paging.kv import blocks_for


@dataclass(frozen=True)
class IdenticalPrompts:
    """``copies`` separate requests with one and the same prompt, sent together, sampled at
    ``temperature`` so that their answers differ (as ``n`` samples do)."""

    copies: int
    input_tokens: int
    max_tokens: int
    temperature: float = 1.0
    seed: int = 0
    name: str = "identical prompts"

    def __post_init__(self) -> None:
        if min(self.copies, self.input_tokens, self.max_tokens) <= 0:
            raise ValueError("copies, input_tokens and max_tokens must be positive")

    def plan(self, prompts: PromptSource) -> list[PlannedRequest]:
        prompt = prompts.text(self.input_tokens, self.seed * SEED_STRIDE)
        return [
            PlannedRequest(
                index=i,
                user=i,
                prompt=prompt,
                max_tokens=self.max_tokens,
                temperature=self.temperature,
            )
            for i in range(self.copies)
        ]

    async def drive(self, session: Session, plan: list[PlannedRequest]) -> None:
        await drive_users(session, plan)


@dataclass(frozen=True)
class SharingExpectation:
    """Blocks ``copies`` sequences of ``prompt_tokens`` + ``output_tokens`` need at the end,
    with the prompt's full blocks shared and without."""

    copies: int
    prompt_tokens: int
    output_tokens: int
    block_size: int

    @property
    def reusable_tokens(self) -> int:
        """Prompt tokens a later sample can take from the cache: all but the last. vLLM always
        computes at least a prompt's last token (its logits give the first output token), so
        a hit stops one token short of the prompt."""
        return self.prompt_tokens - 1

    @property
    def shared_blocks(self) -> int:
        """Full blocks of the reusable tokens: the only ones prefix caching can share. When the
        prompt fills its last block exactly, that block is computed, and held, by every
        sample."""
        return self.reusable_tokens // self.block_size

    @property
    def shared(self) -> int:
        own = blocks_for(self.prompt_tokens + self.output_tokens, self.block_size)
        return self.shared_blocks + self.copies * (own - self.shared_blocks)

    @property
    def unshared(self) -> int:
        return self.copies * blocks_for(self.prompt_tokens + self.output_tokens, self.block_size)


def peak_blocks(result: Result, total_blocks: int) -> float:
    """Most KV blocks in use during ``result``, from the server's sampled usage fraction."""
    return result.summary()["kv_cache_usage_max"] * total_blocks
