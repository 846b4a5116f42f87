"""The `slow` marker: a developer's plain `pytest` skips the slow tests and says how to run them; `--runslow`
runs them, and so does CI (CI=true), which runs the README's plain command and so must run everything.

Each case runs pytest on a copy of tests/conftest.py beside a small test module of one slow and one
ordinary test, so that what is checked is the run a user sees, not the hook called by hand."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

A_SLOW_AND_AN_ORDINARY_TEST = '''
import pytest

@pytest.mark.slow
def test_a_slow_one():
    pass

def test_an_ordinary_one():
    pass

@pytest.mark.parametrize("speed", ["slow", "quick"])
def test_named_slow_but_not_marked(speed):
    pass
'''


def run_pytest(tmp_path: Path, *options: str, ci: str | None) -> str:
    tests = tmp_path / "tests"
    tests.mkdir()
    shutil.copy(REPO / "tests" / "conftest.py", tests / "conftest.py")
    (tests / "test_speeds.py").write_text(A_SLOW_AND_AN_ORDINARY_TEST, encoding="utf-8")
    env = {name: value for name, value in os.environ.items() if name != "CI"}
    if ci is not None:
        env["CI"] = ci
    done = subprocess.run([sys.executable, "-m", "pytest", "-v", "-rs", "-p", "no:cacheprovider", "-p", "no:xdist",
                           *options, str(tests)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def outcome(stdout: str, test: str) -> str:
    found = re.search(rf"::{re.escape(test)} (PASSED|SKIPPED|FAILED|ERROR)\b", stdout)
    assert found, stdout[-3000:]
    return found.group(1)


def test_a_plain_run_skips_slow_tests_and_says_how_to_run_them(tmp_path):
    stdout = run_pytest(tmp_path, ci=None)
    assert outcome(stdout, "test_a_slow_one") == "SKIPPED"
    assert outcome(stdout, "test_an_ordinary_one") == "PASSED"
    # A test whose name or parameter says "slow" is not marked slow, and runs.
    assert outcome(stdout, "test_named_slow_but_not_marked[slow]") == "PASSED"
    assert re.search(r"^SKIPPED \[1\] .*slow: run with --runslow or in CI$", stdout, re.MULTILINE), stdout[-3000:]
    assert "slow tests: skipped (run them with --runslow" in stdout


@pytest.mark.parametrize("options, ci", [(("--runslow",), None), ((), "true")], ids=["--runslow", "CI=true"])
def test_runslow_or_ci_runs_slow_tests(tmp_path, options, ci):
    stdout = run_pytest(tmp_path, *options, ci=ci)
    assert outcome(stdout, "test_a_slow_one") == "PASSED"
    assert outcome(stdout, "test_an_ordinary_one") == "PASSED"
    assert "SKIPPED" not in stdout
    assert "slow tests: run" in stdout


def test_an_empty_ci_variable_is_not_ci(tmp_path):
    """CI=true is what CI services set; an empty value, as a shell's `CI=` leaves, is a developer's run."""
    stdout = run_pytest(tmp_path, ci="")
    assert outcome(stdout, "test_a_slow_one") == "SKIPPED"


def test_the_slow_marker_is_registered():
    """Registered, so that `-m "not slow"` and `--strict-markers` know it, and a misspelt mark warns."""
    markers = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]["markers"]
    assert any(marker.startswith("slow:") for marker in markers)
