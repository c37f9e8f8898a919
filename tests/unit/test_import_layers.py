"""Imports inside servelab run down its layers, never up.

A part of servelab is a top-level module (``servelab/sizes.py``) or subpackage
(``servelab/engines/``); the package's own ``__init__`` is the part ``servelab``. Lowest first:

1. ``settings``, ``progress``: the environment variables, and progress bars;
2. ``hardware``, ``models``, ``sizes``, ``chapter``: the device, the model it serves, how a size
   profile is chosen, and what a chapter declares (its sizes, its figures);
3. ``env``: the runtime (platform, installs, the bootstrap);
4. ``engines``: the servers, where they run (``engines.placement``), their replicas and router;
5. ``bench``: workloads and measuring a running server;
6. ``tables``: result frames as the page shows them;
7. ``lessons``: each chapter's measurements, findings and words;
8. ``plots``: the figures;
9. ``book``, ``results``, ``smoke`` and the package's ``__init__``: the chapters in reading order
   (each declared in its package under ``lessons``), what a chapter records, the engine check,
   and the names every chapter imports.

A part may import from its own layer or one below it. This is the order the code keeps, which
differs from issue #52's first sketch in three places: ``env`` sits below ``engines`` (the
llama.cpp builds install with its ``pip``), ``tables`` below ``lessons`` (lessons print their
spreads with it) and ``plots`` above ``lessons`` (figures draw the lessons' findings). Because
``env`` reads the sizes (which the package's ``__init__`` hands down from ``book``), ``sizes`` has
to sit below ``engines``; that an engine reads neither the book's sizes nor a chapter's
declaration is a rule of its own (``FORBIDDEN``). Imports made only for type checking count.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from course.paths import REPO_ROOT
from servelab.book import CHAPTERS

PACKAGE = REPO_ROOT / "servelab"
LAYERS: tuple[frozenset[str], ...] = tuple(frozenset(layer) for layer in (
    {"settings", "progress"},
    {"hardware", "models", "sizes", "chapter"},
    {"env", "wall_time"},
    {"engines"},
    {"bench"},
    {"tables"},
    {"lessons"},
    {"plots"},
    {"book", "results", "smoke", "servelab"},
))
# Imports that run down the layers and are still refused: (importer, imported).
FORBIDDEN = {("engines", "sizes"), ("engines", "chapter")}


def layer_of(part: str) -> int:
    """The index of ``part``'s layer in ``LAYERS``; KeyError for a part with none."""
    for index, layer in enumerate(LAYERS):
        if part in layer:
            return index
    raise KeyError(part)


def part_of(module: str) -> str:
    """The part a dotted module name inside servelab belongs to: ``servelab.engines.router`` is
    ``engines``, ``servelab`` itself is ``servelab``."""
    names = module.split(".")
    return names[1] if len(names) > 1 else "servelab"


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
            found += [(node.lineno, f"servelab.{alias.name}" if is_part(alias.name) else "servelab")
                      for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
    return [(line, name) for line, name in found
            if name == "servelab" or name.startswith("servelab.")]


def upward_imports(part: str, source: str, where: str) -> list[str]:
    """The imports in ``source`` (of ``part``) that run up the layers or are ``FORBIDDEN``."""
    wrong = []
    for line, module in imported_modules(source):
        target = part_of(module)
        if target != part and (layer_of(target) > layer_of(part)
                               or (part, target) in FORBIDDEN):
            wrong.append(f"{where}:{line} ({part}) imports {module} ({target})")
    return wrong


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def module_part(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return "servelab" if relative == Path("__init__.py") else relative.parts[0].removesuffix(".py")


def test_every_part_of_servelab_has_a_layer():
    parts = {module_part(path) for path in modules()}
    assert sorted(part for part in parts if not any(part in layer for layer in LAYERS)) == []
    assert set().union(*LAYERS) <= parts  # no layer names a part that is gone


def test_imports_run_down_the_layers():
    wrong = []
    for path in modules():
        wrong += upward_imports(module_part(path), path.read_text(encoding="utf-8"),
                                str(path.relative_to(PACKAGE.parent)))
    assert wrong == []


def test_an_import_up_the_layers_or_a_forbidden_one_is_caught():
    assert upward_imports("engines", "from servelab.lessons import thresholds\n", "x") == [
        "x:1 (engines) imports servelab.lessons (lessons)"]
    assert upward_imports("engines", "from servelab import Server\n", "x") != []
    assert upward_imports("engines", "import servelab.sizes as s\n", "x") != []
    assert upward_imports("lessons", "from servelab import bench, tables\n", "x") == []


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
        wrong += cross_chapter_imports(owner, path.read_text(encoding="utf-8"),
                                       str(path.relative_to(PACKAGE.parent)))
    assert wrong == []


def test_an_import_of_another_chapters_package_is_caught():
    source = "from servelab.lessons.paged_attention.words import fit_text\n"
    assert cross_chapter_imports("the_dials", source, "x") == [
        "x:1 (the_dials) imports servelab.lessons.paged_attention.words"]
    assert cross_chapter_imports("compare", source, "x") != []  # a shared module, too
    assert cross_chapter_imports("paged_attention", source, "x") == []
    assert cross_chapter_imports("the_dials", "from servelab.lessons.paging import kv\n",
                                 "x") == []
