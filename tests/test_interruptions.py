"""Builds that go wrong: interrupted, terminated, or run twice at once into the same output. Each is a real
process here, interrupted or signalled as a user or a CI runner would: an interrupted build exits
non-zero, swaps nothing in, leaves no worker running and no folder behind."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from generator.build import BuildConfig, build

from conftest import EXAMPLES, REPO


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def python(script: str, *args: str, **options) -> subprocess.Popen:
    """A Python process running `script` with this checkout's sessionsite."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(script), *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **options)


def test_ctrl_c_inside_the_sanitisers_callback_stops_the_build_and_swaps_nothing_in(tmp_path):
    """nh3 calls back into Python for every attribute; an interrupt raised there (as Ctrl-C is, when the
    signal comes while nh3 runs) must stop the build, not leave a page without its links."""
    out = tmp_path / "site"
    build(BuildConfig(inputs=(EXAMPLES,), output=out))
    before = snapshot(out)
    process = python("""
        import sys
        import nh3
        from generator.cli import main

        real_clean, calls = nh3.clean, [0]

        def clean(html, **options):
            inner = options["attribute_filter"]

            def interrupted(element, attribute, value):
                calls[0] += 1
                if calls[0] == 40:
                    raise KeyboardInterrupt
                return inner(element, attribute, value)

            return real_clean(html, **{**options, "attribute_filter": interrupted})

        nh3.clean = clean
        main(["build", sys.argv[1], "-o", sys.argv[2], "-j", "1", "--show-hidden"])
    """, str(EXAMPLES), str(out))
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode != 0, stderr
    assert snapshot(out) == before  # --show-hidden would have changed every page: nothing was swapped in
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # and no staging folder is left
