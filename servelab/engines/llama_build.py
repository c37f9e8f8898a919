"""Chapter 08: llama-cpp-python, built once from its PyPI sdist and cached as a wheel.

PyPI has no prebuilt CPU wheel of llama-cpp-python, so pip compiles llama.cpp, only the parts the
binding loads (``first_build()``: minutes on two cores). The default build targets the build
machine's own instruction set (GGML_NATIVE); on this book's reference CPU that build crashed with
a general-protection fault in libggml-cpu on the first completion, so the build turns each
instruction set on or off explicitly instead, from the flags /proc/cpuinfo lists (with
GGML_NATIVE off, ggml would otherwise enable AVX, AVX2, FMA and F16C whether or not the processor
has them, and a missing one dies with an illegal instruction). The wheel is kept in
``<servelab cache>/wheels`` with a small record of the build, and reinstalled from there on later
runs.

``python -m servelab.engines.llama_build`` builds and installs it (env/build-llama-cpp.sh calls it).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import shlex
import time
from datetime import UTC, datetime
from pathlib import Path

from servelab.env import PipError, installed_kind, pin_args, pip
from servelab.hardware import cpu_flags
from servelab.models import cache_dir

VERSION = "0.3.36"
DISTRIBUTION = "llama-cpp-python"
# Modules the server needs beyond the core package (its `server` extra).
SERVER_MODULES = (
    "uvicorn",
    "fastapi",
    "pydantic_settings",
    "sse_starlette",
    "starlette_context",
    "yaml",
)
# ggml's CMake switch for each instruction set, and the /proc/cpuinfo flags it needs.
# GGML_AVX512 compiles with -mavx512f -mavx512cd -mavx512vl -mavx512dq -mavx512bw.
GGML_INSTRUCTION_SETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("GGML_SSE42", ("sse4_2",)),
    ("GGML_AVX", ("avx",)),
    ("GGML_AVX2", ("avx2",)),
    ("GGML_BMI2", ("bmi2",)),
    ("GGML_FMA", ("fma",)),
    ("GGML_F16C", ("f16c",)),
    ("GGML_AVX_VNNI", ("avx_vnni",)),
    ("GGML_AVX512", ("avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw")),
    ("GGML_AVX512_VBMI", ("avx512f", "avx512vbmi")),
    ("GGML_AVX512_VNNI", ("avx512f", "avx512_vnni")),
    ("GGML_AVX512_BF16", ("avx512f", "avx512_bf16")),
)


# One first build with these cmake_args, as build_wheel timed it (the sdist's download, the build
# environment, the compile): what a runtime without the cached wheel, such as a fresh Colab one,
# can expect. Colab's free runtime has two vCPUs as well; a slower CPU takes longer.
REFERENCE_BUILD_S = 191.1
REFERENCE_CPU = "a 2-core Intel Xeon with AVX-512 BF16 (2 December 2026)"


class LlamaCppUnavailable(RuntimeError):
    """llama-cpp-python is not installed and could not be built or installed here."""


def wheel_dir() -> Path:
    return cache_dir() / "wheels"


def build_record_path() -> Path:
    return wheel_dir() / f"llama_cpp_python-{VERSION}.build.json"


# What chapter 08 does not use; the Python binding loads only libllama and libggml. LLAVA_BUILD:
# llama-cpp-python's multimodal library (mtmd, for image models), on by default. llama.cpp's
# common library (argument parsing, chat-template parsers, downloads over HTTPS; 53 of the 127
# files compiled): llama-cpp-python forces LLAMA_BUILD_COMMON on with a FORCE'd cache entry,
# which no -D overrides, so a file CMake reads at the end of llama.cpp's project() sets a normal
# variable of that name, which shadows the entry. llama.cpp's tools, examples, tests and server
# are already off when it is built as a subproject.
UNUSED_PARTS = ("-DLLAVA_BUILD=OFF",)
NO_COMMON = "set(LLAMA_BUILD_COMMON OFF)\n"


def no_common_path() -> Path:
    return wheel_dir() / "llama-cpp-no-common.cmake"


def instruction_set_args(cpuinfo: str | None = None) -> list[str]:
    """GGML switches for this CPU: no native tuning, each instruction set ON only if listed
    (the binding's wheel and ``llama-server`` are built with the same ones)."""
    flags = cpu_flags(cpuinfo)
    return [
        "-DGGML_NATIVE=OFF",
        *(
            f"-D{option}={'ON' if set(needs) <= flags else 'OFF'}"
            for option, needs in GGML_INSTRUCTION_SETS
        ),
    ]


def cmake_args(cpuinfo: str | None = None) -> str:
    """The wheel's CMAKE_ARGS: ``instruction_set_args`` and nothing built that the binding does
    not load (``build_wheel`` writes ``no_common_path()``)."""
    no_common = shlex.quote(f"-DCMAKE_PROJECT_llama.cpp_INCLUDE={no_common_path()}")
    return " ".join([*instruction_set_args(cpuinfo), *UNUSED_PARTS, no_common])


def installed_version() -> str | None:
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None


def missing_server_modules() -> list[str]:
    return [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]


def ready() -> bool:
    """llama-cpp-python of this book's version and its server's modules are installed."""
    return installed_version() == VERSION and not missing_server_modules()


def cached_wheel() -> Path | None:
    """The wheel built earlier with this machine's ``cmake_args`` (a wheel built for other
    instruction sets, or with other parts, is not reused)."""
    wheels = sorted(wheel_dir().glob(f"llama_cpp_python-{VERSION}-*.whl"))
    record = build_record()
    if not wheels or record is None or record.get("cmake_args") != cmake_args():
        return None
    return wheels[-1]


def build_record() -> dict[str, object] | None:
    """How the cached wheel was built: ``seconds``, ``cmake_args``, ``built`` (ISO date)."""
    path = build_record_path()
    return json.loads(path.read_text()) if path.is_file() else None


def first_build() -> str:
    """How long the first build took on the machine the book was built on, in words."""
    return f"{REFERENCE_BUILD_S / 60:.1f} minutes on {REFERENCE_CPU}"


def build_wheel() -> Path:
    """Compile the sdist into a wheel in ``wheel_dir()`` (minutes) and return its path."""
    wheel_dir().mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CMAKE_ARGS": cmake_args()}
    started = time.monotonic()
    print(
        f"Building {DISTRIBUTION} {VERSION} from source with CMAKE_ARGS={env['CMAKE_ARGS']!r} "
        f"(once; {first_build()})...",
        flush=True,
    )
    for stale in wheel_dir().glob(f"llama_cpp_python-{VERSION}-*.whl"):
        stale.unlink()
    no_common_path().write_text(NO_COMMON)
    # --no-cache-dir: pip's wheel cache is keyed by the sdist alone, not by CMAKE_ARGS, so it
    # would hand back a wheel built earlier with other flags (in a second, as if compiled).
    pip(
        "wheel",
        "--no-deps",
        "--no-cache-dir",
        "--no-binary",
        DISTRIBUTION,
        "-w",
        str(wheel_dir()),
        f"{DISTRIBUTION}=={VERSION}",
        env=env,
    )
    wheels = sorted(wheel_dir().glob(f"llama_cpp_python-{VERSION}-*.whl"))
    if not wheels:
        raise LlamaCppUnavailable(f"pip reported success but left no wheel in {wheel_dir()}")
    wheel = wheels[-1]
    seconds = time.monotonic() - started
    build_record_path().write_text(
        json.dumps(
            {
                "seconds": round(seconds, 1),
                "cmake_args": env["CMAKE_ARGS"],
                "cpus": os.cpu_count(),
                "built": datetime.now(UTC).isoformat(timespec="seconds"),
                "wheel": wheel.name,
            }
        )
    )
    print(f"Built {wheel.name} in {seconds:.0f} s.", flush=True)
    return wheel


def install_args() -> list[str]:
    """pip arguments that install the cached wheel with its server's dependencies; beside the
    GPU engine under its pins, so that they move nothing vLLM imports."""
    return [
        "install",
        "-q",
        *pin_args(installed_kind()),
        "--only-binary",
        DISTRIBUTION,
        "--find-links",
        str(wheel_dir()),
        f"{DISTRIBUTION}[server]=={VERSION}",
    ]


def ensure_llama_cpp() -> str:
    """Install llama-cpp-python with its server's dependencies unless they are there (building
    the wheel first if none is cached); returns the installed version."""
    if ready():
        return VERSION
    try:
        wheel = cached_wheel() or build_wheel()
        pip(*install_args())
    except PipError as error:
        raise LlamaCppUnavailable(
            f"{error}\n{DISTRIBUTION} is compiled from source: it needs a C++ compiler and cmake."
        ) from None
    importlib.invalidate_caches()
    version, missing = installed_version(), missing_server_modules()
    if version != VERSION or missing:
        raise LlamaCppUnavailable(
            f"installing {wheel.name} left {DISTRIBUTION} {version or 'missing'} and the server "
            f"modules {missing or 'all present'}"
        )
    return version


if __name__ == "__main__":
    print(f"{DISTRIBUTION} {ensure_llama_cpp()} is installed.")
