"""Capacity planning on chapter 03's KV arithmetic: how many users of one context length a card
holds for a model, from the figures the model publishes, and the same arithmetic held against
the KV-cache size a running engine reports.

The memory vLLM gives the KV cache on a GPU is the card's total (as CUDA reports it) times
``gpu_memory_utilization``, less the weights, less what the engine needs besides: the
activations of its largest step, memory outside PyTorch (CUDA's own context, communication
buffers) and CUDA graphs. vLLM measures that last part when it starts; a plan made beforehand can
only assume it, so it is a parameter (``allowance_gib``), and ``ALLOWANCE_GIB`` says where its
default comes from. The cache is then cut into blocks (``servelab.lessons.paging.kv``): a plan
counts whole blocks, leaves out the one vLLM keeps back, and gives each user a full context.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from servelab.hardware import DTYPE_BYTES, Device
from servelab.lessons.paging.kv import KVShape, blocks_for, usable_blocks

GIB = 2**30
GPU_BLOCK = 16  # tokens per KV block: vLLM's default on a CUDA GPU (its CPU engine uses 128)
DEFAULT_SHARE = 0.9  # vLLM's default --gpu-memory-utilization

# What the engine needs besides weights and cache: an assumption, not a measurement. vLLM's own
# start-up profile of an 8B Llama on an 80 GB card logged 1.79 GiB outside PyTorch and a 1.26 GiB
# activation peak (vllm-project/vllm pull request #10511); smaller models and smaller step budgets
# need less, CUDA graphs can add some. Rounded down to 3 GiB for every model and card below.
ALLOWANCE_GIB = 3.0


@dataclass(frozen=True)
class PublishedModel:
    """A model as its own files describe it, so a plan needs no download: the KV factors from
    its config.json (``num_hidden_layers``, ``num_key_value_heads``, and ``head_dim`` or
    ``hidden_size`` ÷ ``num_attention_heads``), its parameter count, and where each was read."""

    name: str
    layers: int
    kv_heads: int
    head_dim: int
    parameters: float
    source: str

    def shape(self, dtype: str = "bfloat16") -> KVShape:
        """The KV factors of one token in ``dtype``, as ``kv_shape`` would read them."""
        return KVShape(
            layers=self.layers, kv_heads=self.kv_heads, head_dim=self.head_dim, dtype=dtype
        )

    def weight_gib(self, dtype: str = "bfloat16") -> float:
        """GiB of unquantized weights in ``dtype``: one value per parameter."""
        return self.parameters * DTYPE_BYTES[dtype] / GIB

    @property
    def billions(self) -> float:
        """The parameter count in billions, as a model's name gives it."""
        return self.parameters / 1e9


# The KV factors are each model's config.json on the Hugging Face hub (its hub name first in
# ``source``); parameter counts are the model card's where it gives one to two decimals, else
# counted from the same config's matrix shapes (the tests of this module recount them all).
PUBLISHED_MODELS: tuple[PublishedModel, ...] = (
    PublishedModel(
        "Qwen3-0.6B",
        layers=28,
        kv_heads=8,
        head_dim=128,
        parameters=0.6e9,
        source="Qwen/Qwen3-0.6B config.json (head_dim 128); 0.6B parameters on its "
        "model card (0.44B without the embedding)",
    ),
    PublishedModel(
        "Llama-3.2-3B-Instruct",
        layers=28,
        kv_heads=8,
        head_dim=128,
        parameters=3.21e9,
        source="meta-llama/Llama-3.2-3B-Instruct config.json (head_dim 128); "
        "3.21B parameters counted from its shapes (embedding tied)",
    ),
    PublishedModel(
        "Qwen2.5-7B-Instruct",
        layers=28,
        kv_heads=4,
        head_dim=128,
        parameters=7.61e9,
        source="Qwen/Qwen2.5-7B-Instruct config.json (hidden_size 3584 ÷ 28 "
        "attention heads = 128); 7.61B parameters on its model card",
    ),
    PublishedModel(
        "Mistral-7B-Instruct-v0.3",
        layers=32,
        kv_heads=8,
        head_dim=128,
        parameters=7.25e9,
        source="mistralai/Mistral-7B-Instruct-v0.3 config.json (hidden_size 4096 ÷ "
        "32 attention heads = 128); 7.25B parameters counted from its shapes",
    ),
    PublishedModel(
        "Llama-3.1-8B-Instruct",
        layers=32,
        kv_heads=8,
        head_dim=128,
        parameters=8.03e9,
        source="meta-llama/Llama-3.1-8B-Instruct config.json (head_dim 128); 8.03B "
        "parameters counted from its shapes",
    ),
)


