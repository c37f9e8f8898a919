"""Server pieces that need no engine: flags, capacity parsing, ports, device choice."""

import pytest

from servelab import hardware


def _fake_nvidia_smi(folder, script: str) -> str:
    """A PATH on which ``nvidia-smi`` is ``script`` (a shell body)."""
    tool = folder / "nvidia-smi"
    tool.write_text(f"#!/bin/sh\n{script}\n")
    tool.chmod(0o755)
    return str(folder)


@pytest.mark.tooling  # runs a fake nvidia-smi
def test_the_memory_cuda_reports_leaves_the_drivers_reserve_out(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", _fake_nvidia_smi(tmp_path, "echo 264; echo 264"))
    assert hardware.query_reserved_gib() == [264 / 1024] * 2
    monkeypatch.delenv("SERVELAB_DEVICE", raising=False)
    monkeypatch.setattr(hardware, "query_gpus", lambda: [("Tesla T4", (7, 5), 15.0)])
    assert hardware.detect_device().cuda_memory_gib == pytest.approx(15.0 - 264 / 1024)
    # An older driver without the field: nvidia-smi fails, and nvidia-smi's total is used.
    monkeypatch.setenv("PATH", _fake_nvidia_smi(tmp_path, 'echo "not a valid field" >&2; exit 2'))
    assert hardware.query_reserved_gib() == []
    assert hardware.detect_device().cuda_memory_gib == 15.0
