"""Static checks, run with the tests so that CI runs them: mypy, strict, over the generator package, and
ruff's lint rules over the whole repository (both configured in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import REPO

PYPROJECT = REPO / "pyproject.toml"


def run(*command: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=cwd, capture_output=True, text=True)


def test_mypy_finds_no_error_in_the_package():
    result = run("mypy")
    assert result.returncode == 0, f"mypy found errors:\n{result.stdout}{result.stderr}"
    # It read every module of the package, not some other selection of files.
    modules = len(list((REPO / "generator").rglob("*.py")))
    assert f"no issues found in {modules} source files" in result.stdout, result.stdout


def test_ruff_finds_nothing_in_the_repository():
    result = run("ruff", "check", "--no-cache", ".")
    assert result.returncode == 0, f"ruff found problems:\n{result.stdout}{result.stderr}"


def test_the_checks_catch_what_they_are_configured_for(tmp_path):
    """A module with one mistake of each kind the configuration exists for: so that the two tests above
    cannot pass because a setting stopped applying."""
    module = tmp_path / "sloppy.py"
    module.write_text(
        "from markupsafe import Markup\n"
        "\n"
        "\n"
        "def untyped(text):\n"
        "    return Markup(f'<b>{text}</b>')\n"
        "\n"
        "\n"
        "__all__ = ['untyped', 'missing']\n",
        encoding="utf-8",
    )
    typed = run("mypy", "--config-file", str(PYPROJECT), "--no-incremental", str(module), cwd=tmp_path)
    assert typed.returncode == 1, typed.stdout + typed.stderr
    assert "[no-untyped-def]" in typed.stdout  # strict
    linted = run("ruff", "check", "--no-cache", "--config", str(PYPROJECT), str(module), cwd=tmp_path)
    assert linted.returncode == 1, linted.stdout + linted.stderr
    for code in ("S704", "F822"):  # Markup over a non-literal; a name in __all__ that is not defined
        assert code in linted.stdout, linted.stdout
