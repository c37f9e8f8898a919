"""servelab.lessons.when_not_to.runs: chapter 08's comparison table, one row an engine and a load,
with the medians and ranges of repeated runs in the order they ran, and the size of a model's
folder."""

from __future__ import annotations

import pytest

from servelab.bench.frames import Result
from servelab.bench.spread import Spread
from servelab.lessons.when_not_to import runs
from tests.support import evenly_timed


def test_comparison_has_one_row_per_engine_and_users():
    one = Result(workload=None, records=[evenly_timed(0, 0.0, 0.1, 1.1, 11)], duration_s=1.1)
    many = Result(
        workload=None,
        records=[evenly_timed(i, 0.0, 0.5 * i + 0.1, 0.5 * i + 0.5, 5) for i in range(4)],
        duration_s=2.0,
    )
    table = runs.comparison({("vLLM", 1): [one], ("llama.cpp", 4): [many]})
    assert list(table.index) == [("vLLM", 1), ("llama.cpp", 4)]
    assert table.loc[("vLLM", 1), "user_tok_s"] == pytest.approx(10.0)
    assert table.loc[("llama.cpp", 4), "output_tok_s"] == pytest.approx(10.0)
    assert table.loc[("llama.cpp", 4), "tokens_per_request"] == 5
    with pytest.raises(ValueError, match="no runs"):
        runs.comparison({})


def test_comparison_of_repeated_runs_gives_medians_and_ranges():
    def alone(seconds: float) -> Result:  # 11 tokens, the first at 0.1 s
        return Result(
            workload=None,
            records=[evenly_timed(0, 0.0, 0.1, 0.1 + seconds, 11)],
            duration_s=0.1 + seconds,
        )

    table = runs.comparison({("vLLM", 1): [alone(1.0), alone(0.5), alone(2.0)]})
    row = table.loc[("vLLM", 1)]
    assert Spread.in_row(row, "user_tok_s") == Spread(10.0, 5.0, 20.0, 3)
    view = runs.comparison_view(table)
    assert view.loc[("vLLM", 1), "user_tok_s"] == "10.0 (5.0–20.0)"
    # Counts print without decimals (a review read "completed requests 2.00").
    assert (view.loc[("vLLM", 1), "completed"], view.loc[("vLLM", 1), "tokens_per_request"]) == (
        "1",
        "11.0",
    )


def test_comparison_keeps_the_speeds_in_the_order_they_ran():
    def alone(seconds: float) -> Result:  # 11 tokens, the first at 0.1 s
        return Result(
            workload=None,
            records=[evenly_timed(0, 0.0, 0.1, 0.1 + seconds, 11)],
            duration_s=0.1 + seconds,
        )

    table = runs.comparison({("vLLM", 1): [alone(1.0), alone(2.0), alone(4.0)]})
    assert table.loc[("vLLM", 1), "user_tok_s_runs"] == pytest.approx((10.0, 5.0, 2.5))


def test_folder_mb_measures_files_and_rejects_missing_paths(tmp_path):
    (tmp_path / "a").write_bytes(b"x" * 1000)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").write_bytes(b"x" * 2000)
    assert runs.folder_mb(tmp_path) == pytest.approx(0.003)
    assert runs.folder_mb(tmp_path / "a") == pytest.approx(0.001)
    with pytest.raises(FileNotFoundError):
        runs.folder_mb(tmp_path / "nope")
