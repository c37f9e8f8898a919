"""servelab.bench.bandwidth: the device probes, the dtype they compute in, when they run, and
the bytes of weights a decoding step reads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from servelab.bench import bandwidth
from servelab.bench.bandwidth import parameter_count, weight_bytes
from servelab.hardware import Device


def test_matmul_flops_is_a_positive_rate() -> None:
    assert bandwidth.matmul_flops("cpu", "float32", size=128, repeats=2) > 1e6


class _Unstarted:
    """What ``device_limits`` reads of a server: its device, flags, model and state."""

    def __init__(
        self, kind: str, dtype: str | None, model_path: str = "", running: bool = False
    ) -> None:
        self.device = Device(kind=kind, name="test")
        self.flags = {"dtype": dtype}
        self.model_path, self.running = model_path, running


def test_the_probes_compute_in_the_servers_dtype(tmp_path) -> None:
    (tmp_path / "config.json").write_text('{"torch_dtype": "float16"}')
    assert bandwidth.compute_dtype(_Unstarted("cuda", "half")) == "float16"
    assert bandwidth.compute_dtype(_Unstarted("cpu", "float32")) == "float32"
    assert bandwidth.compute_dtype(_Unstarted("cpu", None, str(tmp_path))) == "float16"
    assert bandwidth.compute_dtype(_Unstarted("cpu", None, str(tmp_path / "hub"))) == "bfloat16"
    limits = bandwidth.device_limits(_Unstarted("cpu", "float32"))
    assert limits.dtype == "float32" and limits.bandwidth_gb_s > 0.1 and limits.flops > 1e6
    assert limits.balance == pytest.approx(limits.flops / (limits.bandwidth_gb_s * 1e9))


def test_a_gpu_is_probed_before_its_server_starts() -> None:
    with pytest.raises(RuntimeError, match="before starting the server"):
        bandwidth.device_limits(_Unstarted("cuda", "half", running=True))


@pytest.fixture()
def model(tmp_path: Path) -> Path:
    save_file(
        {"a": np.zeros((3, 4), np.float16), "b": np.zeros(5, np.float16)},
        str(tmp_path / "model-1.safetensors"),
    )
    save_file({"c": np.zeros((2, 2, 2), np.float16)}, str(tmp_path / "model-2.safetensors"))
    return tmp_path


def test_parameters_are_counted_from_every_file(model: Path) -> None:
    assert parameter_count(model) == 12 + 5 + 8


def test_the_stored_size_is_used_when_the_dtype_is_the_models_own(model: Path) -> None:
    stored = 25 * 2  # the tensors' bytes, not the files' headers
    assert weight_bytes(model) == stored
    assert weight_bytes(model, "auto") == stored


def test_a_tied_output_projection_is_read_once(model: Path) -> None:
    save_file(
        {
            "model.embed_tokens.weight": np.zeros((10, 4), np.float16),
            "lm_head.weight": np.zeros((10, 4), np.float16),
        },
        str(model / "model-3.safetensors"),
    )
    assert parameter_count(model) == 25 + 80
    (model / "config.json").write_text('{"tie_word_embeddings": true}')
    assert parameter_count(model) == 25 + 40
    assert weight_bytes(model) == (25 + 40) * 2


@pytest.mark.parametrize(("dtype", "size"), [("float32", 4), ("half", 2), ("bfloat16", 2)])
def test_a_served_dtype_sets_the_bytes_per_parameter(model: Path, dtype: str, size: int) -> None:
    assert weight_bytes(model, dtype) == 25 * size


def test_unknown_dtype_and_missing_weights_say_so(model: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown dtype 'int3'"):
        weight_bytes(model, "int3")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="no \\*.safetensors files"):
        weight_bytes(empty, "float32")
