"""The `sessionsite` program ends its process without freeing the build's objects one by one (`generator.program`).
What a user sees must not change: every line written reaches the pipe, the exit code is Click's, the handlers
registered to run at exit run, and a thread still working is waited for as Python waits for it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES

REPO = Path(__file__).resolve().parents[1]


def program(*lines: str, argv: tuple[str, ...] = ("--version",)) -> subprocess.CompletedProcess[str]:
    """The program run as its console script runs it, after `lines` of Python set the scene."""
    source = "\n".join(["import sys", *lines, f"sys.argv = ['sessionsite', *{list(argv)!r}]",
                        "from generator.program import run", "run()"])
    return subprocess.run([sys.executable, "-c", source], cwd=REPO, capture_output=True, text=True, timeout=120)


def test_output_and_exit_code_reach_the_caller() -> None:
    ran = program()
    assert ran.returncode == 0
    assert ran.stdout.startswith("sessionsite, version ")


def test_a_usage_error_keeps_its_message_and_code(tmp_path: Path) -> None:
    ran = program(argv=("build", str(tmp_path / "nowhere"), "-o", str(tmp_path / "site")))
    assert ran.returncode == 2
    assert "does not exist" in ran.stderr


def test_a_failed_build_exits_1_with_its_message(tmp_path: Path) -> None:
    # An output folder that holds somebody's files is never replaced.
    output = tmp_path / "documents"
    output.mkdir()
    (output / "thesis.txt").write_text("mine")
    ran = program(argv=("build", str(EXAMPLES), "-o", str(output), "-q", "--no-vault", "-j", "1"))
    assert ran.returncode == 1
    assert "documents" in ran.stderr
    assert (output / "thesis.txt").read_text() == "mine"


def test_a_build_writes_its_site_and_summary(tmp_path: Path) -> None:
    output = tmp_path / "site"
    ran = program(argv=("build", str(EXAMPLES), "-o", str(output), "--no-vault", "-j", "2"))
    assert ran.returncode == 0, ran.stderr
    assert (output / "index.html").is_file()
    assert "session" in ran.stdout + ran.stderr


def test_handlers_registered_for_the_exit_run() -> None:
    ran = program("import atexit", "atexit.register(lambda: print('handler ran', flush=False))")
    assert ran.returncode == 0
    assert ran.stdout.splitlines()[-1] == "handler ran"


def test_text_written_without_a_flush_is_not_lost() -> None:
    # Piped stdout is block-buffered: what sits in the buffer at the end must still be written.
    ran = program("print('x' * 100_000, end='')")
    assert ran.returncode == 0
    assert ran.stdout.startswith("x" * 100_000)


def test_a_thread_still_running_is_waited_for() -> None:
    ran = program("import threading, time",
                  "threading.Thread(target=lambda: (time.sleep(0.5), print('thread finished'))).start()")
    assert ran.returncode == 0
    assert "thread finished" in ran.stdout


def test_a_closed_pipe_ends_quietly_with_code_1() -> None:
    # As Click ends any command whose reader went away (`sessionsite --help | head -0`).
    source = ("import sys; sys.argv = ['sessionsite', '--help']\n"
              "from generator.program import run\nrun()")
    with subprocess.Popen([sys.executable, "-c", source], cwd=REPO, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        error = process.stderr.read().decode()
        assert process.wait(timeout=60) == 1
    assert error == ""


def test_objects_are_left_to_the_operating_system() -> None:
    # The point of the program's own exit: a finaliser of an object alive at the end does not run.
    ran = program("class Held:", "    def __del__(self): print('freed one by one')", "held = Held()")
    assert ran.returncode == 0
    assert "freed one by one" not in ran.stdout


def test_a_profiler_still_writes_its_findings(tmp_path: Path) -> None:
    findings = tmp_path / "build.prof"
    ran = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(findings), "-m", "generator", "--version"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert findings.stat().st_size > 0


@pytest.mark.parametrize("code", ["0", "3", "'a message'"])
def test_an_exit_raised_by_a_command_keeps_its_meaning(code: str) -> None:
    ran = program("import click, generator.cli as cli",
                  "@cli.main.command('leave')", "def leave():", f"    sys.exit({code})", argv=("leave",))
    expected = {"0": 0, "3": 3, "'a message'": 1}[code]
    assert ran.returncode == expected
    if code == "'a message'":
        assert ran.stderr.strip() == "a message"
