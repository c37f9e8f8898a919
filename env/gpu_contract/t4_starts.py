"""Each chapter's server starts as ``make gpu-contract`` last counted them, kept in
``t4-starts.json`` beside this module, so the README's t4-wait table and
``autograder/t4-estimate.json`` (``t4_count``, ``t4_estimate``) add the same starts the contract's
``t4-wait`` lines add, without vLLM.

The contract counts the starts afresh from vLLM 0.11.2's own configuration of each recorded
server (``engine_side``) and fails where its count differs from the kept one;
``python env/gpu_contract/contract.py --write-starts`` keeps the new count. Standard library only:
it runs in the project's venv and is unit-tested there.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, replace
from pathlib import Path

from t4_wait import ChapterCount, Start

STARTS_JSON = Path(__file__).with_name("t4-starts.json")


def platform_of(count: ChapterCount) -> str:
    """``colab`` or ``kaggle``: the key ``t4_count`` names a platform by."""
    return count.runtime.lower()


def normalized(count: ChapterCount) -> ChapterCount:
    """``count`` with each compile-cache key named by its order in the chapter (``key1``, ...):
    a key hashes the model's path, which differs from run to run, and only which starts share
    one decides what compiles cold."""
    names: dict[str, str] = {}
    for start in count.starts:
        if start.compile_key is not None:
            names.setdefault(start.compile_key, f"key{len(names) + 1}")
    return replace(
        count,
        starts=tuple(
            replace(
                start, compile_key=None if start.compile_key is None else names[start.compile_key]
            )
            for start in count.starts
        ),
    )


def text(counts: Iterable[ChapterCount]) -> str:
    """The kept file's text: per chapter and platform, each start in order (keys
    :func:`normalized`) and whether the capture stopped before some server."""
    kept: dict[str, dict[str, object]] = {}
    for count in map(normalized, counts):
        kept.setdefault(count.chapter, {})[platform_of(count)] = {
            "partial": count.partial,
            "starts": [asdict(start) for start in count.starts],
        }
    return json.dumps(kept, indent=1, sort_keys=True) + "\n"


def read(path: Path = STARTS_JSON) -> dict[tuple[str, str], ChapterCount]:
    """The kept counts by (chapter, platform)."""
    kept = json.loads(path.read_text(encoding="utf-8"))
    return {
        (chapter, platform): ChapterCount(
            chapter,
            platform.capitalize(),
            tuple(Start(**start) for start in found["starts"]),
            partial=found["partial"],
        )
        for chapter, platforms in kept.items()
        for platform, found in platforms.items()
    }


def kept_count(chapter: str, platform: str) -> ChapterCount:
    """``chapter``'s kept count on ``platform``; KeyError where the contract has not counted it."""
    return read()[chapter, platform]


def starts_seconds(chapter: str, platform: str) -> float:
    """``chapter``'s kept starts on ``platform`` in seconds: each a fresh process, a cold or warm
    compile and its CUDA graphs (``t4_wait.start_seconds``)."""
    return kept_count(chapter, platform).starts_seconds()


def differences(
    fresh: Iterable[ChapterCount], kept: dict[tuple[str, str], ChapterCount]
) -> list[str]:
    """A line for each chapter and platform whose fresh count is not the kept one."""
    return [
        f"{count.chapter} {platform_of(count)}: counted {len(count.starts)} start(s), "
        f"{count.starts_seconds() / 60:.1f} min; kept {_kept_words(kept, count)}"
        for count in fresh
        if kept.get((count.chapter, platform_of(count))) != normalized(count)
    ]


def _kept_words(kept: dict[tuple[str, str], ChapterCount], count: ChapterCount) -> str:
    old = kept.get((count.chapter, platform_of(count)))
    if old is None:
        return "none"
    return f"{len(old.starts)} start(s), {old.starts_seconds() / 60:.1f} min"
