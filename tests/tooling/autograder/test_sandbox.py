"""The sandbox grading kernels run in (autograder/sandbox.py), attacked directly.

The autograder never sends student code to a kernel (answers are parsed, not run), so these
tests play the part of code that got there anyway: it must find no network, no root, none of
the course's or the grader's files, limits on memory, processes and output, and nothing of it
may outlive the run. Two workers starting many sandboxed kernels at once must not collide.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest

from autograder import sandbox
from course.paths import COURSE_ROOT, REPO_ROOT

SLEEPER = "import time; time.sleep(317)"


def _text(outputs) -> str:
    return "".join(o.get("text", "") or f"{o.get('ename')}: {o.get('evalue')}" for o in outputs)


def _sleepers() -> list[psutil.Process]:
    return [
        p for p in psutil.process_iter(["cmdline"]) if SLEEPER in " ".join(p.info["cmdline"] or [])
    ]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    secret = tmp_path_factory.mktemp("grader") / "gradebook.db"
    secret.write_text("the grader's secret")
    guarded = [
        str(secret),
        str(COURSE_ROOT),
        str(REPO_ROOT / "autograder"),
        str(Path.home() / ".ssh"),
        "/etc/passwd",
    ]
    cells = [
        "import os; print('uid', os.getuid(), os.geteuid())",
        (
            "import socket\ns = socket.socket(); s.settimeout(3)\ntry:\n"
            "    s.connect(('1.1.1.1', 53)); print('network: reached')\n"
            "except OSError as error:\n    print('network: blocked', error.errno)\n"
            "print('interfaces', sorted(n for _, n in socket.if_nameindex()))"
        ),
        (
            f"import os\nfor p in {guarded!r}:\n"
            "    print('visible' if os.path.exists(p) else 'hidden', p)"
        ),
        (
            "import sys\ntry:\n    open(sys.prefix + '/planted.py', 'w')\n"
            "    print('venv: written')\nexcept OSError:\n    print('venv: read-only')"
        ),
        (
            f"import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', {SLEEPER!r}], "
            "start_new_session=True)\nprint('detached')"
        ),
        "try:\n    x = bytearray(2 << 30)\n    print('memory: got 2 GiB')\nexcept MemoryError:\n"
        "    print('memory: refused')",
        "import resource; print('nproc', resource.getrlimit(resource.RLIMIT_NPROC)[0])",
        "print('y' * 50_000_000)",
        "for i in range(100_000):\n    print('line', i)",
    ]
    result = sandbox.execute(cells, timeout=20)
    return {
        "result": result,
        "secret": secret,
        "texts": [_text(outputs) for outputs in result.outputs],
    }


@pytest.mark.tooling  # kernels in the bubblewrap sandbox
def test_the_kernel_is_not_root_and_has_no_network(hostile):
    assert hostile["result"].status == "ok", hostile["result"]
    uid, blocked, interfaces = hostile["texts"][0], *hostile["texts"][1].splitlines()
    assert uid.split()[1:] == [str(sandbox.SANDBOX_ID)] * 2
    assert blocked.startswith("network: blocked")
    assert interfaces == "interfaces ['lo']"


@pytest.mark.tooling  # kernels in the bubblewrap sandbox
def test_the_kernel_sees_none_of_the_grader_files(hostile):
    lines = hostile["texts"][2].splitlines()
    assert all(line.startswith("hidden") for line in lines), lines
    assert hostile["texts"][3].strip() == "venv: read-only"
    assert not (Path(sys.prefix) / "planted.py").exists()
    assert hostile["secret"].read_text() == "the grader's secret"


@pytest.mark.tooling  # kernels in the bubblewrap sandbox
def test_limits_hold_and_nothing_outlives_the_run(hostile):
    assert hostile["texts"][4].strip() == "detached"
    assert _sleepers() == []
    assert hostile["texts"][5].strip() == "memory: refused"
    assert hostile["texts"][6].strip() == f"nproc {sandbox.Limits().processes}"
    for text in hostile["texts"][7:9]:
        assert "output cut" in text
        assert len(text.encode()) < 2 * sandbox.Limits().output_bytes


@pytest.mark.tooling  # kernels in the bubblewrap sandbox
def test_a_kernel_that_kills_its_parent_is_an_error_not_a_dead_grader():
    result = sandbox.execute(
        ["import os, signal\nos.kill(os.getppid(), signal.SIGKILL)", "print('after')"], timeout=10
    )
    assert result.status == "error"
    assert os.getpid() and psutil.Process().is_running()


@pytest.mark.tooling  # kernels in the bubblewrap sandbox
def test_an_endless_cell_times_out_even_when_it_ignores_interrupts():
    stubborn = (
        "while True:\n    try:\n        while True:\n            pass\n"
        "    except KeyboardInterrupt:\n        pass"
    )
    result = sandbox.execute([stubborn, "print('never')"], timeout=2)
    assert result.status == "timeout"


@pytest.mark.tooling  # kernels in the bubblewrap sandbox
def test_two_workers_start_many_kernels_at_once():
    """Each sandbox has its own network namespace, so kernel ports cannot collide."""

    def one(n: int) -> tuple[str, str]:
        result = sandbox.execute([f"print({n} * 2)"], timeout=20)
        return result.status, _text(result.outputs[0]) if result.outputs else result.detail

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(one, range(8)))
    assert results == [("ok", f"{n * 2}\n") for n in range(8)]


@pytest.mark.tooling  # kernels in the bubblewrap sandbox
def test_a_sandbox_cannot_make_a_user_namespace_of_its_own():
    """bwrap runs with --disable-userns: without it, `unshare -U` succeeds inside the sandbox
    (the kernel's own user namespace would hand it every capability there)."""
    cells = [
        (
            "import subprocess\ndone = subprocess.run(['unshare', '-U', 'true'], "
            "capture_output=True)\nprint('unshare -U:', 'refused' if done.returncode else 'made')"
        ),
        (
            "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
            "print('unshare(CLONE_NEWUSER):', 'refused' if libc.unshare(0x10000000) else 'made')"
        ),
    ]
    result = sandbox.execute(cells, timeout=20)
    assert result.status == "ok", result
    assert [_text(outputs).strip() for outputs in result.outputs] == [
        "unshare -U: refused",
        "unshare(CLONE_NEWUSER): refused",
    ]
