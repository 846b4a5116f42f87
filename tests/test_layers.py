"""The folders show the pipeline, and data flows one way: every import of every module (at the top, inside a
function, under TYPE_CHECKING) goes to its own layer or an earlier one (`generator.LAYERS`), and none goes
round in a circle."""

from __future__ import annotations

import ast
import shutil
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

from generator import LAYERS

PACKAGE = Path(__file__).resolve().parents[1] / "generator"


def module_names(root: Path) -> dict[str, Path]:
    """Every module under the package folder `root`, by dotted name; a package by `<package>.__init__`."""
    return {".".join((root.name, *path.relative_to(root).with_suffix("").parts)): path
            for path in sorted(root.rglob("*.py"))}


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that `name` imports, wherever in it the import is."""
    package = name.split(".")[:-1]  # a package's __init__ and its modules sit in the same package
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            # `from package import name` imports the module package.name when there is one.
            targets = [f"{module}.{alias.name}" for alias in node.names] + [module]
        else:
            continue
        for target in targets:
            for candidate in (target, f"{target}.__init__"):
                if candidate in modules:
                    found.add(candidate)
                    break
    return found - {name}


def import_graph(root: Path) -> dict[str, set[str]]:
    modules = module_names(root)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def layer_of(module: str) -> int | None:
    """The index in LAYERS of the longest entry naming the module or a package it is in."""
    best: tuple[int, int] | None = None
    for index, (_, entries) in enumerate(LAYERS):
        for entry in entries:
            if module == entry or module.startswith(entry + "."):
                if best is None or len(entry) > best[0]:
                    best = (len(entry), index)
    return best[1] if best else None


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    problems = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            here, there = layer_of(module), layer_of(target)
            if here is not None and there is not None and there > here:
                problems.append(f"{module} (layer {LAYERS[here][0]!r}) imports {target} "
                                f"(later layer {LAYERS[there][0]!r})")
    return problems


def cycle_in(graph: dict[str, set[str]]) -> list[str]:
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as error:
        return list(error.args[1])
    return []


def test_every_module_has_a_layer():
    assert [name for name in module_names(PACKAGE) if layer_of(name) is None] == []


def test_no_module_imports_from_a_later_layer():
    assert upward_imports(import_graph(PACKAGE)) == []


def test_no_imports_go_round_in_a_circle():
    assert cycle_in(import_graph(PACKAGE)) == []


def test_the_graph_sees_imports_inside_functions_and_packages():
    """The checks are only as good as the graph: the lazy import of the pipeline in build, a package
    imported whole, and a module imported from its package."""
    graph = import_graph(PACKAGE)
    assert "generator.pipeline.phase2" in graph["generator.build"]  # inside a function
    assert "generator.render.markdown.__init__" in graph["generator.render.html.pages"]  # `from ..markdown import`
    assert "generator.core.urls" in graph["generator.stages.discover"]  # `from ..core import urls`
    assert "generator.__init__" in graph["generator.pipeline.phase2"]  # `from . import __version__`


@pytest.mark.parametrize("module, line, caught_by", [
    # a stage reaching for the output layer, from inside a function as the lazy imports do
    ("stages/read.py", "def _late():\n    from ..output.write import Staging\n", upward_imports),
    ("render/markdown/__init__.py", "from ..search import FileSearchRecorder\n", upward_imports),
    ("output/manifest.py", "if False:\n    from ..pipeline.phase1 import collect\n", upward_imports),
    # two modules of one layer importing each other
    ("stages/summarize.py", "def _late():\n    from .link import link\n", cycle_in),
])
def test_the_checks_catch_an_injected_bad_import(tmp_path, module, line, caught_by):
    copy = tmp_path / "generator"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert caught_by(import_graph(copy)) == []
    with (copy / module).open("a", encoding="utf-8") as handle:
        handle.write("\n\n" + line)
    assert caught_by(import_graph(copy)) != []
