"""Chapter 02's prediction before the sweep: what a decoding step should cost on a device from
its bandwidth and FLOP/s alone, and the batching gain that follows (:mod:`.step_cost`).

A step's shared part is at least one read of every weight (weight bytes ÷ bandwidth); each
sequence adds at least its arithmetic (2 operations per parameter ÷ FLOP/s) and its read of its
own KV cache (KV bytes of its context ÷ bandwidth). No datasheet gives an engine's own work, so
the prediction is a window under one stated assumption, ``OVERHEAD_UP_TO``: the engine adds at
most that share again to either part. Work added to the shared part raises the gain; work added
to each sequence lowers it; the window's ends are those two cases. After the sweep,
:class:`EngineWindow` sets the engine's share that the step's split measured beside that
assumption, and carries it to the published rows. ``step_words`` phrases it.
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.hardware import DTYPE_BYTES
from servelab.lessons.batching.findings import LESSON_GPU
from servelab.lessons.batching.step_cost import StepCost, StepInputs
from servelab.lessons.batching.steps import StepFit, gain_at
from servelab.lessons.compare import Placed, placed, placed_within
from servelab.lessons.paging.capacity import CARDS, PUBLISHED_MODELS, PublishedModel
from servelab.models import gpu_model_for

# The assumption behind the window: the engine's own work adds at most this share to the shared
# part of a step (the lower gain's end) or to each sequence's part (the higher end's opposite).
OVERHEAD_UP_TO = 1.0


@dataclass(frozen=True)
class PublishedDevice:
    """A device's memory bandwidth and dense matrix rate in the dtype it serves in, and where
    both were read."""

    name: str
    bandwidth_gb_s: float
    flops_per_s: float
    dtype: str
    source: str


T4 = PublishedDevice(
    "Tesla T4",
    320.0,
    65e12,
    "float16",
    "NVIDIA T4 datasheet: 320 GB/s GDDR6, 65 TFLOPS FP16 mixed precision (Tensor Cores)",
)
A100 = PublishedDevice(
    "A100 80GB SXM",
    2039.0,
    312e12,
    "bfloat16",
    "NVIDIA A100 datasheet: 2,039 GB/s HBM2e, 312 TFLOPS BF16 Tensor Core (dense)",
)
# The lesson serves Qwen3-8B and names no GPU; its KV factors and size as the model's files
# give them.
QWEN3_8B = PublishedModel(
    "Qwen3-8B",
    layers=36,
    kv_heads=8,
    head_dim=128,
    parameters=8.2e9,
    source="Qwen/Qwen3-8B config.json (head_dim 128); 8.2B parameters on its model card",
)


@dataclass(frozen=True)
class Roofline:
    """One device and model: the least a step can cost, and the gain window at ``users``."""

    device: str
    model: str
    weight_read_ms: float
    per_sequence_ms: float  # arithmetic and KV reads of one sequence
    users: int
    source: str

    @classmethod
    def of(cls, device: str, model: str, inputs: StepInputs, users: int, source: str) -> Roofline:
        return cls(
            device,
            model,
            inputs.weight_read_ms,
            inputs.arithmetic_ms + inputs.kv_read_ms,
            users,
            source,
        )

    @classmethod
    def published(
        cls, device: PublishedDevice, model: PublishedModel, context_tokens: float, users: int
    ) -> Roofline:
        """From published figures alone: the model's weights and KV cache in the device's
        dtype."""
        inputs = StepInputs(
            weight_bytes=model.parameters * DTYPE_BYTES[device.dtype],
            parameters=model.parameters,
            bandwidth_gb_s=device.bandwidth_gb_s,
            flops_per_s=device.flops_per_s,
            kv_bytes_per_token=model.shape(device.dtype).bytes_per_token,
            context_tokens=context_tokens,
        )
        return cls.of(device.name, model.name, inputs, users, device.source)

    @property
    def ratio(self) -> float:
        """*r* = *b* ÷ *a* with no engine work at all."""
        return self.per_sequence_ms / self.weight_read_ms

    @property
    def step(self) -> StepFit:
        """The least a step can cost: no engine work at all."""
        return StepFit(self.weight_read_ms, self.per_sequence_ms, 1.0)

    @property
    def step_most_shared(self) -> StepFit:
        """The window's end with the shared part raised by ``OVERHEAD_UP_TO``."""
        return StepFit(self.weight_read_ms * (1 + OVERHEAD_UP_TO), self.per_sequence_ms, 1.0)

    @property
    def step_most_per_sequence(self) -> StepFit:
        """The window's end with each sequence's part raised by ``OVERHEAD_UP_TO``."""
        return StepFit(self.weight_read_ms, self.per_sequence_ms * (1 + OVERHEAD_UP_TO), 1.0)

    def with_engine(self, step_share: float, sequence_share: float) -> StepFit:
        """The step with the engine's work added: ``step_share`` of the weight read to the
        shared part, ``sequence_share`` of each sequence's part to that part."""
        return StepFit(
            self.weight_read_ms * (1 + step_share), self.per_sequence_ms * (1 + sequence_share), 1.0
        )

    @property
    def gain(self) -> float:
        """The gain at ``users`` with no engine work."""
        return gain_at(self.step, self.users)

    @property
    def gain_low(self) -> float:
        """The gain's low end: each sequence's part raised."""
        return gain_at(self.step_most_per_sequence, self.users)

    @property
    def gain_high(self) -> float:
        """The gain's high end: the shared part raised."""
        return gain_at(self.step_most_shared, self.users)

    @property
    def kept_low(self) -> float:
        """The share of one stream's speed each user keeps at the gain's low end."""
        return self.gain_low / self.users

    @property
    def kept_high(self) -> float:
        """The share each user keeps at the gain's high end."""
        return self.gain_high / self.users

    def placed(self, gain: float) -> Placed:
        """Where ``gain`` falls against the window."""
        return placed(gain, self.gain_low, self.gain_high)

    def placed_within(self, gain: float, bounds: tuple[float, float] | None) -> Placed | None:
        """Where ``gain`` falls against the window, if the runs' ``bounds`` agree
        (``compare.placed_within``)."""
        return placed_within(gain, bounds, self.gain_low, self.gain_high)


