"""Issue 27, part E: a real one-node Slurm cluster grades a class as a job array.

The fixture starts munged, slurmctld and slurmd (Debian's munge and slurm-wlm, installed by
env/setup-system.sh) as root on this machine: a temporary folder for the config, state, spool
and logs, loopback addresses and fixed, unusual ports. The job array runs the shipped script,
autograder/cluster/grade-array.sbatch; merge must give the unsharded grades.csv and feedback
byte for byte, also after one shard was killed with SIGKILL and submitted again. A cluster that
cannot start fails the test with the daemons' own words; it never skips.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from autograder import synthetic
from autograder.__main__ import main as autograder_main
from autograder.grade import grade
from autograder.shard import MANIFEST
from course.paths import REPO_ROOT

# Tooling: a Slurm cluster (munged, slurmctld, slurmd) grading with nbgrader and bubblewrap.
pytestmark = [
    pytest.mark.tooling,
    pytest.mark.filterwarnings("ignore::nbformat.warnings.MissingIDFieldWarning"),
]

SCRIPT = REPO_ROOT / "autograder" / "cluster" / "grade-array.sbatch"
CTLD_PORT, SLURMD_PORT = 46817, 46818
CHAPTERS = ("00-serving-many-users", "02-continuous-batching")
TIMEOUT = 10
DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel")
START_SECONDS = 60
JOB_SECONDS = 600


def _conf(root: Path, node: str) -> str:
    lines = {
        "ClusterName": "autogradertest",
        "SlurmctldHost": f"{node}(127.0.0.1)",
        "SlurmctldPort": CTLD_PORT,
        "SlurmdPort": SLURMD_PORT,
        "SlurmUser": "root",
        "SlurmdUser": "root",
        "AuthType": "auth/munge",
        "CredType": "cred/munge",
        "AuthInfo": f"socket={root / 'munge.socket'}",
        "StateSaveLocation": root / "state",
        "SlurmdSpoolDir": root / "spool",
        "SlurmctldPidFile": root / "slurmctld.pid",
        "SlurmdPidFile": root / "slurmd.pid",
        "SlurmctldLogFile": root / "slurmctld.log",
        "SlurmdLogFile": root / "slurmd.log",
        "ProctrackType": "proctrack/linuxproc",
        "TaskPlugin": "task/none",
        "JobAcctGatherType": "jobacct_gather/none",
        "AccountingStorageType": "accounting_storage/none",
        "JobCompType": "jobcomp/none",
        "MpiDefault": "none",
        "SelectType": "select/cons_tres",
        "SelectTypeParameters": "CR_CPU",
        "SchedulerType": "sched/builtin",
        "ReturnToService": 2,
        "SlurmdParameters": "config_overrides",
        # slurmd and slurmctld bind to their 127.0.0.1 addresses, not to every address
        "CommunicationParameters": "NoInAddrAny,NoCtldInAddrAny",
    }
    text = "".join(f"{key}={value}\n" for key, value in lines.items())
    return text + (
        f"NodeName={node} NodeAddr=127.0.0.1 CPUs={os.cpu_count() or 1} "
        "State=UNKNOWN\nPartitionName=grading Nodes=ALL Default=YES "
        "MaxTime=INFINITE State=UP\n"
    )


def _logs(root: Path) -> str:
    return "\n".join(
        f"--- {p.name}:\n{p.read_text(errors='replace')[-1500:]}"
        for p in sorted(root.glob("*.log"))
    )


def _started(processes: list[subprocess.Popen], root: Path, env: dict) -> str:
    """'' once the node is idle, else why it is not (a daemon died, or it never came up)."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        dead = [p.args[0] for p in processes if p.poll() is not None]
        if dead:
            return f"{', '.join(dead)} exited at start"
        state = subprocess.run(
            ["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, env=env, check=False
        )
        if state.stdout.strip() == "idle":
            return ""
        time.sleep(0.5)
    return f"the node was not idle after {START_SECONDS} s (sinfo: {state.stdout or state.stderr})"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[dict[str, str]]:
    """A one-node Slurm cluster; the environment its commands need. Stopped however it ends."""
    missing = [name for name in DAEMONS if not shutil.which(name)]
    if missing:
        pytest.fail(
            f"{', '.join(missing)} not installed: env/setup-system.sh installs Debian's "
            "slurm-wlm and munge (as root)"
        )
    if os.geteuid() != 0:
        pytest.fail("the one-node Slurm cluster runs as root (as CI runs the tests)")
    root = tmp_path_factory.mktemp("slurm")
    for folder in ("state", "spool"):
        (root / folder).mkdir()
    key = root / "munge.key"
    key.write_bytes(secrets.token_bytes(1024))
    key.chmod(0o400)
    node = socket.gethostname().split(".")[0]
    (root / "slurm.conf").write_text(_conf(root, node))
    env = {**os.environ, "SLURM_CONF": str(root / "slurm.conf")}
    commands = [
        [
            "munged",
            "--foreground",
            "--force",
            f"--socket={root / 'munge.socket'}",
            f"--key-file={key}",
            f"--pid-file={root / 'munged.pid'}",
            f"--log-file={root / 'munged.log'}",
            f"--seed-file={root / 'munge.seed'}",
        ],
        ["slurmctld", "-D", "-i"],
        ["slurmd", "-D"],
    ]
    processes: list[subprocess.Popen] = []
    try:
        for command in commands:
            with (root / f"{command[0]}.out").open("wb") as out:
                processes.append(subprocess.Popen(command, env=env, stdout=out, stderr=out))
            if command[0] == "munged":
                time.sleep(0.5)
        why = _started(processes, root, env)
        if why:
            pytest.fail(
                f"the one-node Slurm cluster did not start: {why}\n{_logs(root)}"
                + "".join(
                    f"\n--- {p.name}:\n{p.read_text(errors='replace')[-800:]}"
                    for p in sorted(root.glob("*.out"))
                )
            )
        listening = {
            (c.laddr.ip, c.laddr.port)
            for p in processes
            for c in psutil.Process(p.pid).net_connections("inet")
            if c.status == psutil.CONN_LISTEN
        }
        assert listening == {("127.0.0.1", CTLD_PORT), ("127.0.0.1", SLURMD_PORT)}, listening
        yield env
    finally:
        subprocess.run(
            ["scancel", "--full", "--user=root"], env=env, capture_output=True, check=False
        )
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    root = tmp_path_factory.mktemp("slurmclass")
    course = synthetic.write_course(root / "course", CHAPTERS)
    inbox = root / "inbox"
    synthetic.write_mixed_class(inbox, synthetic.editions(course, root / "editions"))
    grade([inbox], root / "whole", course, timeout=TIMEOUT)
    return {"root": root, "course": course, "inbox": inbox, "whole": root / "whole"}


def _submit(cluster, klass, out: Path, tasks: str, *, wait: bool) -> str:
    """Submit the shipped array script for `tasks` of 2 shards; the job id."""
    command = [
        "sbatch",
        "--parsable",
        f"--array={tasks}",
        "--cpus-per-task=1",
        f"--chdir={REPO_ROOT}",
        f"--output={klass['root']}/slurm-%A_%a.out",
        *(["--wait"] if wait else []),
        str(SCRIPT),
        "2",
        str(out),
        str(klass["inbox"]),
        "--course",
        str(klass["course"]),
        "--timeout",
        str(TIMEOUT),
    ]
    env = {**cluster, "AUTOGRADER_PYTHON": sys.executable}
    done = subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=JOB_SECONDS, check=False
    )
    logs = "".join(
        p.read_text(errors="replace")[-1500:] for p in sorted(klass["root"].glob("slurm-*.out"))
    )
    assert done.returncode == 0, f"sbatch: {done.stdout}{done.stderr}\n{logs}"
    return done.stdout.strip().split(";")[0]


