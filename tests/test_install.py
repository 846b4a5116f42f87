"""A fresh machine: the README's commands work as written, and CI builds with pinned dependencies.

- `constraints.txt` pins every runtime and test dependency (transitively) to the versions CI and the
  committed `site/` are built with; the README's test command, and so `.ci/run`, installs with it.
- The README's install-and-try commands, run as written in a copy of the repository by a `python3` with
  nothing installed, into a virtual environment (Debian and Ubuntu refuse `pip install` outside one).
- In CI nothing skips for a missing input: the tests that read the real logs fail there without them.
- The GitHub Pages workflow (docs/publish-sessions.yml), which publishes a site already built: its shell
  steps run here, in a stand-in for the runner's workspace, with the actions it uses stood in for.

The README's install runs with no network: pip takes the pinned versions (PIP_CONSTRAINT) from the
wheelhouse `.ci/run` fills before the tests (`.wheelhouse/`, PIP_NO_INDEX), and builds nothing but
sessionsite itself. Without a wheelhouse the test skips (fails in CI): a test never downloads.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
from shlex import quote as shlex_quote
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import EXAMPLES, REPO, skip_unless_in_ci

README = (REPO / "README.md").read_text(encoding="utf-8")
CONSTRAINTS = REPO / "constraints.txt"


def readme_commands(heading: str) -> str:
    """The first ```sh block of the README's section `heading` (## or ###), as a reader would copy it."""
    section = README.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, f"no sh block under {heading!r}"
    return block.group(1).strip()


# -- pinned dependencies -----------------------------------------------------------------------------------


def pinned() -> dict[str, str]:
    """The pins that hold for this Python on this platform: the file is one resolution for every supported
    Python and platform (`--universal`), a pin whose marker names another left out."""
    pins = {}
    for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            requirement = Requirement(line)
            [specifier] = requirement.specifier
            assert specifier.operator == "==", f"constraints.txt: {line!r} is not pinned with =="
            if requirement.marker is None or requirement.marker.evaluate():
                name = canonicalize_name(requirement.name)
                assert name not in pins, f"constraints.txt: two pins of {name} hold at once"
                pins[name] = specifier.version
    return pins


def needed() -> dict[str, str]:
    """Every distribution sessionsite and its test extra need, transitively, by name: who needs it.
    The first level comes from pyproject.toml; the rest from the installed packages' metadata."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+, which CI runs
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = map(Requirement, project["dependencies"] + project["optional-dependencies"]["test"])
    pending = [(requirement, "sessionsite") for requirement in requirements
               if requirement.marker is None or requirement.marker.evaluate()]  # tomli: only before 3.11
    found: dict[str, str] = {}
    seen: set[tuple[str, frozenset[str]]] = set()
    while pending:
        requirement, by = pending.pop()
        name = canonicalize_name(requirement.name)
        if (name, frozenset(requirement.extras)) in seen:
            continue
        seen.add((name, frozenset(requirement.extras)))
        found.setdefault(name, by)
        try:
            distribution = importlib.metadata.distribution(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            pytest.fail(f"{requirement.name} (needed by {by}) is not installed: run the README's test command")
        for raw in distribution.requires or []:
            child = Requirement(raw)
            extras = requirement.extras or {""}
            if child.marker is None or any(child.marker.evaluate({"extra": extra}) for extra in extras):
                pending.append((child, name))
    return found


def test_constraints_pin_every_runtime_and_test_dependency():
    pins = pinned()
    missing = sorted(f"{name} (needed by {by})" for name, by in needed().items() if name not in pins)
    assert missing == [], "not in constraints.txt; regenerate it (README, Develop): " + ", ".join(missing)


def test_the_tests_run_with_the_pinned_versions():
    """site/ is checked against a build made here: that means something only with the pinned versions."""
    pins = pinned()
    different = sorted(f"{name} {importlib.metadata.version(name)} (pinned {pins[name]})"
                       for name in needed() if name in pins and importlib.metadata.version(name) != pins[name])
    assert different == [], "installed without -c constraints.txt (run the README's test command): " + \
        ", ".join(different)


def test_constraints_say_how_they_were_made_and_the_readme_says_it_too():
    header = CONSTRAINTS.read_text(encoding="utf-8").splitlines()[:2]
    assert header[0].startswith("# This file was autogenerated by uv")
    command = header[1].lstrip("# ").strip()
    assert command.startswith("uv pip compile pyproject.toml --extra test")
    assert f"\n{command}\n" in README


def test_the_readme_test_command_installs_with_the_constraints_and_ci_runs_exactly_it():
    command = readme_commands("## Develop")
    assert "\n" not in command
    assert "-c constraints.txt" in command and "pytest" in command
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert command in ci.splitlines(), ".ci/run must run the README's test command verbatim"


# -- no silent skip in CI ------------------------------------------------------------------------------------

CORPUS_TESTS = ("test_corpus.py", "test_links.py", "test_bundle.py")


@pytest.mark.slow
@pytest.mark.parametrize("in_ci", [True, False], ids=["CI", "developer"])
def test_corpus_tests_fail_in_ci_without_the_corpus(tmp_path, in_ci):
    """The test modules that read ../shared/corpus/public, run from a copy of tests/ that has no corpus
    beside it: on a developer's machine they skip; in CI (CI=true) every one of them fails."""
    tests = tmp_path / "repository" / "tests"
    shutil.copytree(REPO / "tests", tests, ignore=shutil.ignore_patterns("__pycache__"))
    env = {name: value for name, value in os.environ.items() if name != "CI"}
    if in_ci:
        env["CI"] = "true"
    done = subprocess.run([sys.executable, "-m", "pytest", "-v", "-rsfE", "-p", "no:cacheprovider", "--runslow", "-k", "corpus",
                           *(str(tests / name) for name in CORPUS_TESTS)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    outcomes: dict[str, set[str]] = {}
    for line in done.stdout.splitlines():
        found = re.match(r"\S*?([\w]+\.py)::\S+ (PASSED|FAILED|SKIPPED|ERROR)\b", line)
        if found:
            outcomes.setdefault(found.group(1), set()).add(found.group(2))
    # In CI the fixture fails (pytest calls a failing fixture an ERROR); elsewhere it skips.
    allowed = {"FAILED", "ERROR"} if in_ci else {"SKIPPED"}
    assert set(outcomes) == set(CORPUS_TESTS), done.stdout[-3000:]
    assert all(found <= allowed for found in outcomes.values()), done.stdout[-3000:]
    # Why, in the run's header and in each skip (`-rs`) or failure: where the corpus was looked for, and
    # that only the project's own checkout has it beside it.
    missing = str(tmp_path / "shared" / "corpus" / "public")
    assert re.search(r"^public corpus: not at .*shared/corpus/public", done.stdout, re.MULTILINE), done.stdout[:2000]
    reasons = [line for line in done.stdout.splitlines() if line.startswith(("SKIPPED [", "ERROR ", "FAILED "))]
    assert reasons, done.stdout[-3000:]
    for line in reasons:
        assert missing in line and "only the project's checkout has it" in line, line


# -- the README's install, on a fresh machine --------------------------------------------------------------

NOT_COPIED = shutil.ignore_patterns(".git", ".venv", ".wheelhouse", "demo", "site", "build", "dist", "__pycache__", "*.egg-info",
                                    ".pytest_cache", ".hypothesis", ".benchmarks", ".mypy_cache", ".ruff_cache")


def copy_of_the_repository(target: Path) -> Path:
    shutil.copytree(REPO, target, ignore=NOT_COPIED)
    return target


SYSTEM_PATH = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")


def fresh_machine_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a shell whose `python3` is this Python without anything installed: the base
    interpreter (not the test's virtual environment), first on PATH, and no variable that would point
    Python or pip at what the tests run with."""
    bin_dir = tmp_path / "fresh-bin"
    bin_dir.mkdir()
    base = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    (bin_dir / "python3").symlink_to(base)
    env = {name: value for name, value in os.environ.items()
           if name not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP") and not name.startswith("PIP_")}
    # The system's folders only: no pyenv shim, ~/.local/bin or virtual environment lends a pip or a
    # sessionsite that a fresh machine would not have (Debian's own pip, if there, refuses: PEP 668).
    env["PATH"] = os.pathsep.join([str(bin_dir), *SYSTEM_PATH])
    env["PIP_CONSTRAINT"] = str(CONSTRAINTS)  # also holds for the isolated build of the wheel
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def run_shell(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


WHEELHOUSE = REPO / ".wheelhouse"
FILL_THE_WHEELHOUSE = ".venv/bin/pip download -q -c constraints.txt -d .wheelhouse . hatchling"


def test_ci_fills_the_wheelhouse_the_install_test_reads_as_the_readme_says():
    """The command the install test's skip message gives is the one CI runs and the README shows."""
    assert FILL_THE_WHEELHOUSE in (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert f"\n{FILL_THE_WHEELHOUSE}\n" in README


@pytest.mark.slow
def test_the_readme_install_and_try_commands_work_as_written(tmp_path):
    if not any(WHEELHOUSE.glob("*.whl")):
        skip_unless_in_ci(f"no wheels in {WHEELHOUSE} to install from without the network: run `{FILL_THE_WHEELHOUSE}`")
    commands = readme_commands("### From a clone")
    clone = copy_of_the_repository(tmp_path / "sessionsite")
    env = fresh_machine_env(tmp_path)
    env["PIP_NO_INDEX"] = "1"  # the wheelhouse or nothing: a package missing from it fails the test
    env["PIP_FIND_LINKS"] = str(WHEELHOUSE)
    done = run_shell(commands, clone, env)
    assert done.returncode == 0, f"{commands}\n{done.stdout}\n{done.stderr}"
    assert (clone / "demo" / "index.html").is_file()
    # As the README says: the hostile example's five input problems are reported, and that is all.
    assert "5 input problem(s)" in done.stderr


# -- the GitHub Pages workflow ---------------------------------------------------------------------------

WORKFLOW = REPO / "docs" / "publish-sessions.yml"
SITE_FOLDER = "sessions-site"


def _run_pages_workflow(tmp_path: Path, leave_a_log: bool) -> tuple[Path | None, str]:
    """Each step of the build job, in order: `run:` steps as they are written (bash, as on the runner), the
    actions stood in for: the repository's checkout (a site the user built with sessionsite and committed
    under sessions-site/, and, if `leave_a_log`, a log left in it by mistake), configure-pages, and
    upload-pages-artifact (the folder it would publish). Returns that folder (None when a step failed) and
    what the failing step said."""
    from click.testing import CliRunner

    from generator.cli import main

    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    env = fresh_machine_env(tmp_path)
    uploaded = None
    for step in workflow["jobs"]["build"]["steps"]:
        action, given = step.get("uses", "").split("@")[0], step.get("with", {})
        if "run" in step:
            assert "${{" not in step["run"]
            done = run_shell(step["run"], workspace, env)
            if done.returncode != 0:
                return None, done.stdout + done.stderr
        elif action == "actions/checkout":
            site = workspace / SITE_FOLDER
            built = CliRunner().invoke(main, ["build", str(EXAMPLES / "-Users-grace-work-ledger-api"), "-o", str(site),
                                              "--no-vault", "-j", "1", "-q"])
            assert built.exit_code == 0, built.output
            if leave_a_log:
                shutil.copy(next((EXAMPLES / "-Users-grace-work-ledger-api").glob("*.jsonl")), site / "projects")
        elif action == "actions/configure-pages":
            pass
        elif action == "actions/upload-pages-artifact":
            uploaded = workspace / given["path"]
        else:
            pytest.fail(f"no stand-in for the step {step}")
    return uploaded, ""


def test_the_pages_workflow_publishes_the_built_site_it_is_given(tmp_path):
    uploaded, said = _run_pages_workflow(tmp_path, leave_a_log=False)
    assert uploaded is not None, said
    assert uploaded.name == SITE_FOLDER and (uploaded / "index.html").is_file()


def test_the_pages_workflow_refuses_a_folder_holding_a_log(tmp_path):
    uploaded, said = _run_pages_workflow(tmp_path, leave_a_log=True)
    assert uploaded is None
    assert "holds session logs" in said and ".jsonl" in said


# -- the release's wheel, installed as pipx or uv tool would --------------------------------------------------


@pytest.mark.slow
def test_the_built_wheel_installs_into_a_fresh_environment_offline_and_works(tmp_path):
    """What `pipx install sessionsite` does, from the wheel a release publishes: a virtual environment of its
    own, then `pip install sessionsite` finding the wheel and every dependency in folders (the wheelhouse),
    with no index. Then `sessionsite --version` and the README's build of the examples."""
    if not any(WHEELHOUSE.glob("*.whl")):
        skip_unless_in_ci(f"no wheels in {WHEELHOUSE} to install from without the network: run `{FILL_THE_WHEELHOUSE}`")
    from generator import CLAUDE_CODE_VERSIONS, __version__

    dist = tmp_path / "dist"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                            str(dist), str(REPO)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    env = fresh_machine_env(tmp_path)
    env["PIP_NO_INDEX"] = "1"
    env["PIP_FIND_LINKS"] = f"{dist} {WHEELHOUSE}"
    script = ("python3 -m venv tool && tool/bin/pip install -q sessionsite && tool/bin/sessionsite --version"
              f" && tool/bin/sessionsite build {shlex_quote(str(EXAMPLES))} -o demo --no-vault -j 1")
    done = run_shell(script, tmp_path, env)
    assert done.returncode == 0, f"{script}\n{done.stdout}\n{done.stderr}"
    assert f"sessionsite, version {__version__} (reads Claude Code {CLAUDE_CODE_VERSIONS})" in done.stdout
    assert (tmp_path / "demo" / "index.html").is_file() and "5 input problem(s)" in done.stderr
    # The installed copy is the wheel's, not this checkout's.
    assert not list((tmp_path / "tool").rglob("__editable__*"))


def test_the_readme_puts_the_install_from_pypi_first_and_the_clone_after():
    section = README.split("\n## Install and try it\n", 1)[1].split("\n## ", 1)[0]
    first = readme_commands("## Install and try it")
    for command in ("pipx install sessionsite", "uv tool install sessionsite", "uvx sessionsite build"):
        assert command in first, command
    assert section.index("pipx install sessionsite") < section.index("### From a clone")
    assert "git+https://" not in README
