"""Chapter 08, when a single-user engine is the better choice.

Its sizes at each profile, the figures it records and the two the class report plots
(``servelab.chapter``).
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.chapter import Chapter, Figures, figure
from servelab.sizes import Knobs, Profiles


@dataclass(frozen=True, kw_only=True)
class SingleUserSizes(Knobs):
    """Chapter 08's knobs: ``many`` users at once, each of llama-server's ``many`` slots holding
    ``slot_context`` tokens; its step sweep over ``levels`` and 2 × ``many`` users against the
    cap, each answer ``experiment_tokens`` long, and ``prefix_requests`` requests that share one
    prompt of ``prefix_words`` words."""

    many: int
    one_user_requests: int
    prompt_words: int
    output_tokens: int
    repeats: int
    slot_context: int
    levels: list[int]
    experiment_tokens: int
    prefix_words: int
    prefix_requests: int


SIZES = Profiles(
    smoke=SingleUserSizes(
        profile="smoke",
        many=4,
        one_user_requests=1,
        prompt_words=16,
        output_tokens=12,
        repeats=2,
        slot_context=512,
        levels=[1, 2, 4],
        experiment_tokens=12,
        prefix_words=128,
        prefix_requests=3,
    ),
    cpu=SingleUserSizes(
        profile="cpu",
        many=16,
        one_user_requests=2,
        prompt_words=32,
        output_tokens=32,
        repeats=3,
        slot_context=1024,
        levels=[1, 2, 4, 8, 16],
        experiment_tokens=32,
        prefix_words=384,
        prefix_requests=5,
    ),
    # On a GPU runtime llama.cpp still serves every load on the runtime's two CPU cores, so the
    # crowd is the cpu size's 16 (15 queue behind one answer on the binding, every slot of
    # llama-server busy) and answers are the cpu size's 32 tokens: 32 users of 128 took 12
    # minutes of llama.cpp on two cores, and with 64-token answers its runs took 3.9-7.8 of
    # Colab's minutes by env/gpu_contract/t4_count.py, with 32-token ones 2.7-5.4
    # (issue #63 item 2: t4-wait Colab 15.3-22.7 -> 14.1-20.3 min, Kaggle 12.0-17.7 ->
    # 10.8-15.3, still over ten: 6.5-10 of it the two llama.cpp builds); the T4 batches 16
    # in one step too
    gpu=SingleUserSizes(
        profile="gpu",
        many=16,
        one_user_requests=2,
        prompt_words=64,
        output_tokens=32,
        repeats=2,
        slot_context=1024,
        levels=[1, 4, 8, 16],
        experiment_tokens=32,
        prefix_words=512,
        prefix_requests=5,
    ),
)


@dataclass(frozen=True)
class WhenNotToFigures(Figures):
    """Chapter 08's figures (``servelab.chapter.figure``)."""

    user_tok_s_alone_llama_q4: float = figure(
        "tokens per second one user saw, llama-cpp-python Q4_1", main=True
    )
    user_tok_s_alone_llama_f16: float = figure(
        "tokens per second one user saw, llama-cpp-python F16"
    )
    user_tok_s_alone_llama_server: float = figure(
        "tokens per second one user saw, llama-server Q4_1"
    )
    user_tok_s_alone_vllm: float = figure("tokens per second one user saw, vLLM", main=True)
    output_tok_s_many_llama_q4: float = figure(
        "total output tokens per second, many users, llama-cpp-python Q4_1"
    )
    output_tok_s_many_llama_server: float = figure(
        "total output tokens per second, many users, llama-server Q4_1"
    )
    output_tok_s_many_vllm: float = figure("total output tokens per second, many users, vLLM")
    ttft_s_p99_many_llama_q4: float = figure(
        "slowest-percentile first token, many users, llama-cpp-python Q4_1 (s)"
    )
    ttft_s_p99_many_llama_server: float = figure(
        "slowest-percentile first token, many users, llama-server Q4_1 (s)"
    )
    ttft_s_p99_many_vllm: float = figure("slowest-percentile first token, many users, vLLM (s)")
    step_gain_llama_server: float = figure(
        "output of the largest batch against one sequence's, llama-server (×)"
    )
    step_gain_vllm: float = figure("output of the largest batch against one sequence's, vLLM (×)")
    start_s_llama_q4: float = figure("launch to answering, llama-cpp-python Q4_1 (s)")
    start_s_llama_server: float = figure("launch to answering, llama-server Q4_1 (s)")
    start_s_vllm: float = figure("launch to answering, vLLM (s)")
    bits_per_weight_q4: float = figure("bits per weight of the Q4_1 file, block scales included")
    bits_per_weight_f16: float = figure("bits per weight of the F16 file")


CHAPTER = Chapter(
    id="08-when-not-to",
    sizes=SIZES,
    figures_record=WhenNotToFigures,
)