@dataclass(frozen=True)
class EngineWindow:
    """The gain measured at ``here``'s users against its window, beside what the engine added on
    this device as the step's split (``cost``) measured it; ``bounds``: the least and the most
    gain the sweeps' ranges allow; ``published``: the rows read from datasheets."""

    here: Roofline
    cost: StepCost
    measured_gain: float
    bounds: tuple[float, float] | None
    published: tuple[Roofline, ...]

    @property
    def place(self) -> Placed | None:
        """Where the measured gain falls against the window; None where the ranges disagree."""
        return self.here.placed_within(self.measured_gain, self.bounds)

    @property
    def measured(self) -> bool:
        """The fit split a step, so the engine's share on this device is measured."""
        return self.cost.fit.splits

    @property
    def step_beyond(self) -> bool:
        """The engine's fixed work per step exceeded the window's assumption."""
        return self.measured and self.cost.step_overhead_share > OVERHEAD_UP_TO

    @property
    def sequence_beyond(self) -> bool:
        """The engine's work per sequence exceeded the window's assumption."""
        return self.measured and self.cost.sequence_overhead_share > OVERHEAD_UP_TO

    @property
    def beyond(self) -> bool:
        """The engine added more than the window assumes to either part of a step."""
        return self.step_beyond or self.sequence_beyond

    def carried_gain(self, row: Roofline) -> float:
        """``row``'s gain at its users if its engine added this device's measured shares."""
        return gain_at(
            row.with_engine(self.cost.step_overhead_share, self.cost.sequence_overhead_share),
            row.users,
        )


def decode_context(input_tokens: float, answer_tokens: float) -> float:
    """A sequence's mean context while it decodes: its prompt and half its answer."""
    return input_tokens + answer_tokens / 2


def t4_model() -> PublishedModel:
    """The model this book serves on a 16 GB T4, as its files describe it."""
    name = gpu_model_for(CARDS[0].memory_gib).rsplit("/", 1)[-1]
    return next(model for model in PUBLISHED_MODELS if model.name == name)


def lesson_bandwidth_tb_s() -> float:
    """The bandwidth the lesson's one stream implies if its step were only Qwen3-8B's weight
    read in bf16."""
    return QWEN3_8B.parameters * DTYPE_BYTES["bfloat16"] * LESSON_GPU.single_total / 1e12
