"""The self-study site: the book with each check's answers explained, apart from the graded one.

``python -m course.self_study`` (``make self-study``) copies the student editions of ``book/``
into ``_build/self-study/`` and puts after each chapter's check one collapsed section (an HTML
``<details>`` block) that names the right option and explains every option, from the chapter's
``assignments/checks/<id>.yml``. It then builds that copy with jupyter-book into
``_build/self-study/_build/html``. The setting is off unless asked for: ``make book`` and
``book/`` never see it.

Why a copy and not a switch in ``book/``: the student editions are what students open on Colab
and submit for grading, and the graded site is built from them, so neither may hold a key. The
copy lives under ``_build/``, which git ignores, and :func:`write_tree` refuses to write into
``book/`` or ``assignments/``.

Why the copy does not run the chapters again: it adds markdown cells only, and jupyter-cache
keys an executed notebook by its code cells alone, so the copy's notebooks match the entries
``make book`` stored in ``_build/.jupyter_cache``; the copy's configuration points there.
Whichever build runs first executes a chapter and the other reuses its outputs. ``--no-execute``
builds the pages without running anything (and without outputs), to look at them quickly.
"""

from __future__ import annotations

import argparse
import copy
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import yaml
from nbformat import NotebookNode

from course.checks import Check, find_check_file, load_check, role_of
from course.edition import toc_text
from course.paths import BOOK_DIR, CHAPTERS, CHECKS_DIR, COURSE_ROOT, REPO_ROOT, student_notebook

OUT_DIR = REPO_ROOT / "_build" / "self-study"
SELF_STUDY_TAG = "self-study"
ANSWERS_CLASS = "servelab-answers"
SUMMARY = "Answer and explanations: open once you have chosen"
RIGHT = "the right answer"
NOT_RIGHT = "not the best answer"
INTRO_NOTE = (
    "```{note}\n"
    "This is the **self-study** edition of the book. After each chapter's check, a collapsed "
    "section names the right option and explains every option. The graded edition, which "
    "students open on Colab or Kaggle and hand in, carries no answers.\n"
    "```"
)


class SelfStudyError(RuntimeError):
    """The self-study copy cannot be written or built; the message says why."""


def explanation_source(check: Check) -> str:
    """The markdown of the collapsed section explaining ``check``, every option in letter order.

    A right option's own text gives its reason (the check files hold no separate one); a wrong
    option gets why it looks right, when known, and why it is wrong.
    """
    lines = [f'<details class="{ANSWERS_CLASS}">', f"<summary>{SUMMARY}</summary>", ""]
    for option in check.options:
        if option.letter == check.correct:
            lines += [f"**{option.letter} is {RIGHT}.** {option.text}", ""]
            continue
        lines += [f"**{option.letter} is {NOT_RIGHT}.** {option.text}", ""]
        if option.tempts:
            lines += [f"*Why it looks right:* {option.tempts}", ""]
        lines += [f"*Why it is wrong:* {option.wrong}", ""]
    lines.append("</details>")
    return "\n".join(lines)


def explanation_cell(check: Check) -> NotebookNode:
    cell = nbformat.v4.new_markdown_cell(explanation_source(check))
    cell.id = f"{check.chapter}-self-study"
    cell.metadata = {"tags": [SELF_STUDY_TAG]}
    return cell


def is_explanation_cell(cell: NotebookNode) -> bool:
    return SELF_STUDY_TAG in cell.get("metadata", {}).get("tags", [])


def with_explanation(notebook: NotebookNode, check: Check) -> NotebookNode:
    """A copy of a student edition with the explanation placed right after its check's test cell.

    An explanation already in ``notebook`` is replaced; every other cell is kept as it was.
    """
    result = copy.deepcopy(notebook)
    cells = [cell for cell in result.cells if not is_explanation_cell(cell)]
    tests = [index for index, cell in enumerate(cells) if role_of(cell) == "test"]
    if len(tests) != 1:
        raise SelfStudyError(
            f"{check.chapter}: expected one check test cell, found {len(tests)}; "
            "run python -m course.edition"
        )
    cells.insert(tests[0] + 1, explanation_cell(check))
    result.cells = cells
    return result


def self_study_config(config_text: str, execute: bool, repo_root: Path = REPO_ROOT) -> dict:
    """The book's ``_config.yml`` for the copy: its own title, and either the graded build's
    execution cache (absolute, so the copy finds it) or no execution at all."""
    config = yaml.safe_load(config_text) or {}
    config["title"] = f"{config.get('title', 'servelab')} (self-study)"
    run = config.setdefault("execute", {})
    if execute:  # an empty cache setting means myst-nb's default, beside the html folder
        cache = Path(run.get("cache") or "_build/.jupyter_cache")
        run["cache"] = str(cache if cache.is_absolute() else (repo_root / cache).resolve())
    else:
        run["execute_notebooks"] = "off"
    return config


