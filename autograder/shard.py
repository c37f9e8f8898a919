"""Grading a class in N shards: which students a shard grades, and the manifest it leaves.

A student belongs to shard ``sha256(student) mod N`` (a stable hash, the same on every machine
and every run, unlike Python's salted ``hash()``), so all of a student's notebooks land in one
shard and the duplicate rule (newest submission of a chapter wins) stays inside it. Every shard
reads the whole input list and fingerprints it; `autograder.merge` refuses shards whose
fingerprints or N differ. A shard writes its rows (with the order key of the unsharded run) and,
last, its manifest: a shard without a manifest did not finish.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "shard.json"
ROWS = "rows.json"
INDEX_VARIABLES = ("SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX")  # Slurm arrays, Kubernetes
SHARD_SPEC = re.compile(r"^(?P<index>\d+|auto)/(?P<count>\d+)$")


class ShardError(ValueError):
    """A --shard that cannot be used; the message says why."""


@dataclass(frozen=True)
class Shard:
    index: int
    count: int

    def folder(self, out: Path) -> Path:
        """Where this shard writes, inside the OUT given to `grade`."""
        return out / f"shard-{self.index}"

    def holds(self, student: str) -> bool:
        return shard_of(student, self.count) == self.index


def shard_of(student: str, count: int) -> int:
    """The shard of a student id, stable across machines and runs."""
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count


def parse_shard(spec: str, environ: Mapping[str, str] = os.environ) -> Shard:
    """`I/N`, or `auto/N` with I from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX."""
    match = SHARD_SPEC.match(spec.strip())
    if not match:
        raise ShardError(f"--shard {spec!r}: expected I/N or auto/N, such as 0/4")
    count = int(match["count"])
    if match["index"] != "auto":
        index = int(match["index"])
    else:
        found = next((name for name in INDEX_VARIABLES if environ.get(name, "").strip()), None)
        if found is None:
            raise ShardError(
                f"--shard auto/{count}: neither {' nor '.join(INDEX_VARIABLES)} "
                "is set (run it as a Slurm array task or a Kubernetes indexed Job)"
            )
        if not environ[found].strip().isdigit():
            raise ShardError(f"--shard auto/{count}: {found}={environ[found]!r} is not a number")
        index = int(environ[found])
    if count < 1 or not 0 <= index < count:
        raise ShardError(
            f"--shard {spec!r}: the index must be 0 to N-1 and N at least 1 "
            f"(got {index} of {count})"
        )
    return Shard(index, count)


def write_shard(
    folder: Path, shard: Shard, fingerprint: str, rows: list[tuple[list[str], str, dict[str, str]]]
) -> None:
    """The shard's rows (order key, row id, row) and then its manifest, each written whole."""
    _write_json(
        folder / ROWS, [{"order": order, "id": ident, "row": row} for order, ident, row in rows]
    )
    counts = Counter(row["status"] for _, _, row in rows)
    _write_json(
        folder / MANIFEST,
        {
            "shard": shard.index,
            "shards": shard.count,
            "inputs": fingerprint,
            "rows": len(rows),
            "counts": dict(sorted(counts.items())),
        },
    )


def clear_shard(folder: Path) -> None:
    """Before a (re-)run: a manifest left from an earlier run must not vouch for this one."""
    for name in (MANIFEST, ROWS):
        (folder / name).unlink(missing_ok=True)


def _write_json(path: Path, data: object) -> None:
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(partial, path)
