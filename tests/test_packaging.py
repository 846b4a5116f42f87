"""A non-editable install must find the default theme: it is packaged inside the wheel."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile

import pytest

from conftest import REPO


@pytest.mark.slow
def test_wheel_carries_the_default_theme_and_finds_it(tmp_path):
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(REPO)],
        capture_output=True, text=True,
    )
    assert built.returncode == 0, built.stderr
    wheel = next(tmp_path.glob("sessionsite-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    theme_files = sorted((REPO / "themes" / "default").rglob("*"))
    expected = {f"generator/themes/default/{p.relative_to(REPO / 'themes' / 'default').as_posix()}"
                for p in theme_files if p.is_file()}
    assert expected and expected <= names
    assert "generator/render/prices.json" in names  # the price table the estimated costs come from
    # Unpacked on its own, away from the source tree, the package finds the theme inside itself.
    unpacked = tmp_path / "site-packages"
    zipfile.ZipFile(wheel).extractall(unpacked)
    probe = subprocess.run(
        [sys.executable, "-I", "-c",
         ("import sys; sys.path.insert(0, sys.argv[1]); "
          "from generator.render.theme import default_theme_dir; print(default_theme_dir())"), str(unpacked)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == str(unpacked / "generator" / "themes" / "default")


@pytest.mark.slow
def test_an_installed_sessionsite_writes_the_same_manifest_as_the_checkout(tmp_path):
    """The settings digest in `.sessionsite-manifest.json` covers the code and the theme, each file by its
    name inside the package or the theme: a wheel, which holds the theme inside generator/, and a checkout,
    which holds it beside, write the same site byte for byte, manifest included."""
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(REPO)],
        capture_output=True, text=True,
    )
    assert built.returncode == 0, built.stderr
    unpacked = tmp_path / "site-packages"
    zipfile.ZipFile(next(tmp_path.glob("sessionsite-*.whl"))).extractall(unpacked)
    sites = {}
    for name, path in (("installed", unpacked), ("checkout", REPO)):
        out = tmp_path / name
        done = subprocess.run(
            [sys.executable, "-I", "-c",
             ("import sys; sys.path.insert(0, sys.argv.pop(1)); import generator; "
              "assert generator.__file__.startswith(sys.argv[1]), generator.__file__; sys.argv.pop(1); "
              "from generator.cli import main; main()"),
             str(path), str(path), "build", str(REPO / "examples"), "-o", str(out), "--no-vault", "-j", "1"],
            capture_output=True, text=True, cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr
        sites[name] = {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    manifest = ".sessionsite-manifest.json"
    assert sites["installed"][manifest] == sites["checkout"][manifest]
    assert sites["installed"] == sites["checkout"]


@pytest.mark.slow
def test_the_release_builds_with_pypa_build_and_passes_twine_check_strict(tmp_path):
    """What .github/workflows/release.yml does before it publishes: `python -m build` (the sdist, then the
    wheel built from the sdist, so a file the sdist leaves out fails here) and `twine check --strict` (the
    metadata and the README as PyPI renders them). Offline: the installed hatchling builds it."""
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path), str(REPO)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    from generator import __version__

    wheel, sdist = tmp_path / f"sessionsite-{__version__}-py3-none-any.whl", tmp_path / f"sessionsite-{__version__}.tar.gz"
    assert wheel.is_file() and sdist.is_file(), sorted(path.name for path in tmp_path.iterdir())
    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    with zipfile.ZipFile(wheel) as opened:
        metadata = opened.read(f"sessionsite-{__version__}.dist-info/METADATA").decode("utf-8")
        names = set(opened.namelist())
    assert f"\nVersion: {__version__}\n" in metadata and "License-Expression: MIT" in metadata
    assert "Requires-Python: >=3.10" in metadata and "pipx install sessionsite" in metadata
    assert f"sessionsite-{__version__}.dist-info/licenses/LICENSE" in names


def test_the_version_is_written_once_and_pyproject_reads_it_from_there():
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["hatch"]["version"]["path"] == "generator/__init__.py"


def test_version_says_sessionsite_s_version_and_the_claude_code_versions_it_reads():
    from click.testing import CliRunner

    from generator import CLAUDE_CODE_NEWEST, CLAUDE_CODE_OLDEST, __version__
    from generator.cli import main

    said = CliRunner().invoke(main, ["--version"]).output.strip()
    assert said == f"sessionsite, version {__version__} (reads Claude Code {CLAUDE_CODE_OLDEST} to {CLAUDE_CODE_NEWEST})"
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"from Claude Code {CLAUDE_CODE_OLDEST} to {CLAUDE_CODE_NEWEST}" in readme
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"({CLAUDE_CODE_OLDEST} to {CLAUDE_CODE_NEWEST})" in changelog


def test_the_changelog_keeps_a_changelog_s_form():
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert changelog.startswith("# Changelog\n") and "keepachangelog.com" in changelog
    versions = re.findall(r"^## \[([^\]]+)\]", changelog, re.MULTILINE)
    assert versions and versions[0] == "Unreleased"
    for version in versions:
        assert re.search(rf"^\[{re.escape(version)}\]: \S+$", changelog, re.MULTILINE), f"no link for {version}"
    assert set(re.findall(r"^### (\w+)", changelog, re.MULTILINE)) <= {"Added", "Changed", "Deprecated", "Removed",
                                                                       "Fixed", "Security"}