def with_intro_note(intro: str) -> str:
    """``intro.md`` with :data:`INTRO_NOTE` after its title line (the title stays the page's)."""
    lines = intro.splitlines()
    title = next((i for i, line in enumerate(lines) if line.startswith("# ")), -1)
    rest = lines[title + 1 :]
    while rest and not rest[0].strip():
        rest = rest[1:]
    return "\n".join([*lines[: title + 1], "", INTRO_NOTE, "", *rest]) + "\n"


def write_tree(
    out_dir: Path = OUT_DIR,
    book_dir: Path = BOOK_DIR,
    checks_dir: Path = CHECKS_DIR,
    repo_root: Path = REPO_ROOT,
    execute: bool = True,
) -> list[Path]:
    """Write the self-study book into ``out_dir``: its notebooks (returned), intro, config, toc.

    ``out_dir/book`` is replaced; the rest of ``out_dir`` (its own ``_build``) is left alone.
    """
    out_dir = Path(out_dir).resolve()
    _refuse_unsafe(out_dir, Path(book_dir), repo_root)
    chapters = [chapter for chapter in CHAPTERS if student_notebook(chapter, book_dir).exists()]
    if not chapters:
        raise SelfStudyError(f"no student editions in {book_dir}: run python -m course.edition")
    shutil.rmtree(out_dir / "book", ignore_errors=True)
    written = []
    for chapter in chapters:
        source = student_notebook(chapter, book_dir)
        shutil.copytree(
            source.parent,
            out_dir / "book" / chapter,
            ignore=shutil.ignore_patterns(".ipynb_checkpoints"),
        )
        check = load_check(find_check_file(chapter, checks_dir), chapter)
        target = student_notebook(chapter, out_dir / "book")
        nbformat.write(with_explanation(nbformat.read(source, as_version=4), check), target)
        written.append(target)
    intro = (repo_root / "intro.md").read_text(encoding="utf-8")
    (out_dir / "intro.md").write_text(with_intro_note(intro), encoding="utf-8")
    shutil.rmtree(out_dir / "_static", ignore_errors=True)
    if (repo_root / "_static").is_dir():  # the book's CSS, self-study.css among it
        shutil.copytree(repo_root / "_static", out_dir / "_static")
    config = self_study_config(
        (repo_root / "_config.yml").read_text(encoding="utf-8"), execute, repo_root
    )
    (out_dir / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    (out_dir / "_toc.yml").write_text(toc_text(out_dir / "book", out_dir), encoding="utf-8")
    return written


def build_site(tree: Path = OUT_DIR) -> Path:
    """Build the self-study book in ``tree`` with warnings as errors; returns its html folder."""
    command = [str(Path(sys.executable).parent / "jupyter-book"), "build", "--all", "-W", str(tree)]
    env = {**os.environ, "TQDM_DISABLE": "1"}  # as `make book`: no frozen progress bars
    result = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SelfStudyError(
            f"jupyter-book build failed:\n{result.stdout[-5000:]}{result.stderr[-5000:]}"
        )
    return Path(tree) / "_build" / "html"


def _refuse_unsafe(out_dir: Path, book_dir: Path, repo_root: Path) -> None:
    """The copy holds keys: never write it over the repository, its student editions or course."""
    root = repo_root.resolve()
    guarded = [book_dir.resolve(), root / "book", root / COURSE_ROOT.name]
    if (
        out_dir == root
        or (out_dir / "book").resolve() in guarded
        or any(out_dir.is_relative_to(folder) for folder in guarded)
    ):
        raise SelfStudyError(
            f"refusing to write the self-study copy into {out_dir}: it holds answer keys; "
            f"use a folder git ignores, such as {OUT_DIR.relative_to(REPO_ROOT)}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m course.self_study",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--out", type=Path, default=OUT_DIR, help="where the copy goes (default: %(default)s)"
    )
    parser.add_argument(
        "--no-execute",
        action="store_true",
        help="build the pages without running the chapters (no outputs)",
    )
    parser.add_argument(
        "--no-build",
        action="store_true",
        help="only write the copy's notebooks, intro, config and toc",
    )
    args = parser.parse_args(argv)
    try:
        written = write_tree(args.out, execute=not args.no_execute)
        print(f"wrote {len(written)} self-study notebooks into {args.out}")
        if not args.no_build:
            print(f"built {build_site(args.out.resolve())}")
    except SelfStudyError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
