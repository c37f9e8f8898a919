"""The starts ``make gpu-contract`` counted, kept for the README's table and the estimate
(env/gpu_contract/t4_starts.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from course.paths import REPO_ROOT
from servelab.book import CHAPTERS

sys.path.insert(0, str(REPO_ROOT / "env" / "gpu_contract"))

import t4_starts  # noqa: E402
from t4_wait import ChapterCount, Start  # noqa: E402

COUNT = ChapterCount(
    "07-x",
    "Colab",
    (
        Start(0, "k", 9, 0.45),
        Start(1, "k", 9, 0.45),
        Start(2, None, 0, 0.9, card="0,1", refused=True),
    ),
)


def test_a_count_reads_back_as_it_was_kept_its_keys_named_by_their_order(tmp_path: Path) -> None:
    kaggle = ChapterCount("07-x", "Kaggle", COUNT.starts[:1], partial=True)
    path = tmp_path / "starts.json"
    path.write_text(t4_starts.text([COUNT, kaggle]))
    kept = t4_starts.read(path)
    assert kept == {
        ("07-x", "colab"): t4_starts.normalized(COUNT),
        ("07-x", "kaggle"): t4_starts.normalized(kaggle),
    }
    assert [s.compile_key for s in kept["07-x", "colab"].starts] == ["key1", "key1", None]
    assert kept["07-x", "colab"].starts_seconds() == COUNT.starts_seconds()


def test_a_count_that_differs_from_the_kept_one_is_named() -> None:
    kept = {("07-x", "colab"): t4_starts.normalized(COUNT)}
    assert t4_starts.differences([COUNT], kept) == []
    other_run = ChapterCount(
        "07-x",
        "Colab",
        tuple(  # another model path: other hashes
            Start(s.server, s.compile_key and "q", s.graphs, s.share, s.card, s.refused)
            for s in COUNT.starts
        ),
    )
    assert t4_starts.differences([other_run], kept) == []
    fewer = ChapterCount("07-x", "Colab", COUNT.starts[:2])
    [line] = t4_starts.differences([fewer], kept)
    assert line.startswith("07-x colab: counted 2 start(s)") and "kept 3 start(s)" in line
    assert t4_starts.differences([fewer], {})[0].endswith("kept none")


def test_every_chapter_has_kept_starts_on_both_platforms() -> None:
    for chapter in CHAPTERS:
        for platform in ("colab", "kaggle"):
            count = t4_starts.kept_count(chapter.id, platform)
            assert count.starts and not count.partial
            assert t4_starts.starts_seconds(chapter.id, platform) == pytest.approx(
                count.starts_seconds()
            )
