"""Cohesive modules: no module of the package over 600 lines, no class over 250. The few still over are
named below, and the list can only shrink: a module or class that gets over is refused, and one on the list
that has come under (or is gone) must be taken off it."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path
from typing import Iterator

PACKAGE = Path(__file__).resolve().parents[1] / "generator"
MODULE_LINES = 600
CLASS_LINES = 250

LONG_MODULES: frozenset[str] = frozenset()
"""Modules still over `MODULE_LINES`, by their path inside the package."""
LONG_CLASSES: frozenset[str] = frozenset()
"""Classes still over `CLASS_LINES`, as `path::Class` (a nested class as `Outer.Inner`)."""


def classes_in(node: ast.AST, prefix: str = "") -> Iterator[tuple[str, ast.ClassDef]]:
    """Every class under `node`, nested ones too, by its dotted name (`Outer.Inner`)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef):
            yield prefix + child.name, child
            yield from classes_in(child, f"{prefix}{child.name}.")
        else:
            yield from classes_in(child, prefix)


def sizes(root: Path) -> tuple[dict[str, int], dict[str, int]]:
    """The lines of every module under `root`, and of every class in them (from its first decorator or its
    `class` line to its last line), by `path` and `path::Class`."""
    modules: dict[str, int] = {}
    classes: dict[str, int] = {}
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        modules[name] = len(text.splitlines())
        for dotted, node in classes_in(ast.parse(text, str(path))):
            first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            assert node.end_lineno is not None
            classes[f"{name}::{dotted}"] = node.end_lineno - first + 1
    return modules, classes


def too_long(root: Path) -> tuple[list[str], list[str]]:
    """The modules and classes over the limits that are not on the lists, and the entries of the lists that
    are no longer over (or no longer there)."""
    modules, classes = sizes(root)
    new = [f"{name}: {lines} lines (at most {MODULE_LINES})" for name, lines in modules.items()
           if lines > MODULE_LINES and name not in LONG_MODULES]
    new += [f"{name}: {lines} lines (at most {CLASS_LINES})" for name, lines in classes.items()
            if lines > CLASS_LINES and name not in LONG_CLASSES]
    fixed = [f"{name}: {modules.get(name, 'no such module')}" for name in sorted(LONG_MODULES)
             if modules.get(name, 0) <= MODULE_LINES]
    fixed += [f"{name}: {classes.get(name, 'no such class')}" for name in sorted(LONG_CLASSES)
              if classes.get(name, 0) <= CLASS_LINES]
    return new, fixed


def test_no_module_or_class_gets_over_the_limit():
    new, _ = too_long(PACKAGE)
    assert new == [], "split these along their seams, so each piece has one job:\n" + "\n".join(new)


def test_the_list_of_long_ones_only_shrinks():
    _, fixed = too_long(PACKAGE)
    assert fixed == [], "under the limit now (or gone): take them off LONG_MODULES / LONG_CLASSES:\n" + "\n".join(fixed)


def test_the_check_catches_a_long_module_and_a_long_class(tmp_path, monkeypatch):
    """The checks are only as good as the counting: a module grown past the limit and a class grown past
    its own (a decorated one, nested in another) are both found, and a listed module split up is noticed."""
    copy = tmp_path / "generator"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert too_long(copy) == ([], [])
    (copy / "core" / "grown.py").write_text("\n" * (MODULE_LINES + 1), encoding="utf-8")
    body = "".join(f"        field_{number}: int = {number}\n" for number in range(CLASS_LINES))
    (copy / "core" / "nested.py").write_text(
        f"class Outer:\n    @staticmethod\n    def make() -> None: ...\n\n    @dataclass\n    class Inner:\n{body}",
        encoding="utf-8")
    # A module listed as long, then split up, is noticed.
    listed = "stages/redact/redactor.py"
    monkeypatch.setitem(globals(), "LONG_MODULES", LONG_MODULES | {listed})
    (copy / listed).write_text("", encoding="utf-8")
    new, fixed = too_long(copy)
    assert new == ["core/grown.py: 601 lines (at most 600)", "core/nested.py::Outer: 256 lines (at most 250)",
                   "core/nested.py::Outer.Inner: 252 lines (at most 250)"]
    assert fixed == [f"{listed}: 0"]
