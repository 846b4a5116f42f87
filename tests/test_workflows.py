"""The GitHub Actions workflows: ours (.github/workflows/) and the one users copy to publish their sessions
on Pages (docs/publish-sessions.yml). Each validates against GitHub's workflow schema (check-jsonschema's
vendored copy, so nothing is downloaded) and passes zizmor's offline audits with no finding of medium
severity or above; and they do what the release needs: tests on Linux, macOS and Windows with the oldest
and newest Python, and a release that publishes the wheel it tested with PyPI's trusted publishing."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
EVERY_WORKFLOW = [*WORKFLOWS, REPO / "docs" / "publish-sessions.yml"]
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


def tool(name: str) -> str:
    """A console script installed beside this Python (the test extra brings them)."""
    folder = Path(sys.executable).parent
    found = shutil.which(name, path=str(folder)) or shutil.which(name)
    assert found, f"{name} is not installed: run the README's test command"
    return found


def check_schema(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *map(str, paths)],
                          capture_output=True, text=True, timeout=120)


def zizmor(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tool("zizmor"), "--offline", "--no-progress", "--min-severity", "medium", *map(str, paths)],
                          capture_output=True, text=True, timeout=120)


def load(path: Path) -> dict:
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    workflow["on"] = workflow.pop(True, workflow.get("on"))  # YAML 1.1 reads a bare `on:` as true
    return workflow


def steps(workflow: dict) -> list[tuple[str, dict]]:
    return [(name, step) for name, job in workflow["jobs"].items() for step in job.get("steps", [])]


def test_there_are_workflows_for_the_tests_and_the_release():
    assert {path.name for path in WORKFLOWS} >= {"tests.yml", "release.yml"}


@pytest.mark.parametrize("path", EVERY_WORKFLOW, ids=lambda path: path.name)
def test_the_workflow_validates_against_github_s_schema(path):
    done = check_schema(path)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("path", EVERY_WORKFLOW, ids=lambda path: path.name)
def test_zizmor_finds_nothing_of_medium_severity_or_above(path):
    done = zizmor(path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_checks_fail_a_workflow_that_is_invalid_or_unsafe(tmp_path):
    """The two checks above can fail: a job with no runner fails the schema; a tag name spliced into a
    shell script (template injection), an action by a tag that can move and a checkout that leaves its
    token on disk fail zizmor."""
    invalid = tmp_path / "invalid.yml"
    invalid.write_text("name: x\non: push\njobs:\n  build:\n    steps:\n      - run: echo hi\n", encoding="utf-8")
    assert check_schema(invalid).returncode != 0
    unsafe = tmp_path / "unsafe.yml"
    unsafe.write_text("""name: x
on:
  push:
    tags: ["v*"]
permissions: {}
jobs:
  build:
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
      - uses: actions/checkout@v4
      - run: echo "${{ github.event.head_commit.message }}"
""", encoding="utf-8")
    assert check_schema(unsafe).returncode == 0
    said = zizmor(unsafe)
    assert said.returncode != 0
    for audit in ("template-injection", "unpinned-uses", "artipacked"):
        assert audit in said.stdout, said.stdout


@pytest.mark.parametrize("path", EVERY_WORKFLOW, ids=lambda path: path.name)
def test_every_action_is_pinned_to_a_commit_and_no_checkout_keeps_its_token(path):
    workflow = load(path)
    assert workflow.get("permissions") == {}, "permissions are granted job by job, none to the workflow"
    for job, step in steps(workflow):
        if "uses" in step:
            assert PINNED.match(step["uses"]), f"{path.name}, {job}: {step['uses']} is not pinned to a commit"
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") is False, f"{path.name}, {job}"


def test_the_tests_run_on_linux_macos_and_windows_with_the_oldest_and_newest_python():
    workflow = load(REPO / ".github" / "workflows" / "tests.yml")
    matrix = workflow["jobs"]["test"]["strategy"]["matrix"]
    assert {os.split("-")[0] for os in matrix["os"]} == {"ubuntu", "macos", "windows"}
    assert set(matrix["python"]) == {"3.10", "3.13"}
    runs = [step["run"] for _, step in steps(workflow) if "run" in step]
    assert any("-c constraints.txt" in run and ".[test]" in run for run in runs)
    assert any("pytest" in run for run in runs)


def test_the_release_publishes_the_tested_wheel_with_trusted_publishing_and_no_stored_token():
    path = REPO / ".github" / "workflows" / "release.yml"
    text = path.read_text(encoding="utf-8")
    workflow = load(path)
    assert workflow["on"]["push"]["tags"] == ["v*"]
    assert "secrets." not in text and "password" not in text
    jobs = workflow["jobs"]
    # Only the job that publishes may ask for an OIDC token, and it publishes only after the wheel was tested.
    with_token = [name for name, job in jobs.items() if job.get("permissions", {}).get("id-token") == "write"]
    assert with_token == ["publish"]
    assert set(jobs["publish"]["needs"]) == {"build", "test-wheel"}
    assert jobs["publish"]["environment"]["name"] == "pypi"
    assert any(step.get("uses", "").startswith("pypa/gh-action-pypi-publish@") for step in jobs["publish"]["steps"])
    building = " ".join(step.get("run", "") for step in jobs["build"]["steps"])
    assert "python -m build" in building and "twine check --strict" in building
    testing = " ".join(step.get("run", "") for step in jobs["test-wheel"]["steps"])
    assert "--version" in testing and "build examples" in testing
    assert {os.split("-")[0] for os in jobs["test-wheel"]["strategy"]["matrix"]["os"]} == {"ubuntu", "macos", "windows"}
