"""Which model a device serves (servelab.models), and that a page's runtime line names the same
one the server loads."""

from __future__ import annotations

import pytest

from servelab import env
from servelab.hardware import Device
from servelab.models import GPU_MODELS, OFFLINE_MODEL_NAME, gpu_model_for, model_name

T4 = Device(kind="cuda", name="Tesla T4", memory_gib=15.0, compute_capability=(7, 5))
SMALL_GPU = Device(kind="cuda", name="a small card", memory_gib=8.0, compute_capability=(7, 5))
CPU = Device(kind="cpu", name="test cpu")


@pytest.mark.parametrize(
    ("device", "name"),
    [
        (T4, "Qwen/Qwen3-0.6B"),
        (SMALL_GPU, GPU_MODELS[-1][1]),
        (CPU, OFFLINE_MODEL_NAME),
    ],
)
def test_each_device_serves_the_model_its_memory_allows(monkeypatch, device, name):
    monkeypatch.delenv("SERVELAB_MODEL", raising=False)
    assert model_name(device.kind, device.memory_gib) == name
    assert env.describe(device).model == name


def test_a_forced_model_wins_on_every_device(monkeypatch):
    monkeypatch.setenv("SERVELAB_MODEL", "my/model")
    assert {model_name(device.kind, device.memory_gib) for device in (T4, CPU)} == {"my/model"}
    assert env.describe(CPU).model == "my/model"


def test_the_gpu_models_are_listed_largest_card_first():
    minimums = [minimum for minimum, _ in GPU_MODELS]
    assert minimums == sorted(minimums, reverse=True) and minimums[-1] == 0.0
    assert gpu_model_for(0.5) == GPU_MODELS[-1][1]
