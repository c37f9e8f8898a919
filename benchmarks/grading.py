"""Grading throughput, side by side: notebooks per minute without and with the result cache,
and with the cache in 1 and 2 shards (merged), all sandboxed; and without the sandbox.

Uses the real course (assignments/source) when it has chapters, else (or with --demo) the demo
course of autograder.synthetic. Students start from the student editions nbgrader makes of the
course and answer A, B, C, D or nothing, in rotation. The uncached runs grade a sample of the
class (`--sample` students: their rate does not depend on the class's size); the cached runs
grade the whole class (`--students`), because a cache pays off over a class: it needs one sandbox
run per chapter and answer. Every run grades into a fresh folder, its cache starting empty. The
2-shard run starts both shards at once as `--shard I/2` processes (one worker each) and merges
them, as a cluster would. The last lines are `grading: <run> notebooks_per_minute=<x>` and the
ratios to the sandboxed uncached rate; the goals are at least 30 sandboxed uncached and 5 times
that with the cache, on 2 cores.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

# The autograder and the course tooling it imports are not installed: they run from the
# repository root, which a script started as `python benchmarks/grading.py` does not see.
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import synthetic  # noqa: E402
from autograder.course import REPO_COURSE, course_chapters  # noqa: E402
from autograder.grade import DEFAULT_JOBS, grade  # noqa: E402
from autograder.merge import merge  # noqa: E402


def _shards(inbox: Path, out: Path, course: Path, count: int) -> list[dict[str, str]]:
    """Grade `count` shards at once, each its own process with one worker, then merge."""
    command = [
        sys.executable,
        "-m",
        "autograder",
        "grade",
        str(inbox),
        "--out",
        str(out),
        "--course",
        str(course),
        "--jobs",
        "1",
    ]
    running = [
        subprocess.Popen([*command, "--shard", f"{i}/{count}"], cwd=ROOT, stderr=subprocess.DEVNULL)
        for i in range(count)
    ]
    if any(process.wait() for process in running):
        raise SystemExit("a shard failed")
    return merge(sorted(out.glob("shard-*")), out / "final")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--students", type=int, default=20, help="class size of cached runs")
    parser.add_argument("--sample", type=int, default=5, help="class size of uncached runs")
    parser.add_argument("--jobs", type=int, default=DEFAULT_JOBS)
    parser.add_argument("--demo", action="store_true", help="grade the demo course")
    args = parser.parse_args()
    rates = {}
    with tempfile.TemporaryDirectory(prefix="servelab-grading-") as tmp:
        work = Path(tmp)
        course = REPO_COURSE
        if args.demo or not course_chapters(course):
            course = synthetic.write_course(work / "course")
        books = synthetic.editions(course, work / "editions")
        sizes = {
            "sample": synthetic.write_class(work / "sample", books, args.sample),
            "class": synthetic.write_class(work / "class", books, args.students),
        }
        runs = {
            "sandbox=off cache=off": (
                "sample",
                lambda i, o: grade(
                    [i], o, course, jobs=args.jobs, sandboxed=False, result_cache=False
                ),
            ),
            "sandbox=on cache=off": (
                "sample",
                lambda i, o: grade([i], o, course, jobs=args.jobs, result_cache=False),
            ),
            "sandbox=on cache=on": ("class", lambda i, o: grade([i], o, course, jobs=args.jobs)),
            "sandbox=on cache=on shards=1": ("class", lambda i, o: _shards(i, o, course, 1)),
            "sandbox=on cache=on shards=2": ("class", lambda i, o: _shards(i, o, course, 2)),
        }
        for n, (label, (inbox, run)) in enumerate(runs.items()):
            start = time.perf_counter()
            rows = run(work / inbox, work / f"out-{n}")
            seconds = time.perf_counter() - start
            statuses = Counter(row["status"] for row in rows)
            print(
                f"grading: {label} course={course} chapters={len(books)} "
                f"notebooks={sizes[inbox]} jobs={args.jobs} seconds={seconds:.1f} "
                f"statuses={dict(sorted(statuses.items()))}",
                flush=True,
            )
            rates[label] = sizes[inbox] / seconds * 60
    base = rates["sandbox=on cache=off"]
    for label, rate in rates.items():
        print(
            f"grading: {label} notebooks_per_minute={rate:.1f} ratio_to_uncached={rate / base:.2f}"
        )


if __name__ == "__main__":
    main()
