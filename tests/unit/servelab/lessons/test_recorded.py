"""A findings object with a pandas frame or series in it is kept as JSON and read back equal; a
finding a recording lacks is left out."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import pandas as pd

from servelab.lessons.recorded import from_record, load, save, to_record


@dataclass(frozen=True)
class WithFrames:
    label: str
    frames: dict[str, pd.DataFrame]


def test_a_frame_in_a_findings_object_reads_back_with_its_index_and_values():
    frame = pd.DataFrame(
        {"requests": [3, 5], "share": [0.25, math.nan]},
        index=pd.Index(["tenant 0", "tenant 1"], name="tenant"),
    )
    kept = json.loads(json.dumps(to_record(WithFrames("round robin", {"spread": frame}))))
    back = from_record(WithFrames, kept)
    assert back.label == "round robin"
    pd.testing.assert_frame_equal(back.frames["spread"], frame)


def test_a_series_reads_back_with_its_name_labels_and_values():
    row = pd.Series(
        [12.5, math.nan, 3.0],
        name=("vLLM", 16),
        index=["output_tok_s", "ttft_s_p99", ("start", "s")],
    )
    back = from_record(pd.Series, json.loads(json.dumps(to_record(row))))
    pd.testing.assert_series_equal(back, row)


def test_a_finding_the_recording_predates_is_left_out(tmp_path):
    path = save({"label": "round robin"}, tmp_path / "found.json")
    assert load(path, {"label": str, "added_later": float}) == {"label": "round robin"}
