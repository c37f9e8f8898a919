"""``python -m servelab.checks write [ID ...]``: put each chapter's check into its source notebook.

``python -m servelab.checks show PATH`` prints a check file (YAML or lesson JSON) as it will be
shown, which is a quick way to validate one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from servelab.checks.cells import question_source
from servelab.checks.load import load_check
from servelab.checks.model import CheckError
from servelab.checks.notebook import write_checks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m servelab.checks", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    write = commands.add_parser("write", help="write checks into source notebooks")
    write.add_argument("chapters", nargs="*", help="chapter ids (default: all)")
    show = commands.add_parser("show", help="validate and print one check file")
    show.add_argument("path", type=Path)
    args = parser.parse_args(argv)
    try:
        if args.command == "write":
            print("\n".join(write_checks(args.chapters)))
        else:
            check = load_check(args.path)
            print(question_source(check))
            print(f"\ncorrect: {check.correct}")
    except CheckError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
