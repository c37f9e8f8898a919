"""servelab.lessons.when_not_to.gguf_f16: a packed GGUF written again at 16 bits, and its counts."""

from __future__ import annotations

import numpy as np
import pytest


def test_f16_gguf_dequantizes_packed_tensors_and_keeps_metadata(tmp_path, monkeypatch):
    import gguf

    from servelab.lessons.when_not_to import gguf_f16

    source = tmp_path / "tiny.Q8_0.gguf"
    weights = np.linspace(-1, 1, 4 * 64, dtype=np.float32).reshape(4, 64)
    norm = np.ones(64, dtype=np.float32)
    writer = gguf.GGUFWriter(source, arch="llama")
    writer.add_block_count(1)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0)
    packed = gguf.quants.quantize(weights, gguf.GGMLQuantizationType.Q8_0)
    writer.add_tensor("w", packed, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    writer.add_tensor("norm", norm)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()

    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path / "cache"))
    target = gguf_f16.f16_gguf_path(source)
    written = target.stat().st_mtime_ns
    assert gguf_f16.f16_gguf_path(source) == target  # reused, not written again
    assert target.stat().st_mtime_ns == written
    assert target.parent == tmp_path / "cache"
    reader = gguf.GGUFReader(target)
    types = {t.name: t.tensor_type for t in reader.tensors}
    assert types == {"w": gguf.GGMLQuantizationType.F16, "norm": gguf.GGMLQuantizationType.F32}
    (w,) = [t for t in reader.tensors if t.name == "w"]
    assert np.allclose(np.asarray(w.data, dtype=np.float32), weights, atol=0.01)
    assert reader.fields["llama.block_count"].contents() == 1
    assert reader.fields["general.file_type"].contents() == gguf.LlamaFileType.MOSTLY_F16

    assert gguf_f16.parameter_count(target) == 4 * 64 + 64
    assert gguf_f16.bits_per_weight(target) == pytest.approx(target.stat().st_size * 8 / 320)
    assert gguf_f16.tensor_types(source) == {"Q8_0": 1, "F32": 1}
