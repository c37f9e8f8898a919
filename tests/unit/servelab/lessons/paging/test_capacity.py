"""servelab.lessons.paging.capacity: chapter 03's capacity plan on made-up numbers and on the
published figures, its KV arithmetic against the counts both engine versions reported
(tests/fixtures), the cards it is drawn for, and the page's own cells run on stand-ins for the
runtime and the server (its table and text, branch by branch:
paged_attention/test_capacity_words.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import IPython.display
import nbformat
import pandas as pd
import pytest

from course.paths import source_notebook
from servelab.bench.server_metrics import parse_metrics
from servelab.engines.vllm_server import parse_capacity
from servelab.hardware import Device
from servelab.lessons.paged_attention.capacity_words import (
    engine_check_text,
    plan_table,
    plan_text,
    users_column,
)
from servelab.lessons.paging.capacity import (
    ALLOWANCE_GIB,
    CARDS,
    GIB,
    PUBLISHED_MODELS,
    Card,
    EngineCheck,
    PlansCompared,
    PublishedModel,
    card_of,
    plan_cache,
    planning_cards,
    whole_block_tokens,
)
from servelab.lessons.paging.kv import KVShape, kv_shape
from tests.support import CPU, FIXTURES, T4X2

SMOL = KVShape(layers=30, kv_heads=3, head_dim=64, dtype="bfloat16")  # the offline model

# The config.json fields of each published model that fix its KV cost and its parameter count
# (copied from the hub; Qwen2.5-7B's and Mistral's have no head_dim: hidden_size ÷ heads).
CONFIGS = {
    "Qwen3-0.6B": dict(
        num_hidden_layers=28,
        num_attention_heads=16,
        num_key_value_heads=8,
        head_dim=128,
        hidden_size=1024,
        intermediate_size=3072,
        vocab_size=151936,
        tie_word_embeddings=True,
        qkv_bias=False,
    ),
    "Llama-3.2-3B-Instruct": dict(
        num_hidden_layers=28,
        num_attention_heads=24,
        num_key_value_heads=8,
        head_dim=128,
        hidden_size=3072,
        intermediate_size=8192,
        vocab_size=128256,
        tie_word_embeddings=True,
        qkv_bias=False,
    ),
    "Qwen2.5-7B-Instruct": dict(
        num_hidden_layers=28,
        num_attention_heads=28,
        num_key_value_heads=4,
        hidden_size=3584,
        intermediate_size=18944,
        vocab_size=152064,
        tie_word_embeddings=False,
        qkv_bias=True,
    ),
    "Mistral-7B-Instruct-v0.3": dict(
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=8,
        hidden_size=4096,
        intermediate_size=14336,
        vocab_size=32768,
        tie_word_embeddings=False,
        qkv_bias=False,
    ),
    "Llama-3.1-8B-Instruct": dict(
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=8,
        head_dim=128,
        hidden_size=4096,
        intermediate_size=14336,
        vocab_size=128256,
        tie_word_embeddings=False,
        qkv_bias=False,
    ),
}


def counted_parameters(config: dict) -> int:
    """A dense decoder's parameters from its shapes: embedding (and an untied output matrix),
    the q, k, v and o projections, a gated MLP's three matrices, and the norms."""
    hidden, heads, kv_heads = (
        config["hidden_size"],
        config["num_attention_heads"],
        config["num_key_value_heads"],
    )
    head_dim = config.get("head_dim") or hidden // heads
    q, kv = heads * head_dim, kv_heads * head_dim
    attention = hidden * q + 2 * hidden * kv + q * hidden
    if config["qkv_bias"]:
        attention += q + 2 * kv
    layer = attention + 3 * hidden * config["intermediate_size"] + 2 * hidden
    embedding = config["vocab_size"] * hidden * (1 if config["tie_word_embeddings"] else 2)
    return embedding + config["num_hidden_layers"] * layer + hidden


TOY = PublishedModel("toy", layers=2, kv_heads=1, head_dim=64, parameters=2**29, source="made up")
TEN = Card("ten", 10.0, "made up")


# -- the published figures --------------------------------------------------------------------
@pytest.mark.parametrize("model", PUBLISHED_MODELS, ids=lambda model: model.name)
def test_each_published_shape_is_what_its_config_json_gives(
    model: PublishedModel, tmp_path: Path
) -> None:
    (tmp_path / "config.json").write_text(json.dumps(CONFIGS[model.name]))
    assert model.shape() == kv_shape(str(tmp_path), "bfloat16")
    assert model.name.split("-")[0] in model.source and "config.json" in model.source


@pytest.mark.parametrize("model", PUBLISHED_MODELS, ids=lambda model: model.name)
def test_each_parameter_count_matches_a_count_from_the_shapes(model: PublishedModel) -> None:
    assert model.parameters == pytest.approx(counted_parameters(CONFIGS[model.name]), rel=0.01)


