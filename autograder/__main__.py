"""Command line: `python -m autograder grade PATH... --out OUT [--shard I/N]` and
`python -m autograder merge OUT/shard-*/ --out FINAL`."""

from __future__ import annotations

import argparse
import logging
import sys
from collections import Counter
from pathlib import Path

from autograder.course import DEFAULT_TIMEOUT, REPO_COURSE
from autograder.grade import DEFAULT_JOBS, GradingError, grade
from autograder.merge import MergeError, merge
from autograder.sandbox import SandboxUnavailable
from autograder.shard import ShardError, parse_shard


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder")
    commands = parser.add_subparsers(dest="command", required=True)
    grading = commands.add_parser("grade", help="grade submitted notebooks")
    grading.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="folder, .zip or .ipynb of submissions (read only)",
    )
    grading.add_argument(
        "--out",
        type=Path,
        required=True,
        help="output folder: grades.csv, feedback/, nbgrader/ (scratch course)",
    )
    grading.add_argument(
        "--course",
        type=Path,
        default=REPO_COURSE,
        help="nbgrader course root holding source/<id>/<id>.ipynb "
        "(default: the repo's assignments/)",
    )
    grading.add_argument(
        "--timeout",
        type=int,
        default=DEFAULT_TIMEOUT,
        help="seconds a check cell may run before it is stopped",
    )
    grading.add_argument(
        "--jobs",
        type=int,
        default=DEFAULT_JOBS,
        help="notebooks graded at once, each in its own worker process",
    )
    grading.add_argument(
        "--shard",
        metavar="I/N",
        help="grade only the students of shard I of N (auto/N: I from "
        "SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX), into OUT/shard-I",
    )
    grading.add_argument(
        "--no-result-cache",
        action="store_true",
        help="run every notebook's checks instead of reusing the outcome of "
        "the same chapter and answer",
    )
    grading.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="run the check cells without the bubblewrap sandbox, with the "
        "grader's own rights (only for trusted notebooks)",
    )
    grading.add_argument("-v", "--verbose", action="store_true", help="show progress")
    merging = commands.add_parser("merge", help="merge the shards of one class")
    merging.add_argument(
        "shards",
        nargs="+",
        type=Path,
        metavar="SHARD",
        help="the OUT/shard-I folders of every shard",
    )
    merging.add_argument(
        "--out", type=Path, required=True, help="output folder: grades.csv and feedback/"
    )
    return parser


def _summary(rows: list[dict[str, str]], where: Path) -> str:
    counts = Counter(row["status"] for row in rows)
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    return f"{len(rows)} notebooks ({summary}): {where}"


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "merge":
        try:
            rows = merge(args.shards, args.out)
        except (MergeError, GradingError) as error:
            print(f"autograder: merge refused: {error}", file=sys.stderr)
            return 2
        print(
            f"merged {len(args.shards)} shards, {_summary(rows, args.out / 'grades.csv')}",
            file=sys.stderr,
        )
        return 0
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        parser.error(f"no such file or folder: {', '.join(missing)}")
    try:
        shard = parse_shard(args.shard) if args.shard else None
    except ShardError as error:
        parser.error(str(error))
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    if args.unsafe_no_sandbox:
        print(
            "autograder: WARNING: --unsafe-no-sandbox: the check cells run with your rights, "
            "network and files",
            file=sys.stderr,
        )
    try:
        rows = grade(
            args.paths,
            args.out,
            args.course,
            args.timeout,
            args.jobs,
            sandboxed=not args.unsafe_no_sandbox,
            result_cache=not args.no_result_cache,
            shard=shard,
        )
    except (GradingError, SandboxUnavailable) as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    out = shard.folder(args.out) if shard else args.out
    print(f"graded {_summary(rows, out / 'grades.csv')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