def _queue_empty(cluster, job: str) -> bool:
    queue = subprocess.run(
        ["squeue", "-h", "-j", job], env=cluster, capture_output=True, text=True, check=False
    )
    return not queue.stdout.strip()


def _merge(shards: Path, final: Path) -> int:
    return autograder_main(
        ["merge", *map(str, sorted(shards.glob("shard-*"))), "--out", str(final)]
    )


def test_a_job_array_grades_the_class_as_one_run_would(cluster, klass):
    out = klass["root"] / "array"
    _submit(cluster, klass, out, "0-1", wait=True)
    assert sorted(p.name for p in out.iterdir()) == ["shard-0", "shard-1"]
    assert _merge(out, klass["root"] / "final") == 0
    assert synthetic.graded_files(klass["root"] / "final") == synthetic.graded_files(klass["whole"])
    klass["array"] = out


def test_a_shard_killed_with_sigkill_and_run_again_gives_the_same_result(cluster, klass, capsys):
    out = klass.get("array")
    assert out is not None, "needs the array of the test before"
    job = _submit(cluster, klass, out, "1", wait=False)
    manifest = out / "shard-1" / MANIFEST
    deadline = time.monotonic() + JOB_SECONDS
    while manifest.exists() and time.monotonic() < deadline:  # the re-run clears it first
        time.sleep(0.05)
    kill = subprocess.run(
        ["scancel", "--signal=KILL", job], env=cluster, capture_output=True, text=True, check=False
    )
    assert kill.returncode == 0, kill.stderr
    while not _queue_empty(cluster, job) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _queue_empty(cluster, job)
    assert not manifest.exists(), "the shard finished before it was killed: nothing was tested"
    capsys.readouterr()
    assert _merge(out, klass["root"] / "refused") == 2
    assert "did not finish" in capsys.readouterr().err
    _submit(cluster, klass, out, "1", wait=True)
    assert json.loads(manifest.read_text())["shard"] == 1
    assert _merge(out, klass["root"] / "final-after-kill") == 0
    after_kill = synthetic.graded_files(klass["root"] / "final-after-kill")
    assert after_kill == synthetic.graded_files(klass["whole"])