@dataclass(frozen=True)
class Card:
    """An accelerator's memory as vLLM sees it: the total CUDA reports, which
    ``gpu_memory_utilization`` multiplies (a little under the figure on the box)."""

    name: str
    memory_gib: float
    source: str


CARDS: tuple[Card, ...] = (
    Card("16 GB (T4)", 14.74, "CUDA's total on a Tesla T4 (servelab.hardware.Device)"),
    Card(
        "80 GB (A100, H100)",
        79.22,
        "total_gpu_memory in vLLM's start-up profile on an 80 GB card "
        "(vllm-project/vllm pull request #10511)",
    ),
)


def card_of(device: Device) -> Card | None:
    """This runtime's GPU as one more card to plan for (one card of several alike); ``None`` on
    a CPU, where vLLM is given a cache size instead of a share."""
    if device.kind != "cuda":
        return None
    return Card(
        f"{device.name} (this runtime)",
        round(device.cuda_memory_gib, 2),
        "CUDA's total on this runtime (nvidia-smi's, less what the driver keeps)",
    )


def planning_cards(device: Device) -> list[Card]:
    """The cards a plan covers on ``device``: the two of ``CARDS``, and this runtime's own GPU
    as a third where it has one."""
    own = card_of(device)
    return [*CARDS, own] if own is not None else list(CARDS)


def whole_block_tokens(shape: KVShape, cache_bytes: int, block: int) -> int:
    """The KV tokens a cache of ``cache_bytes`` holds in whole blocks of ``block`` tokens: the
    count vLLM reports as its KV cache size (the block it keeps back included)."""
    if cache_bytes <= 0:
        return 0
    return shape.tokens_in(cache_bytes) // block * block


@dataclass(frozen=True)
class CachePlan:
    """What one card's share leaves for one model's KV cache, and whom it holds."""

    model: PublishedModel
    card: Card
    share: float
    allowance_gib: float
    dtype: str
    block: int

    @property
    def shape(self) -> KVShape:
        return self.model.shape(self.dtype)

    @property
    def weights_gib(self) -> float:
        return self.model.weight_gib(self.dtype)

    @property
    def room_gib(self) -> float:
        """share × card − weights − allowance; at or below zero the model does not fit."""
        return self.share * self.card.memory_gib - self.weights_gib - self.allowance_gib

    @property
    def room_left_gib(self) -> float:
        """The room, none where the weights alone do not fit."""
        return max(self.room_gib, 0.0)

    @property
    def kv_kib_per_token(self) -> float:
        return self.shape.bytes_per_token / 2**10

    @property
    def fits(self) -> bool:
        return self.room_gib > 0

    @property
    def cache_tokens(self) -> int:
        """KV tokens the room holds, in whole blocks (what the engine would report)."""
        return whole_block_tokens(self.shape, int(self.room_gib * GIB), self.block)

    def users(self, context: int) -> int:
        """Users whose whole ``context`` is in the cache at once: the blocks left after the one
        vLLM keeps back, divided by the blocks one full context takes."""
        return usable_blocks(self.cache_tokens, self.block) // blocks_for(context, self.block)


def plan_cache(
    model: PublishedModel,
    card: Card,
    *,
    share: float = DEFAULT_SHARE,
    allowance_gib: float = ALLOWANCE_GIB,
    dtype: str = "bfloat16",
    block: int = GPU_BLOCK,
) -> CachePlan:
    """The plan for serving ``model`` on ``card`` with vLLM given ``share`` of its memory."""
    if not 0 < share <= 1:
        raise ValueError(f"share is a fraction of the card, in (0, 1]; got {share}")
    if dtype not in DTYPE_BYTES:
        raise ValueError(f"unknown dtype {dtype!r}; known: {sorted(DTYPE_BYTES)}")
    return CachePlan(
        model=model, card=card, share=share, allowance_gib=allowance_gib, dtype=dtype, block=block
    )


@dataclass(frozen=True)
class Holders:
    """The plans that hold the most users and the fewest of one context on one card."""

    most: CachePlan
    fewest: CachePlan

    @property
    def cheaper_token(self) -> bool:
        """Whether the most users are the cheaper token's (else the weights made the room)."""
        return self.most.shape.bytes_per_token < self.fewest.shape.bytes_per_token

    @property
    def cost_ratio(self) -> float:
        """How many times the most users' token the fewest's costs."""
        return self.fewest.shape.bytes_per_token / self.most.shape.bytes_per_token


