"""The runtime's platform words: how a Colab or Kaggle reader without a GPU gets one."""

from __future__ import annotations

from servelab.env import runtime
from servelab.hardware import Device

CPU = Device(kind="cpu", name="test CPU")


def test_a_runtime_without_gpu_is_told_how_to_get_one() -> None:
    assert "T4 GPU" in (runtime.no_gpu_note("Colab", CPU) or "")
    assert "GPU T4 x2" in (runtime.no_gpu_note("Kaggle", CPU) or "")
    assert runtime.no_gpu_note("local", CPU) is None
    p100 = Device(kind="cpu", name="test CPU", note="P100 is below what vLLM supports")
    assert runtime.no_gpu_note("Kaggle", p100) is None  # the device's own note says it already


def test_the_platform_is_read_from_the_runtimes_variables(monkeypatch) -> None:
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    monkeypatch.delenv("KAGGLE_KERNEL_RUN_TYPE", raising=False)
    assert runtime.detect_platform() == "local"
    monkeypatch.setenv("KAGGLE_KERNEL_RUN_TYPE", "Interactive")
    assert runtime.detect_platform() == "Kaggle"
    monkeypatch.setenv("COLAB_RELEASE_TAG", "release-colab")
    assert runtime.detect_platform() == "Colab"
