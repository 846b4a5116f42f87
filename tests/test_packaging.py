"""A non-editable install must find the default theme: it is packaged inside the wheel."""

from __future__ import annotations

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
