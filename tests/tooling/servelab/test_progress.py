"""Progress on long work: a bar where a reader watches, one closing line where bars are off."""

from __future__ import annotations

import sys

import pytest

from servelab import progress
from servelab.engines.process import Launch, ServerProcess


class _Files(ServerProcess):
    engine = "file server"
    health_path = "/"

    @property
    def command(self) -> list[str]:
        return [sys.executable, "-m", "http.server", "--bind", self.host, str(self.port)]


@pytest.mark.tooling  # starts a child process
def test_a_server_start_says_when_it_was_ready(monkeypatch, capfd, tmp_path) -> None:
    monkeypatch.setenv(progress.OFF_VAR, "1")
    with _Files(launch=Launch(log_dir=tmp_path)):
        pass
    lines = capfd.readouterr().out.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("file server ready after ") and lines[0].endswith(" s")
