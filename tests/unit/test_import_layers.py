"""Imports inside servelab run down its layers, never up: import-linter holds the layers and the
engines' forbidden imports (``pyproject.toml``'s ``[tool.importlinter]``, run by ``make unit``
and ``make test`` as ``lint-imports``). These tests hold what its contracts cannot say by
themselves: that every part of servelab has a layer (a part no layer names is never checked),
that only the top layer imports the package's own ``__init__``, and that no chapter's package
imports another's (the chapters come from ``servelab.book``, so adding one changes no contract).

A part of servelab is a top-level module (``servelab/sizes.py``) or subpackage
(``servelab/engines/``); the package's own ``__init__`` is the part ``servelab``, on the top
layer with ``book``, ``results`` and ``smoke``.
"""

from __future__ import annotations

import ast
import importlib
import tomllib
from pathlib import Path

from course.paths import REPO_ROOT
from servelab.book import CHAPTERS

PACKAGE = REPO_ROOT / "servelab"
CONTRACTS = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
[LAYERS] = [
    tuple(frozenset(part.strip() for part in layer.split(":")) for layer in contract["layers"])
    for contract in CONTRACTS["contracts"]
    if contract["type"] == "layers"
]
TOP = LAYERS[0] | {"servelab"}


def is_part(name: str) -> bool:
    return (PACKAGE / f"{name}.py").is_file() or (PACKAGE / name / "__init__.py").is_file()


def imported_modules(source: str) -> list[tuple[int, str]]:
    """Each servelab module ``source`` imports, with its line: ``from servelab import bench``
    imports ``servelab.bench``, ``from servelab import Server`` the package itself."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module == "servelab" and not node.level:
            found += [
                (node.lineno, f"servelab.{alias.name}" if is_part(alias.name) else "servelab")
                for alias in node.names
            ]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
    return [
        (line, name) for line, name in found if name == "servelab" or name.startswith("servelab.")
    ]


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def module_part(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return "servelab" if relative == Path("__init__.py") else relative.parts[0].removesuffix(".py")


def test_every_part_of_servelab_has_a_layer():
    parts = {module_part(path) for path in modules()} - {"servelab"}
    assert sorted(part for part in parts if not any(part in layer for layer in LAYERS)) == []
    assert set().union(*LAYERS) <= parts  # no layer names a part that is gone


def package_imports(part: str, source: str, where: str) -> list[str]:
    """The imports in ``source`` (of ``part``) of the package's own ``__init__`` (``from servelab
    import Server``), which only the top layer may make."""
    return (
        []
        if part in TOP
        else [
            f"{where}:{line} ({part}) imports servelab"
            for line, module in imported_modules(source)
            if module == "servelab"
        ]
    )


def test_only_the_top_layer_imports_the_package_itself():
    wrong = []
    for path in modules():
        wrong += package_imports(
            module_part(path),
            path.read_text(encoding="utf-8"),
            str(path.relative_to(PACKAGE.parent)),
        )
    assert wrong == []
    assert package_imports("engines", "from servelab import Server\n", "x") == [
        "x:1 (engines) imports servelab"
    ]
    assert package_imports("lessons", "from servelab import bench, tables\n", "x") == []


CHAPTER_PACKAGES = frozenset(chapter.package for chapter in CHAPTERS)


def cross_chapter_imports(owner: str, source: str, where: str) -> list[str]:
    """The imports in ``source`` (a module of the lessons package or module ``owner``) of a
    chapter's package that is not ``owner``: what two chapters share belongs to neither."""
    wrong = []
    for line, module in imported_modules(source):
        names = module.split(".")
        if len(names) > 2 and names[1] == "lessons" and names[2] in CHAPTER_PACKAGES - {owner}:
            wrong.append(f"{where}:{line} ({owner}) imports {module}")
    return wrong


def test_each_chapter_lives_in_the_lessons_package_named_after_it():
    for chapter in CHAPTERS:
        declaration = importlib.import_module(f"servelab.lessons.{chapter.package}.chapter")
        assert declaration.CHAPTER is chapter, chapter.id


def test_no_chapters_package_imports_another_chapters():
    lessons = PACKAGE / "lessons"
    wrong = []
    for path in sorted(lessons.rglob("*.py")):
        owner = path.relative_to(lessons).parts[0].removesuffix(".py")
        wrong += cross_chapter_imports(
            owner, path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE.parent))
        )
    assert wrong == []


def test_an_import_of_another_chapters_package_is_caught():
    source = "from servelab.lessons.paged_attention.words import fit_text\n"
    assert cross_chapter_imports("the_dials", source, "x") == [
        "x:1 (the_dials) imports servelab.lessons.paged_attention.words"
    ]
    assert cross_chapter_imports("compare", source, "x") != []  # a shared module, too
    assert cross_chapter_imports("paged_attention", source, "x") == []
    assert cross_chapter_imports("the_dials", "from servelab.lessons.paging import kv\n", "x") == []
