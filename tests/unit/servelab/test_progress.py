"""Progress on long work: a bar where a reader watches, one closing line where bars are off."""

from __future__ import annotations

import pytest

from servelab import progress


@pytest.mark.parametrize(
    ("asked", "setting", "shown"),
    [
        (True, None, True),
        (True, "0", True),
        (True, "1", False),
        (False, None, False),
    ],
)
def test_tqdm_disable_turns_the_bars_off(
    monkeypatch, asked: bool, setting: str | None, shown: bool
) -> None:
    if setting is None:
        monkeypatch.delenv(progress.OFF_VAR, raising=False)
    else:
        monkeypatch.setenv(progress.OFF_VAR, setting)
    assert progress.bars_shown(asked) is shown


def test_a_wait_without_a_bar_ends_on_one_line(monkeypatch, capsys) -> None:
    monkeypatch.setenv(progress.OFF_VAR, "1")
    waiting = progress.Waiting("vLLM")
    waiting.tick()
    waiting.done(57.6)
    assert capsys.readouterr() == ("vLLM ready after 58 s\n", "")


def test_a_wait_with_a_bar_prints_no_line(monkeypatch, capsys) -> None:
    monkeypatch.delenv(progress.OFF_VAR, raising=False)
    waiting = progress.Waiting("vLLM")
    waiting.tick()
    waiting.done(0.1)
    assert capsys.readouterr().out == ""  # shorter than the bar's delay: nothing drawn at all