def test_the_bytes_per_token_of_the_published_models() -> None:
    cost = {model.name: model.shape().bytes_per_token for model in PUBLISHED_MODELS}
    assert cost == {
        "Qwen3-0.6B": 114_688,
        "Llama-3.2-3B-Instruct": 114_688,
        "Qwen2.5-7B-Instruct": 57_344,
        "Mistral-7B-Instruct-v0.3": 131_072,
        "Llama-3.1-8B-Instruct": 131_072,
    }
    # An 8B Llama's weights in 16 bits: vLLM logs 14.96 GiB for them (vllm-project/vllm#10511).
    assert PUBLISHED_MODELS[-1].weight_gib() == pytest.approx(14.96, abs=0.01)


def test_the_cards_and_the_allowance_are_the_documented_figures() -> None:
    assert [(card.name, card.memory_gib) for card in CARDS] == [
        ("16 GB (T4)", 14.74),
        ("80 GB (A100, H100)", 79.22),
    ]
    assert ALLOWANCE_GIB == 3.0


# -- the plan on made-up numbers ----------------------------------------------------------------
def test_room_blocks_and_users_follow_the_formula() -> None:
    plan = plan_cache(TOY, TEN, share=0.5, allowance_gib=1.0, block=16)
    assert plan.weights_gib == 1.0  # 2**29 parameters × 2 bytes
    assert plan.room_gib == pytest.approx(3.0)  # 0.5 × 10 − 1 − 1
    # 2 × 2 layers × 1 head × 64 dims × 2 bytes = 512 bytes a token, 8,192 a block
    assert plan.shape.bytes_per_token == 512
    assert plan.cache_tokens == 3 * GIB // 8192 * 16
    # 393,216 blocks, one held back; a 4,096-token context takes 256 blocks
    assert plan.users(4096) == (393_216 - 1) // 256
    assert plan.users(4097) == (393_216 - 1) // 257


def test_a_model_whose_weights_do_not_fit_holds_nobody() -> None:
    plan = plan_cache(TOY, TEN, share=0.2, allowance_gib=1.5)  # 2 − 1 − 1.5 < 0
    assert not plan.fits and plan.cache_tokens == 0 and plan.users(16) == 0
    row = plan_table([plan], [16]).iloc[0]
    assert row.filter(like="room").item() == 0 and row[users_column(16)] == 0


