"""Chapter 08: llama.cpp's own ``llama-server``, built once from the source the binding vendors.

llama-cpp-python's sdist carries llama.cpp whole (``vendor/llama.cpp``, its ``tools/server`` and
``common`` included), so the server is compiled from the very source the binding is, with the
binding's instruction-set switches (``llama_build.instruction_set_args``): the two contenders
differ in how they serve, not in their kernels. Only the ``llama-server`` target is built, with
static libraries so the binary stands alone, and kept in ``<servelab cache>/bin`` beside a record
of its build; a later run whose record matches returns at once.

``python -m servelab.engines.llama_server_build`` builds it (env/build-llama-cpp.sh calls it).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tarfile
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from servelab.engines.llama_build import DISTRIBUTION, VERSION, instruction_set_args
from servelab.env import PipError, pip
from servelab.hardware import available_cores
from servelab.models import cache_dir

TARGET = "llama-server"
# Beyond the instruction sets: static libraries (a binary that needs no libllama beside it); no
# HTTPS, the server reads a local file (this llama.cpp has replaced LLAMA_CURL, now only a
# deprecation warning, with LLAMA_OPENSSL); no web UI fetched from Hugging Face while building;
# no tests or examples configured.
SERVER_PARTS = ("-DBUILD_SHARED_LIBS=OFF", "-DLLAMA_OPENSSL=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF",
                "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF")
BUILD_LOG_TAIL = 3000

# One first build with these switches, as build_server timed it (the sdist's download, its
# unpacking, CMake's configure and the compile of 192 files on two jobs; 705 s of user time): what
# set-up adds on a machine without the cached binary, beside the wheel's REFERENCE_BUILD_S.
REFERENCE_BUILD_S = 626.6
REFERENCE_CPU = "a 2-core Intel Xeon with AVX-512 BF16 (6 December 2026)"


class LlamaServerUnavailable(RuntimeError):
    """llama-server is not built here and could not be built."""


def bin_dir() -> Path:
    return cache_dir() / "bin"


def binary_path() -> Path:
    return bin_dir() / TARGET


def build_record_path() -> Path:
    return bin_dir() / f"{TARGET}.build.json"


def server_cmake_args(cpuinfo: str | None = None) -> list[str]:
    return [*instruction_set_args(cpuinfo), *SERVER_PARTS]


def build_record() -> dict[str, object] | None:
    """How the cached binary was built: ``version``, ``cmake_args``, ``seconds``, ``built``."""
    path = build_record_path()
    return json.loads(path.read_text()) if path.is_file() else None


def cached_server() -> Path | None:
    """The binary built earlier from this version with this machine's switches, else None."""
    record = build_record()
    if (not os.access(binary_path(), os.X_OK) or record is None
            or record.get("version") != VERSION
            or record.get("cmake_args") != shlex.join(server_cmake_args())):
        return None
    return binary_path()


def first_build() -> str:
    """How long the first build took on the machine the book was built on, in words."""
    return f"{REFERENCE_BUILD_S / 60:.1f} minutes on {REFERENCE_CPU}"


def missing_tools() -> list[str]:
    compiler = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    return [name for name, found in (("cmake", shutil.which("cmake")), ("a C++ compiler", compiler))
            if not found]


def _run(command: list[str], log: Path) -> None:
    """Run a build step, its output appended to ``log``; raise with the log's tail if it fails."""
    with log.open("a") as handle:
        code = subprocess.run(command, stdout=handle, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, check=False).returncode
    if code != 0:
        raise LlamaServerUnavailable(f"{shlex.join(command)} failed with code {code}; the end "
                                     f"of its output:\n{log.read_text()[-BUILD_LOG_TAIL:]}")


def _vendored_source(work: Path) -> Path:
    """Download the binding's sdist into ``work`` and unpack its ``vendor/llama.cpp`` there."""
    try:
        pip("download", "--no-deps", "--no-binary", DISTRIBUTION, "-d", str(work),
            f"{DISTRIBUTION}=={VERSION}")
    except PipError as error:
        raise LlamaServerUnavailable(f"{error}\nllama-server is built from {DISTRIBUTION} "
                                     f"{VERSION}'s sdist, which pip could not download.") from None
    top = f"llama_cpp_python-{VERSION}"
    prefix = f"{top}/vendor/llama.cpp/"
    with tarfile.open(work / f"{top}.tar.gz") as sdist:
        sdist.extractall(work, members=[m for m in sdist.getmembers()
                                        if m.name.startswith(prefix)], filter="data")
    return work / prefix


def build_server() -> Path:
    """Compile ``llama-server`` into ``binary_path()`` (minutes) and return its path."""
    if missing := missing_tools():
        raise LlamaServerUnavailable(f"llama-server is compiled from llama.cpp's source: it "
                                     f"needs {' and '.join(missing)}, which this machine lacks.")
    args = server_cmake_args()
    jobs = len(available_cores())
    print(f"Building {TARGET} from {DISTRIBUTION} {VERSION}'s llama.cpp with {shlex.join(args)} "
          f"(once; {first_build()})...", flush=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="servelab-llama-server-") as scratch:
        work = Path(scratch)
        source, build, log = _vendored_source(work), work / "build", work / "build.log"
        _run(["cmake", "-S", str(source), "-B", str(build), *args], log)
        _run(["cmake", "--build", str(build), "--target", TARGET, "-j", str(jobs)], log)
        built = build / "bin" / TARGET
        if not built.is_file():
            raise LlamaServerUnavailable(f"the build reported success but left no {built}")
        bin_dir().mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, binary_path())
    seconds = time.monotonic() - started
    build_record_path().write_text(json.dumps({
        "version": VERSION, "cmake_args": shlex.join(args), "seconds": round(seconds, 1),
        "cpus": jobs, "built": datetime.now(UTC).isoformat(timespec="seconds")}))
    print(f"Built {binary_path()} in {seconds:.0f} s.", flush=True)
    return binary_path()


def ensure_llama_server() -> Path:
    """The cached ``llama-server``, built first if there is none for this version and CPU."""
    return cached_server() or build_server()


if __name__ == "__main__":
    print(f"{TARGET} from {DISTRIBUTION} {VERSION} is at {ensure_llama_server()}.")
