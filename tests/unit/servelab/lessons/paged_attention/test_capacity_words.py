"""servelab.lessons.paged_attention.capacity_words: chapter 03's capacity plans as a table and a
text, branch by branch, and what it says where the engine's count differs."""

from __future__ import annotations

from servelab.lessons.paged_attention.capacity_words import engine_check_text, plan_table, plan_text
from servelab.lessons.paging.capacity import (
    CARDS,
    PUBLISHED_MODELS,
    EngineCheck,
    PublishedModel,
    plan_cache,
)
from tests.unit.servelab.lessons.paging.test_capacity import SMOL, TEN, TOY


def test_the_table_has_one_row_a_plan_and_readable_columns() -> None:
    plans = [plan_cache(model, card) for card in CARDS for model in PUBLISHED_MODELS]
    table = plan_table(plans, [4096, 32768])
    assert list(table.columns) == [
        "card",
        "model",
        "KV per token (KiB)",
        "weights (GiB)",
        "room for KV (GiB)",
        "KV tokens",
        "users at 4,096 tokens",
        "users at 32,768 tokens",
    ]
    assert len(table) == len(CARDS) * len(PUBLISHED_MODELS)
    big = table[table["card"] == CARDS[1].name].set_index("model")
    # half the KV heads and fewer layers: more than twice the users of an 8B Llama
    assert (
        big.loc["Qwen2.5-7B-Instruct", "users at 32,768 tokens"]
        > 2 * big.loc["Llama-3.1-8B-Instruct", "users at 32,768 tokens"]
    )
    small = table[table["card"] == CARDS[0].name].set_index("model")
    assert (small.loc[["Qwen2.5-7B-Instruct", "Llama-3.1-8B-Instruct"], "KV tokens"] == 0).all()
    assert small.loc["Qwen3-0.6B", "users at 4,096 tokens"] > 0


# -- the plan's text, branch by branch ---------------------------------------------------------
def test_the_text_names_what_does_not_fit_and_who_holds_most() -> None:
    plans = [plan_cache(model, card) for card in CARDS for model in PUBLISHED_MODELS]
    text = plan_text(plans, [4096, 32768])
    left_out = [plan.model.name for plan in plans if not plan.fits]
    assert left_out == ["Qwen2.5-7B-Instruct", "Mistral-7B-Instruct-v0.3", "Llama-3.1-8B-Instruct"]
    assert {plan.card for plan in plans if not plan.fits} == {CARDS[0]}
    named, why = text.split("\n\n")[0].split(". ")[:2]  # what does not fit, and why
    assert CARDS[0].name in named and all(name in named for name in left_out)
    assert "they need" in why
    most = plan_cache(PUBLISHED_MODELS[2], CARDS[1]).users(32768)
    assert f"**{most}** users" in text and "32,768 tokens" in text
    assert "2.3×" in text  # 131,072 ÷ 57,344
    assert "Qwen3-0.6B" in text and "(0.6B parameters)" in text
    assert text.endswith(plan_text([plan_cache(TOY, TEN)], [4096]))


def test_one_model_left_out_reads_in_the_singular() -> None:
    plans = [plan_cache(TOY, TEN, share=0.2, allowance_gib=1.5)]
    assert not plans[0].fits
    text = plan_text(plans, [16])
    assert "toy does" in text and "it needs" in text and "they need" not in text
    assert "20%" in text and "1.5 GiB" in text


def test_the_same_token_cost_puts_the_difference_in_the_weights() -> None:
    light = PublishedModel("light", 2, 1, 64, 2**29, "made up")
    heavy = PublishedModel("heavy", 2, 1, 64, 2**31, "made up")
    light_plan, heavy_plan = plan_cache(light, TEN), plan_cache(heavy, TEN)
    assert light_plan.shape.bytes_per_token == heavy_plan.shape.bytes_per_token
    text = plan_text([light_plan, heavy_plan], [4096])
    assert "light holds" in text and "4.0 GiB" in text and "×" not in text
    assert "(0.5B parameters)" not in text  # no cheaper model to name


def test_nothing_to_compare_leaves_only_the_caveat() -> None:
    text = plan_text([plan_cache(TOY, TEN)], [4096])
    assert "\n\n" not in text and not any(char.isdigit() for char in text)  # the caveat alone
    assert text != plan_text([plan_cache(TOY, TEN, share=0.2, allowance_gib=1.5)], [16])


def test_any_other_difference_says_what_to_compare() -> None:
    check = EngineCheck.of(SMOL, cache_bytes=2**31, block=16, reported=90_000, max_model_len=2048)
    assert check.reported != check.counted_in_requests and check.difference == -3_200
    text = engine_check_text(check)
    assert "3,200 tokens" in text and "(200.0 blocks;" in text and "fewer)" in text
    assert "server.flags['dtype']" in text