def test_float32_doubles_both_the_weights_and_the_token() -> None:
    plan = plan_cache(TOY, TEN, dtype="float32")
    assert plan.weights_gib == 2.0 and plan.shape.bytes_per_token == 1024


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (dict(share=0.0), "share is a fraction"),
        (dict(share=1.5), "share is a fraction"),
        (dict(dtype="int3"), "unknown dtype 'int3'"),
    ],
)
def test_a_bad_share_or_dtype_says_so(change: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        plan_cache(TOY, TEN, **change)


def test_whole_blocks_round_down_and_an_empty_cache_holds_nothing() -> None:
    assert whole_block_tokens(SMOL, 23_040 * 128 * 3 + 23_039, 128) == 384
    assert whole_block_tokens(SMOL, 0, 16) == 0 and whole_block_tokens(SMOL, -5, 16) == 0


def test_the_plans_compared_name_who_holds_most_and_the_cheaper_token() -> None:
    plans = [plan_cache(model, card) for card in CARDS for model in PUBLISHED_MODELS]
    found = PlansCompared.of(plans, [4096, 32768])
    assert found.longest == 32768 and found.largest == max(CARDS, key=lambda c: c.memory_gib)
    holders = found.most_and_fewest
    assert holders is not None and holders.cheaper_token
    assert holders.most.users(32768) > holders.fewest.users(32768)
    assert holders.cost_ratio == pytest.approx(131_072 / 57_344)
    assert found.smallest_and_cheapest is not None
    assert PlansCompared.of([plan_cache(TOY, TEN)], [4096]).most_and_fewest is None


# -- the arithmetic against the engine -----------------------------------------------------------
@pytest.mark.parametrize("version", ["vllm-0.32", "vllm-0.11.2"])
def test_the_arithmetic_predicts_both_engines_counts_to_the_token(version: str) -> None:
    folder = FIXTURES / version
    log = (folder / ("startup.log" if version == "vllm-0.32" else "startup-8192.log")).read_text()
    given = int(re.search(r"'kv_cache_memory_bytes': (\d+)", log).group(1))
    capacity = parse_capacity(log)
    block = int(parse_metrics((folder / "metrics.prom").read_text())["block_size"])
    check = EngineCheck.of(
        SMOL,
        cache_bytes=given,
        block=block,
        reported=capacity.kv_cache_tokens,
        max_model_len=capacity.max_model_len,
    )
    assert check.difference == 0 and check.predicted == 93_184
    assert check.counted_in_requests == check.reported
    text = engine_check_text(check)
    assert f"**{check.blocks:,}** whole blocks" in text and "**93,184**" in text
    assert f"{check.blocks - 1:,} blocks" in text and "fewer" not in text and "more" not in text


def test_a_limit_that_is_not_whole_blocks_explains_the_shortfall() -> None:
    check = EngineCheck.of(
        SMOL, cache_bytes=2**31, block=128, reported=91_000, max_model_len=2000
    )  # 728 blocks ÷ 16 per request × 2,000
    assert check.counted_in_requests == 91_000 and check.difference == -2_184
    assert check.ragged and check.engine_has_fewer  # the shortfall's cause
    assert check.apart == 2_184 and check.apart_blocks == pytest.approx(2_184 / 128)
    text = engine_check_text(check)
    assert "2,184 tokens fewer" in text and "2,000 is" in text and "128-token blocks" in text
    assert "727 blocks" in text
    rounded = EngineCheck.of(
        SMOL, cache_bytes=2**31, block=128, reported=91_000, max_model_len=2048
    )
    assert not rounded.ragged
    assert engine_check_text(rounded).split(": ")[-1] != text.split(": ")[-1]


def test_this_runtimes_card_is_what_cuda_reports_and_a_cpu_has_none() -> None:
    t4 = Device(
        kind="cuda", name="Tesla T4", memory_gib=15.0, compute_capability=(7, 5), reserved_gib=0.26
    )
    assert card_of(t4) == Card("Tesla T4 (this runtime)", 14.74, card_of(t4).source)
    assert card_of(Device(kind="cpu", name="x")) is None


# -- the page's cells, on stand-ins --------------------------------------------------------------
def _section(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    start = next(
        i
        for i, cell in enumerate(notebook.cells)
        if cell.source.startswith("## Planning capacity before you deploy")
    )
    end = next(
        i
        for i, cell in enumerate(notebook.cells)
        if cell.source.startswith("## What this run showed")
    )
    return [cell for cell in notebook.cells[start:end] if cell.cell_type == "code"]


class _Markdown:
    def __init__(self, data: str) -> None:
        self.data = data


@pytest.mark.parametrize("kind", ["cuda", "cpu"])
def test_the_chapters_planning_cells_run_on_the_names_earlier_cells_bind(kind: str) -> None:
    notebook = nbformat.read(source_notebook("03-paged-attention"), as_version=4)
    cells = _section(notebook)
    assert [cell.metadata.get("tags") for cell in cells] == [None, ["prose"], None, ["prose"]]
    device = (
        Device(kind="cuda", name="NVIDIA H200", memory_gib=140.0, compute_capability=(9, 0))
        if kind == "cuda"
        else Device(kind="cpu", name="x")
    )
    block = 16 if kind == "cuda" else 128
    cache_bytes = int(0.125 * GIB)
    shape = KVShape(layers=28, kv_heads=8, head_dim=128, dtype="bfloat16")
    shown: list[str] = []
    # What the earlier cells bind and these cells read: the runtime, the KV shape, the block the
    # engine reported, the first server (its flags) and its reported KV tokens, the context limit.
    namespace = {
        "runtime": SimpleNamespace(device=device),
        "shape": shape,
        "block": block,
        "server": SimpleNamespace(flags={"kv_cache_memory_bytes": cache_bytes}),
        "cache_tokens": whole_block_tokens(shape, cache_bytes, block),
        "context_limit": 8192,
        "Markdown": _Markdown,
        "display": lambda thing: shown.append(thing.data),
    }
    with pytest.MonkeyPatch.context() as patch:  # where the story shows its sections
        patch.setattr(IPython.display, "display", lambda markdown: shown.append(markdown.data))
        for cell in cells:
            source = cell.source.replace("from IPython.display import Markdown, display\n", "")
            exec(compile(source, cell.id, "exec"), namespace)
    planning = namespace["planning"]
    assert isinstance(planning, pd.DataFrame)
    assert len(planning) == len(PUBLISHED_MODELS) * (3 if kind == "cuda" else 2)
    assert namespace["engine_check"].difference == 0
    assert len(shown) == 2 and shown[1] == engine_check_text(namespace["engine_check"])
    assert shown[0].endswith(plan_text([plan_cache(TOY, TEN)], [4096]))


def test_the_plan_adds_this_runtimes_gpu_as_a_third_card() -> None:
    assert planning_cards(CPU) == list(CARDS)
    cards = planning_cards(T4X2)
    assert cards[:2] == list(CARDS) and "(this runtime)" in cards[2].name