@dataclass(frozen=True)
class PlansCompared:
    """What the plans show: on each card the models whose weights do not fit; on the largest
    card, at the longest context, who holds the most users and the fewest, and whether the
    smallest model is not the cheapest to keep in the cache."""

    plans: tuple[CachePlan, ...]
    longest: int

    @classmethod
    def of(cls, plans: Sequence[CachePlan], contexts: Sequence[int]) -> PlansCompared:
        return cls(tuple(plans), max(contexts))

    @property
    def cards(self) -> list[Card]:
        return list(dict.fromkeys(plan.card for plan in self.plans))

    def left_out(self, card: Card) -> list[CachePlan]:
        return [plan for plan in self.plans if plan.card == card and not plan.fits]

    @property
    def largest(self) -> Card:
        return max(self.cards, key=lambda card: card.memory_gib)

    @property
    def most_and_fewest(self) -> Holders | None:
        """The plans on the largest card holding the most and the fewest users of the longest
        context, where two fit there and the two hold different counts."""
        served = [plan for plan in self.plans if plan.card == self.largest and plan.fits]
        if len(served) < 2:
            return None
        most = max(served, key=lambda plan: plan.users(self.longest))
        fewest = min(served, key=lambda plan: plan.users(self.longest))
        return (
            Holders(most, fewest) if most.users(self.longest) > fewest.users(self.longest) else None
        )

    @property
    def smallest_and_cheapest(self) -> tuple[CachePlan, CachePlan] | None:
        """The fewest parameters and the cheapest token on the largest card, where the two are
        not the same model's: a token's cost follows its shape, not the parameter count."""
        on_largest = [plan for plan in self.plans if plan.card == self.largest]
        smallest = min(on_largest, key=lambda plan: plan.model.parameters, default=None)
        cheapest = min(on_largest, key=lambda plan: plan.shape.bytes_per_token, default=None)
        if (
            smallest is None
            or cheapest is None
            or (cheapest.shape.bytes_per_token >= smallest.shape.bytes_per_token)
        ):
            return None
        return smallest, cheapest


# -- the arithmetic against the engine -----------------------------------------------------------
@dataclass(frozen=True)
class EngineCheck:
    """The KV tokens the arithmetic predicts for a cache of ``cache_bytes`` against the count
    the engine reported for it."""

    bytes_per_token: int
    cache_bytes: int
    block: int
    max_model_len: int
    predicted: int
    reported: int

    @classmethod
    def of(
        cls, shape: KVShape, *, cache_bytes: int, block: int, reported: int, max_model_len: int
    ) -> EngineCheck:
        return cls(
            bytes_per_token=shape.bytes_per_token,
            cache_bytes=cache_bytes,
            block=block,
            max_model_len=max_model_len,
            predicted=whole_block_tokens(shape, cache_bytes, block),
            reported=reported,
        )

    @property
    def blocks(self) -> int:
        return self.predicted // self.block

    @property
    def cache_gib(self) -> float:
        return self.cache_bytes / GIB

    @property
    def difference(self) -> int:
        """Reported minus predicted tokens."""
        return self.reported - self.predicted

    @property
    def apart(self) -> int:
        """Tokens between the two counts, either way."""
        return abs(self.difference)

    @property
    def apart_blocks(self) -> float:
        return self.apart / self.block

    @property
    def engine_has_fewer(self) -> bool:
        return self.difference < 0

    @property
    def ragged(self) -> bool:
        """Whether ``max_model_len`` is not a whole number of blocks."""
        return self.max_model_len % self.block != 0

    def usable(self, tokens: int) -> int:
        """The blocks of ``tokens`` left for sequences once vLLM keeps its one back."""
        return usable_blocks(tokens, self.block)

    @property
    def counted_in_requests(self) -> int:
        """The count vLLM 0.32 reports for the same blocks: the blocks divided by those one
        request of ``max_model_len`` takes (whole blocks), times ``max_model_len``, truncated.
        It equals ``predicted`` when ``max_model_len`` is a whole number of blocks, but for the
        rounding of that division in floating point."""
        per_request = math.ceil(self.max_model_len / self.block)
        return int(self.blocks / per_request * self.max_model_len)
