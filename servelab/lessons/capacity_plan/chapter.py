"""Chapter 10, the capacity plan.

Its sizes at each profile, the figures it records and the two the class report plots
(``servelab.chapter``).
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.chapter import Chapter, Figures, figure
from servelab.sizes import Knobs, Profiles


@dataclass(frozen=True, kw_only=True)
class CapacitySizes(Knobs):
    """Chapter 10's knobs: the brief (rate, prompt, answer, targets as multiples of this device's
    own times, share), a server first allowed ``most_seqs`` sequences (a short sweep up to it
    fits the step line where no earlier chapter kept one), then ``requests`` Poisson arrivals
    at each of two rates around the planned knee, ``repeats`` times over: a tenth either side
    of it, so a plan that passes both placed the knee within a tenth (the smoke size, which
    measures nothing, sends too few requests for that and brackets it wide)."""

    rate: float
    prompt_tokens: int
    answer_tokens: int
    tpot_factor: float
    ttft_factor: float
    share: float
    most_seqs: int
    brackets: list[float]
    requests: int
    repeats: int
    max_model_len: int


SIZES = Profiles(
    smoke=CapacitySizes(
        profile="smoke",
        rate=8.0,
        prompt_tokens=32,
        answer_tokens=8,
        tpot_factor=2.0,
        ttft_factor=4.0,
        share=0.9,
        most_seqs=4,
        brackets=[0.5, 2.0],
        requests=24,
        repeats=2,
        max_model_len=512,
    ),
    cpu=CapacitySizes(
        profile="cpu",
        rate=40.0,
        prompt_tokens=32,
        answer_tokens=16,
        tpot_factor=2.0,
        ttft_factor=4.0,
        share=0.9,
        most_seqs=16,
        brackets=[0.9, 1.1],
        requests=200,
        repeats=2,
        max_model_len=1024,
    ),
    gpu=CapacitySizes(
        profile="gpu",
        rate=400.0,
        prompt_tokens=256,
        answer_tokens=128,
        tpot_factor=2.0,
        ttft_factor=4.0,
        share=0.9,
        most_seqs=64,
        brackets=[0.9, 1.1],
        requests=400,
        repeats=2,
        max_model_len=1024,
    ),
)


@dataclass(frozen=True)
class CapacityPlanFigures(Figures):
    """Chapter 10's figures (``servelab.chapter.figure``)."""

    step_fixed_ms: float = figure("the step line's fixed part (ms)")
    step_per_sequence_ms: float = figure("the step line's part per sequence (ms)")
    plan_max_num_seqs: float = figure("max_num_seqs the plan chose (sequences)")
    plan_kv_mib: float = figure("KV cache those sequences take, planned (MiB)")
    plan_rate_req_s: float = figure(
        "the planned knee: requests one server finishes (req/s)", main=True
    )
    plan_replicas: float = figure("servers the plan says the target rate needs (count)")
    within_below: float = figure(
        "share of requests within both targets below the knee, the runs' middles (0-1)"
    )
    within_above: float = figure(
        "share of requests within both targets above the knee, the runs' middles (0-1)"
    )
    served_above_req_s: float = figure(
        "requests a second the server finished above the knee, the runs' middles (req/s)", main=True
    )


CHAPTER = Chapter(
    id="10-capacity-plan",
    sizes=SIZES,
    figures_record=CapacityPlanFigures,
)
