"""``python -m course.checks write [ID ...]``: put each chapter's check into its source notebook.

``python -m course.checks show PATH`` prints a check file (YAML or lesson JSON) as it will be
shown, which is a quick way to validate one. ``python -m course.checks import LESSON.json
--chapter ID`` brings a check written in the lesson-JSON format into the course as
``assignments/checks/<ID>.json`` (options in the lesson's display order); ``write`` then puts it
into the chapter's source notebook.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from course.checks.cells import question_source
from course.checks.load import CHECK_SUFFIXES, check_from_lesson, load_check
from course.checks.model import Check, CheckError
from course.checks.notebook import write_checks
from course.paths import CHECKS_DIR


def lesson_check_data(check: Check) -> dict:
    """A check as a bare lesson-JSON check object, options in their letter order."""
    return {
        "question": check.question,
        "options": [
            {
                "text": option.text,
                "correct": option.letter == check.correct,
                **({"tempting": option.wrong} if option.wrong else {}),
            }
            for option in check.options
        ],
    }


def import_lesson(lesson: Path, chapter: str, checks_dir: Path = CHECKS_DIR) -> Path:
    """Validate the check of a lesson-JSON file and write it as ``<checks_dir>/<chapter>.json``.

    Refuses when the chapter already has a check file of another format, which would win.
    """
    try:
        data = json.loads(Path(lesson).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CheckError(f"{lesson}: not a readable JSON file: {error}") from None
    check = check_from_lesson(data, chapter)
    target = checks_dir / f"{chapter}.json"
    others = [checks_dir / f"{chapter}{suffix}" for suffix in CHECK_SUFFIXES]
    if clash := [p for p in others if p.exists() and p != target]:
        raise CheckError(f"{clash[0]} already holds {chapter}'s check; remove it first")
    checks_dir.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(lesson_check_data(check), indent=2) + "\n", encoding="utf-8")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m course.checks",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    write = commands.add_parser("write", help="write checks into source notebooks")
    write.add_argument("chapters", nargs="*", help="chapter ids (default: all)")
    show = commands.add_parser("show", help="validate and print one check file")
    show.add_argument("path", type=Path)
    bring = commands.add_parser("import", help="import the check of a lesson-JSON file")
    bring.add_argument("lesson", type=Path, metavar="LESSON.json")
    bring.add_argument("--chapter", required=True, help="the chapter id the check belongs to")
    bring.add_argument(
        "--checks-dir",
        type=Path,
        default=CHECKS_DIR,
        help="where check files live (default: assignments/checks)",
    )
    args = parser.parse_args(argv)
    try:
        if args.command == "write":
            print("\n".join(write_checks(args.chapters)))
        elif args.command == "import":
            target = import_lesson(args.lesson, args.chapter, args.checks_dir)
            check = load_check(target, args.chapter)
            print(
                f"wrote {target} (correct: {check.correct}); "
                f"`python -m course.checks write {args.chapter}` puts it in the notebook"
            )
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
