"""servelab.lessons.paging.kv: KV bytes per token, blocks, and how many requests a cache fits."""

from __future__ import annotations

import json

import pytest

from servelab.lessons.paging.kv import RequestFit, blocks_for, kv_shape, usable_blocks

SMOL = {
    "num_hidden_layers": 30,
    "num_attention_heads": 9,
    "num_key_value_heads": 3,
    "hidden_size": 576,
    "dtype": "bfloat16",
}


@pytest.fixture
def model_dir(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(SMOL))
    return str(tmp_path)


def test_kv_bytes_follow_the_served_dtype(model_dir):
    # 2 (key and value) x 30 layers x 3 KV heads x 64 dims x 2 bytes
    assert kv_shape(model_dir).bytes_per_token == 23_040
    assert kv_shape(model_dir, "auto").bytes_per_token == 23_040
    assert kv_shape(model_dir, "half").bytes_per_token == 23_040
    assert kv_shape(model_dir, "float32").bytes_per_token == 46_080
    assert kv_shape(model_dir, None).dtype == "bfloat16"
    with pytest.raises(ValueError, match="unknown KV cache dtype"):
        kv_shape(model_dir, "int3")


def test_kv_shape_converts_tokens_and_gib(model_dir):
    shape = kv_shape(model_dir)
    assert shape.tokens_in(23_040 * 10 + 5) == 10
    assert shape.gib_for(2**30 // 23_040) == pytest.approx(1.0, rel=1e-4)
    assert "23,040 bytes" in shape.formula()


def test_usable_blocks_leave_out_the_held_back_block():
    assert usable_blocks(1280, 128) == 9
    assert usable_blocks(100, 128) == 0


def test_blocks_round_up():
    assert blocks_for(300, 128) == 3
    assert blocks_for(256, 128) == 2
    assert blocks_for(0, 16) == 0
    with pytest.raises(ValueError):
        blocks_for(10, 0)


def test_a_cache_in_requests_reserved_and_paged() -> None:
    fit = RequestFit.of(14_336, 128, 8192, 300)
    assert (fit.blocks, fit.reserved, fit.paged, fit.request_held) == (111, 1, 37, 384)
