"""Command line: `python -m autograder grade PATH... --out OUT`."""

from __future__ import annotations

import argparse
import logging
import sys
from collections import Counter
from pathlib import Path

from autograder.course import DEFAULT_TIMEOUT, REPO_COURSE
from autograder.grade import DEFAULT_JOBS, GradingError, grade
from autograder.sandbox import SandboxUnavailable


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder")
    commands = parser.add_subparsers(dest="command", required=True)
    grading = commands.add_parser("grade", help="grade submitted notebooks")
    grading.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                         help="folder, .zip or .ipynb of submissions (read only)")
    grading.add_argument("--out", type=Path, required=True,
                         help="output folder: grades.csv, feedback/, nbgrader/ (scratch course)")
    grading.add_argument("--course", type=Path, default=REPO_COURSE,
                         help="nbgrader course root holding source/<id>/<id>.ipynb "
                              "(default: the repo's assignments/)")
    grading.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT,
                         help="seconds a check cell may run before it is stopped")
    grading.add_argument("--jobs", type=int, default=DEFAULT_JOBS,
                         help="notebooks graded at once, each in its own worker process")
    grading.add_argument("--unsafe-no-sandbox", action="store_true",
                         help="run the check cells without the bubblewrap sandbox, with the "
                              "grader's own rights (only for trusted notebooks)")
    grading.add_argument("-v", "--verbose", action="store_true", help="show progress")
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        parser.error(f"no such file or folder: {', '.join(missing)}")
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    if args.unsafe_no_sandbox:
        print("autograder: WARNING: --unsafe-no-sandbox: the check cells run with your rights, "
              "network and files", file=sys.stderr)
    try:
        rows = grade(args.paths, args.out, args.course, args.timeout, args.jobs,
                     sandboxed=not args.unsafe_no_sandbox)
    except (GradingError, SandboxUnavailable) as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    counts = Counter(row["status"] for row in rows)
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    print(f"graded {len(rows)} notebooks ({summary}): {args.out / 'grades.csv'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
