"""pip and uv as the bootstrap runs them: quiet pip, uv aimed at this interpreter without the
runtime's own uv settings, and pip when uv fails. The commands are checked as built."""

from __future__ import annotations

import sys

import pytest

from servelab.env import installers, pins


def test_pip_is_this_interpreters() -> None:
    assert installers.pip_command("install", "x")[:3] == [sys.executable, "-m", "pip"]


def test_pip_noise_is_dropped() -> None:
    output = (
        "WARNING: Location 'file:///opt/pypi/simple/torch/' is ignored: it is neither a "
        "file nor a directory.\nERROR: No matching distribution found for nothing-here\n"
    )
    assert installers.readable(output) == "ERROR: No matching distribution found for nothing-here"


def test_a_setup_error_shows_its_message_instead_of_a_traceback() -> None:
    error = installers.SetupError("no index")
    assert error._render_traceback_() == ["SetupError: no index"]


def test_uv_installs_into_this_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(installers.shutil, "which", lambda name: None)
    assert installers.uv_command("install", "-q", "x") is None
    monkeypatch.setattr(installers.shutil, "which", lambda name: f"/usr/bin/{name}")
    command = installers.uv_command("install", "-q", "-c", "pins.txt", "vllm==0.11.2")
    assert command is not None
    assert command[:3] == ["/usr/bin/uv", "pip", "install"]
    assert command[3:5] == ["--python", sys.executable]
    assert command[-4:] == ["-q", "-c", "pins.txt", "vllm==0.11.2"]
    monkeypatch.setattr(installers.sys, "base_prefix", sys.prefix)  # not a venv: a system Python
    system = installers.uv_command("install", "x")
    assert system is not None and "--system" in system


def test_the_gpu_engine_goes_through_uv_and_falls_back_to_pip(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ran: list[list[str]] = []

    def installer(command: list[str], env_: dict[str, str] | None = None) -> None:
        ran.append(command)
        if command[0] == "/bin/uv" and fail_uv:
            raise installers.PipError(command, "error: network unreachable")

    monkeypatch.setattr(installers.shutil, "which", lambda name: f"/bin/{name}")
    monkeypatch.setattr(installers, "run_installer", installer)
    args = pins.engine_install_args("cuda")
    fail_uv = False
    assert installers.install_gpu_engine(args) == "uv" and len(ran) == 1
    fail_uv = True
    assert installers.install_gpu_engine(args) == "pip"
    assert ran[-1] == installers.pip_command(*args)
    assert "uv could not install the engine (error: network unreachable)" in capsys.readouterr().out


def test_uv_runs_without_the_runtimes_own_uv_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UV_CONSTRAINT", "/backend-container/containers/requirements.constraints")
    monkeypatch.setenv("UV_SYSTEM_PYTHON", "true")
    monkeypatch.setenv("PATH", "/usr/bin")
    assert not any(name.startswith("UV_") for name in installers.uv_env())
    assert installers.uv_env()["PATH"] == "/usr/bin"
