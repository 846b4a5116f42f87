"""Builds that go wrong: interrupted, terminated, or run twice at once into the same output. Each is a real
process here, interrupted or signalled as a user or a CI runner would: an interrupted build exits
non-zero, swaps nothing in, leaves no worker running and no folder behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from generator.build import BuildConfig, build

from conftest import CTRL_C_AS_AT_A_TERMINAL, EXAMPLES, REPO


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def python(script: str, *args: str, **options) -> subprocess.Popen:
    """A Python process running `script` with this checkout's sessionsite."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen([sys.executable, "-c", CTRL_C_AS_AT_A_TERMINAL + textwrap.dedent(script), *args],
                            env=env, text=True,
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
    import generator.pipeline.phase2 as phase2
    from generator.cli import main

    ready, go = Path(sys.argv[1]), Path(sys.argv[2])
    real_build_site = phase2.build_site

    def paused(staging, *args, **options):
        # The output is locked and the staging folder made: say where it is, and wait for the word.
        ready.write_text(str(staging.root))
        deadline = time.monotonic() + 300
        while not go.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return real_build_site(staging, *args, **options)

    phase2.build_site = paused
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


# -- SIGTERM and SIGKILL with worker processes -------------------------------------------------------------

BUILD_WITH_STUCK_WORKERS = """
    import os, sys, time
    from pathlib import Path
    import generator.pipeline.phase2 as phase2
    from generator.cli import main

    workers = Path(sys.argv[1])

    def stuck(self, session_file, previous=None):
        # Phase 2, in a worker process, with the staging folder made: note the worker, and take forever.
        (workers / str(os.getpid())).touch()
        time.sleep(300)

    phase2.FileRenderer.__call__ = stuck
    main(sys.argv[2:])
"""


def alive(pid: int) -> bool:
    """Running (a zombie, dead but not yet collected by its parent, is not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def stuck_build(tmp_path: Path, output: str) -> tuple[subprocess.Popen, Path, list[int]]:
    """A build with two workers, both stuck in phase 2; returns it, its output folder and the workers."""
    out_folder, workers = tmp_path / "out", tmp_path / "workers"
    out_folder.mkdir()
    workers.mkdir()
    process = python(BUILD_WITH_STUCK_WORKERS, str(workers), "build", str(EXAMPLES), "-o", str(out_folder / output),
                     "-j", "2", "-q")
    wait_for(workers, process, count=2)
    return process, out_folder, [int(p.name) for p in workers.iterdir()]


@pytest.fixture
def no_stray_workers():
    """Workers a failing test leaves running are killed, so that they do not outlive it."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def wait_until_dead(pids: list[int]) -> list[int]:
    deadline = time.monotonic() + 60
    while any(map(alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if alive(pid)]


@pytest.mark.parametrize("output", ["site", "sessions.zip"])
@pytest.mark.parametrize("stop, exit_code", [(signal.SIGTERM, 128 + signal.SIGTERM), (signal.SIGINT, 1)],
                         ids=["SIGTERM", "Ctrl-C"])
def test_a_signal_stops_the_workers_and_removes_the_staging_and_work_folders(tmp_path, output, stop, exit_code,
                                                                            no_stray_workers):
    process, out_folder, workers = stuck_build(tmp_path, output)
    no_stray_workers.extend(workers)
    process.send_signal(stop)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == exit_code
    assert "Traceback" not in stderr and "Error" not in stderr, stderr
    assert wait_until_dead(workers) == []
    assert list(out_folder.iterdir()) == []  # no staging folder, zip work folder or lock; nothing swapped in


@pytest.mark.parametrize("output", ["site", "sessions.zip"])
def test_after_sigkill_the_workers_die_and_the_next_build_of_any_output_removes_the_leftovers(tmp_path, output,
                                                                                              no_stray_workers):
    process, out_folder, workers = stuck_build(tmp_path, output)
    no_stray_workers.extend(workers)
    process.kill()
    process.communicate(timeout=120)
    assert wait_until_dead(workers) == []
    assert list(out_folder.iterdir()) != []  # what the killed build was writing: nobody could clean up
    elsewhere = tmp_path / "elsewhere" / "site"
    assert sessionsite("build", str(EXAMPLES), "-o", str(elsewhere), "-q").returncode == 0
    assert list(out_folder.iterdir()) == []
