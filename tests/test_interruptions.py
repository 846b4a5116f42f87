"""Builds that go wrong: interrupted, terminated, or run twice at once into the same output. Each is a real
process here, interrupted or signalled as a user or a CI runner would: an interrupted build exits
non-zero, swaps nothing in, leaves no worker running and no folder behind."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
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


# -- two builds into one output ----------------------------------------------------------------------------

PAUSED_BUILD = """
    import sys, time
    from pathlib import Path
    import generator.phases as phases
    from generator.cli import main

    ready, go = Path(sys.argv[1]), Path(sys.argv[2])
    real_build_site = phases.build_site

    def paused(staging, *args, **options):
        # The output is locked and the staging folder made: say where it is, and wait for the word.
        ready.write_text(str(staging.root))
        deadline = time.monotonic() + 300
        while not go.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return real_build_site(staging, *args, **options)

    phases.build_site = paused
    main(sys.argv[3:])
"""


def wait_for(path: Path, process: subprocess.Popen, count: int = 1) -> None:
    """Until `path` exists (a folder: holds `count` files), while `process` runs."""
    deadline = time.monotonic() + 300
    while not (len(list(path.iterdir())) >= count if path.is_dir() else path.exists()):
        if process.poll() is not None:
            raise AssertionError(f"exited with {process.returncode}: {process.communicate()}")
        assert time.monotonic() < deadline, f"{path} never came"
        time.sleep(0.05)


def sessionsite(*args: str) -> subprocess.CompletedProcess:
    process = python("import sys\nfrom generator.cli import main\nmain(sys.argv[1:])", *args)
    stdout, stderr = process.communicate(timeout=300)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def test_a_second_build_into_the_same_output_stops_at_once_and_leaves_the_first_alone(tmp_path, examples_site):
    out, ready, go = tmp_path / "out" / "site", tmp_path / "ready", tmp_path / "go"
    first = python(PAUSED_BUILD, str(ready), str(go), "build", str(EXAMPLES), "-o", str(out), "-q")
    try:
        wait_for(ready, first)
        staging = Path(ready.read_text())
        second = sessionsite("build", str(EXAMPLES), "-o", str(out), "-q")
        assert second.returncode == 2
        line, = second.stderr.strip().splitlines()
        assert str(out) in line and "another sessionsite command is writing it" in line
        assert staging.is_dir(), "the second build removed the first one's staging folder"
        # A build of another output beside it (which removes what dead builds left) leaves it alone too.
        assert sessionsite("build", str(EXAMPLES), "-o", str(tmp_path / "out" / "other"), "-q").returncode == 0
        assert staging.is_dir()
    finally:
        go.touch()
        stdout, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr
    assert snapshot(out) == snapshot(examples_site)  # whole, as if it had been alone
    assert sorted(p.name for p in out.parent.iterdir()) == ["other", "site"]  # no staging or lock left
    assert sessionsite("build", str(EXAMPLES), "-o", str(out), "-q").returncode == 0  # and not refused after
