"""Chapter 08: the offline model's GGUF file at 16 bits, so llama.cpp can be timed without
quantisation.

The book's GGUF file stores most weights as Q4_1 (4-bit blocks with a scale and a minimum each).
``f16_gguf_path()`` writes the same model with every quantised tensor dequantized to float16 (the
norms stay float32), with the file's metadata copied and its file type set to F16, using the
``gguf`` library that llama.cpp publishes. The file is written once into the servelab cache,
beside the converted bf16 folder, and reused while the source file is unchanged.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import gguf
import numpy as np

from servelab.models import cache_dir, gguf_path

MARKER_SUFFIX = ".source.json"
# Tensor types written as they are; every other type is dequantized to float16.
KEPT_TYPES = {gguf.GGMLQuantizationType.F32, gguf.GGMLQuantizationType.F16}


def parameter_count(path: str | Path) -> int:
    """How many weights the GGUF file holds, summed over its tensors."""
    return sum(int(tensor.n_elements) for tensor in gguf.GGUFReader(path).tensors)


def bits_per_weight(path: str | Path) -> float:
    """The file's size in bits over its weight count: what each weight costs to store and read,
    block scales and the small float32 tensors included."""
    return Path(path).stat().st_size * 8 / parameter_count(path)


def tensor_types(path: str | Path) -> dict[str, int]:
    """How many tensors of each storage type the file holds, e.g. ``{"Q4_1": 210, ...}``."""
    counts: dict[str, int] = {}
    for tensor in gguf.GGUFReader(path).tensors:
        counts[tensor.tensor_type.name] = counts.get(tensor.tensor_type.name, 0) + 1
    return counts


def _source_stamp(source: Path) -> dict[str, object]:
    stat = source.stat()
    return {"source": source.name, "bytes": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def write_f16(source: str | Path, target: str | Path) -> Path:
    """Write ``source`` to ``target`` with its quantised tensors dequantized to float16."""
    reader = gguf.GGUFReader(source)
    architecture = reader.fields[gguf.Keys.General.ARCHITECTURE].contents()
    writer = gguf.GGUFWriter(target, arch=architecture)
    for field in reader.fields.values():
        if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith("GGUF."):
            continue  # the writer adds these itself
        if field.name == gguf.Keys.General.FILE_TYPE:
            writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
            continue
        kind = field.types[0]
        sub_type = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, field.contents(), kind, sub_type=sub_type)
    for tensor in reader.tensors:
        if tensor.tensor_type in KEPT_TYPES:
            writer.add_tensor(tensor.name, np.asarray(tensor.data))
        else:
            values = gguf.quants.dequantize(tensor.data, tensor.tensor_type)
            writer.add_tensor(tensor.name, values.astype(np.float16))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return Path(target)


def f16_gguf_path(source: str | Path | None = None) -> Path:
    """The float16 GGUF of ``source`` (default: the book's offline model), written on first use
    into the servelab cache and reused while the source is unchanged."""
    source = Path(source or gguf_path())
    target = cache_dir() / f"{source.name.split('.')[0]}.F16.gguf"
    marker = target.with_name(target.name + MARKER_SUFFIX)
    stamp = _source_stamp(source)
    if target.is_file() and marker.is_file() and json.loads(marker.read_text()) == stamp:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        write_f16(source, partial)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    marker.write_text(json.dumps(stamp))
    return target
