"""Every path a comment or document names exists (issue #66 item 5). Twelve comments and
documents went on naming test files after the tier split had moved them (fixed by hand in
afef21a); this test holds that fix, so a file that moves takes the paths naming it along.

The project's texts are read as text, without importing anything: Python, Markdown, shell,
TOML, cfg and YAML files, the Makefile, scripts with a shebang, and the cells of the source
notebooks (assignments/source; book/ holds their generated copies). A path is a token that
starts with one of the repository's top-level folders (read from the tree) and ends in a file
suffix (``tests/unit/test_tiers.py``) or a slash (``servelab/lessons/``); it must exist relative
to the repository's root or to the folder of the file naming it (test_no_sentence_pins.py keys
its exemptions by paths under tests/unit); a glob (``env/requirements-*.txt``) must match some
path. Placeholders (``book/<id>/<id>.ipynb``, ``$chapter``, ``{NEW_PACKAGE}``) name no one file
and are not checked; what is named but legitimately absent is allowed below, with its reason.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

REPO = Path(__file__).parents[2]
# Folders that are not the project's sources: environments, caches and built output, wherever
# they sit, and the graded output .gitignore names.
SKIP = {
    ".git",
    ".venv",
    "_build",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
    ".mypy_cache",
    ".hypothesis",
    ".cache",
    ".ipynb_checkpoints",
    ".jupyter_cache",
    "node_modules",
}
OUTPUT = {
    Path("grading-out"),
    Path("assignments/release"),
    Path("assignments/submitted"),
    Path("assignments/autograded"),
    Path("assignments/feedback"),
}
SUFFIXES = {".py", ".md", ".sh", ".sbatch", ".toml", ".cfg", ".yml", ".yaml"}
NAMES = {"Makefile"}
NOTEBOOKS = Path("assignments/source")
FILE = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")  # ends in a file suffix
PLACEHOLDER = re.compile(r"[{}\[\]<>$%]")  # a placeholder, a variable or a brace pattern
GLOB = re.compile(r"[*?]")  # a glob: it must match some path

# Paths named but not in the tree, each with the reason.
ALLOWED = {
    "servelab/lessons/paging/new.py": (
        "tests/unit/test_layout.py's made-up module, which its check must report as untested:"
        " it exists in no tree"
    ),
}


def _skipped(folder: Path) -> bool:
    return folder.name in SKIP or folder.name.endswith(".egg-info") or folder in OUTPUT


def top_folders(root: Path) -> list[str]:
    """The repository's top-level folders, caches and built output left out."""
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not _skipped(Path(p.name)))


def sources(root: Path) -> Iterator[Path]:
    """The texts to read, relative to ``root``."""
    for folder, dirs, files in os.walk(root):
        here = Path(folder).relative_to(root)
        dirs[:] = sorted(d for d in dirs if not _skipped(here / d))
        for name in sorted(files):
            path = here / name
            if (
                path.suffix in SUFFIXES
                or name in NAMES
                or (path.suffix == ".ipynb" and path.is_relative_to(NOTEBOOKS))
                or (not path.suffix and _shebang(root / path))
            ):
                yield path


def _shebang(path: Path) -> bool:
    with path.open("rb") as file:
        return file.read(2) == b"#!"


def texts(root: Path, path: Path) -> Iterator[tuple[str, str]]:
    """(where, text) of a source: the file itself, or each cell of a notebook."""
    text = (root / path).read_text(encoding="utf-8")
    if path.suffix != ".ipynb":
        yield str(path), text
        return
    for number, cell in enumerate(json.loads(text)["cells"], 1):
        source = cell["source"]
        yield f"{path} cell {number}", source if isinstance(source, str) else "".join(source)


def named(text: str, tops: Iterable[str]) -> list[str]:
    """The paths and globs ``text`` names, placeholders left out."""
    alternatives = "|".join(re.escape(top) for top in sorted(tops, key=len, reverse=True))
    token = re.compile(rf"(?<![\w/.\-])(?:\./)?(?:{alternatives})/[\w.\-/*?{{}}\[\]<>$%@+]*")
    paths = []
    for match in token.finditer(text):
        path = match.group(0).rstrip(".,;:")
        if PLACEHOLDER.search(path) or not (path.endswith("/") or FILE.search(path)):
            continue
        paths.append(path.removeprefix("./"))
    return paths


def _found(folder: Path, path: str) -> bool:
    if GLOB.search(path):
        return next(folder.glob(path), None) is not None
    return (folder / path).exists()


def missing(root: Path, allowed: Iterable[str] = ()) -> tuple[int, list[str]]:
    """How many paths the sources name, and "where:line: path" for each that is not there."""
    tops = top_folders(root)
    count, absent = 0, []
    for source in sources(root):
        for where, text in texts(root, source):
            for number, line in enumerate(text.splitlines(), 1):
                for path in named(line, tops):
                    count += 1
                    there = any(_found(folder, path) for folder in (root, root / source.parent))
                    if not there and path not in allowed:
                        absent.append(f"{where}:{number}: {path}")
    return count, absent


def test_every_path_a_comment_or_document_names_exists() -> None:
    count, absent = missing(REPO, ALLOWED)
    assert count > 400, f"only {count} paths named: is the tree being read?"
    assert absent == [], "point these at where the files live now (git log --follow):\n" + (
        "\n".join(absent)
    )


def test_every_allowed_path_is_still_named_and_still_absent() -> None:
    named_anywhere = {
        path
        for source in sources(REPO)
        for _, text in texts(REPO, source)
        for path in named(text, top_folders(REPO))
    }
    stale = [path for path in ALLOWED if path not in named_anywhere or (REPO / path).exists()]
    assert stale == [], f"drop these from ALLOWED: {stale}"


def test_the_check_finds_a_path_that_is_not_there(tmp_path: Path) -> None:
    (tmp_path / "lib" / "kept").mkdir(parents=True)
    (tmp_path / "lib" / "kept" / "here.py").write_text("")
    (tmp_path / "docs" / "lib").mkdir(parents=True)
    (tmp_path / "docs" / "lib" / "inner.py").write_text("")
    (tmp_path / "docs" / "guide.md").write_text(
        "`lib/kept/here.py` and lib/kept/ are there; see (lib/gone.py).\n"
        "Not checked: lib/<id>/x.md, lib/$NAME.sh, lib/{a,b}.py, mylib/gone.py, /tmp/lib/gone.py, "
        "lib/gone, https://example.org/lib/gone.py, lib.gone.py\n"
        "Next to this file: lib/inner.py; allowed: lib/made_up.py.\n"
        "Globs: lib/kept/*.py matches, lib/*/*.md does not.\n"
    )
    (tmp_path / "_build").mkdir()
    (tmp_path / "_build" / "page.md").write_text("lib/built.py\n")
    count, absent = missing(tmp_path, {"lib/made_up.py"})
    assert absent == ["docs/guide.md:1: lib/gone.py", "docs/guide.md:4: lib/*/*.md"]
    assert count == 7
