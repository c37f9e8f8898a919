"""A findings object with a pandas frame in it is kept as JSON and read back equal."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import pandas as pd

from servelab.lessons.recorded import from_record, to_record


@dataclass(frozen=True)
class WithFrames:
    label: str
    frames: dict[str, pd.DataFrame]


def test_a_frame_in_a_findings_object_reads_back_with_its_index_and_values():
    frame = pd.DataFrame({"requests": [3, 5], "share": [0.25, math.nan]},
                         index=pd.Index(["tenant 0", "tenant 1"], name="tenant"))
    kept = json.loads(json.dumps(to_record(WithFrames("round robin", {"spread": frame}))))
    back = from_record(WithFrames, kept)
    assert back.label == "round robin"
    pd.testing.assert_frame_equal(back.frames["spread"], frame)
