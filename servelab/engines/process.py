"""An HTTP server run as a managed child process: the life cycle every engine in the book shares.

The child runs in its own process group, logs to a file, and counts as started once its health
path answers; the wait shows its time so far, or, where bars are off (the built book), one line
at the end (``servelab.progress``). A child that dies while starting raises at once, quoting the
tail of its log. The whole group is taken down on ``stop()``, on leaving a ``with`` block, at
interpreter exit (``stop_all`` is registered with ``atexit``) and when the parent process dies
(a kernel restart).
"""

from __future__ import annotations

import atexit
import ctypes
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from servelab.progress import Waiting

LOG_TAIL_LINES = 40

_running: set[ServerProcess] = set()


class ServerStartError(RuntimeError):
    """The server did not come up; the message ends with the tail of its log."""


def free_port(preferred: int | None = None, host: str = "127.0.0.1") -> int:
    """``preferred`` if nothing listens there, else a port the OS hands out."""
    if preferred:
        with socket.socket() as probe:
            try:
                probe.bind((host, preferred))
            except OSError:
                pass
            else:
                return preferred
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def _die_with_parent() -> None:
    """Runs in the child before exec: its own group, and SIGTERM when the parent dies."""
    os.setsid()
    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


@dataclass(frozen=True)
class Launch:
    """How a server's process runs: the address it listens on, how long its start may take, and
    the folder of its log."""

    host: str = "127.0.0.1"
    start_timeout: float = 600.0
    log_dir: str | Path | None = None


class ServerProcess:
    """Base class: subclasses give ``command``; ``engine`` and ``health_path`` name the server."""

    engine = "server"
    health_path = "/health"

    def __init__(
        self,
        *,
        port: int | None = None,
        launch: Launch | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.launch = launch or Launch()
        self.host = self.launch.host
        self.requested_port = port
        self.port: int | None = None
        self.start_timeout = self.launch.start_timeout
        self.extra_env = dict(env or {})
        log_dir = self.launch.log_dir
        self.log_dir = Path(log_dir) if log_dir else Path(tempfile.gettempdir()) / "servelab-logs"
        self.log_path: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self.start_seconds = 0.0  # the last start's wait, launch to healthy

    @property
    def command(self) -> list[str]:
        raise NotImplementedError

    @property
    def alive_path(self) -> str:
        """The path that answers while the server serves at all: ``health_path``, unless a
        server's health also judges what stands behind it."""
        return self.health_path

    @property
    def shown_port(self) -> int:
        """The port in use, or the one the command would ask for before the start."""
        return self.port if self.port is not None else (self.requested_port or 8000)

    @property
    def command_line(self) -> str:
        """The command as a reader would type it; subclasses drop this machine's paths."""
        return shlex.join(self.command)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """What an OpenAI client takes as ``base_url``."""
        return f"{self.url}/v1"

    def child_env(self) -> dict[str, str]:
        return {**os.environ, **self.extra_env}

    def after_start(self) -> None:
        """Called once the server is healthy."""

    def before_start(self) -> None:
        """Called before the process is launched; raise to refuse the start with a reason."""

    # -- life cycle ----------------------------------------------------------------------------
    def start(self) -> ServerProcess:
        if self.running:
            return self
        self.before_start()
        self.port = free_port(self.requested_port, self.host)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        slug = self.engine.split()[0].lower().replace("'s", "")
        self.log_path = self.log_dir / f"{slug}-{self.port}-{int(time.time())}.log"
        with self.log_path.open("wb") as log:
            self._process = subprocess.Popen(
                self.command,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.child_env(),
                preexec_fn=_die_with_parent,
            )
        _running.add(self)
        waiting = Waiting(self.engine)
        began = time.monotonic()
        try:
            self._wait_until_healthy(waiting)
        except BaseException:
            waiting.failed()
            self.stop()
            raise
        self.start_seconds = time.monotonic() - began
        waiting.done(self.start_seconds)
        self.after_start()
        return self

    def _wait_until_healthy(self, waiting: Waiting) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            waiting.tick()
            assert self._process is not None, "start() launched the process before waiting"
            code = self._process.poll()
            if code is not None:
                raise ServerStartError(
                    f"{self.engine} exited with code {code} while starting.\n"
                    f"{self.describe_failure()}"
                )
            try:
                with urllib.request.urlopen(self.url + self.health_path, timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            time.sleep(0.25)
        raise ServerStartError(
            f"{self.engine} was not healthy after {self.start_timeout:.0f} s.\n"
            f"{self.describe_failure()}"
        )

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def stop(self, grace: float = 15.0) -> None:
        """End the server's whole process group: SIGTERM, then SIGKILL after ``grace`` s."""
        process = self._process
        if process is None:
            return
        pgid = process.pid  # the child called setsid(): its pid is its group id
        _signal_group(pgid, signal.SIGTERM)
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        deadline = time.monotonic() + grace
        while _group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.2)
        _signal_group(pgid, signal.SIGKILL)
        if process.poll() is None:
            process.wait()
        _running.discard(self)

    def kill(self) -> None:
        """End the whole process group at once with SIGKILL, as a crash would: nothing in it gets
        to close a connection or answer a request it holds."""
        process = self._process
        if process is None:
            return
        _signal_group(process.pid, signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 10.0
        while _group_alive(process.pid) and time.monotonic() < deadline:
            time.sleep(0.1)  # the group's other processes, until they are reaped
        _running.discard(self)

    def __enter__(self):  # noqa: ANN204 - returns the subclass
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what it says --------------------------------------------------------------------------
    def log_text(self) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def describe_failure(self) -> str:
        return (
            f"Command: {shlex.join(self.command)}\n"
            f"Log ({self.log_path}), last lines:\n{self.log_tail()}"
        )

    def __repr__(self) -> str:
        state = f"running on {self.url}" if self.running else "stopped"
        return f"<{type(self).__name__} {getattr(self, 'model', '')} {state}>"


def stop_all() -> None:
    """Stop every server this process started and has not stopped yet, of any engine."""
    for server in list(_running):
        server.stop()


atexit.register(stop_all)
