from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.build import BuildConfig, BuildReport, build

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
# Real logs written by Claude Code, beside the repository (never copied into it); CI has them there too.
PUBLIC_CORPUS = REPO.parent / "shared" / "corpus" / "public"
IN_CI = bool(os.environ.get("CI"))
CORPUS_MISSING = (f"the public corpus is not at {PUBLIC_CORPUS}: these tests read real Claude Code logs kept beside "
                  "the repository, and only the project's checkout has it (a clone elsewhere skips them; CI, with "
                  "CI=true, fails them)")
SLOW_SKIPPED = "slow: run with --runslow or in CI"


def pytest_addoption(parser) -> None:
    parser.addoption("--runslow", action="store_true", default=False,
                     help="also run the tests marked slow (skipped by default outside CI, where CI=true runs them)")


def runs_slow_tests(config) -> bool:
    """CI runs every test with the README's plain command; a developer's `pytest` leaves out the slow ones
    (fuzzing, memory, the real CLI, the install, the corpus sweeps) unless asked for them."""
    return IN_CI or bool(config.getoption("--runslow"))


def pytest_report_header(config) -> list[str]:
    """Said once at the top of a run: whether the tests that read the real logs can run here, and whether
    the slow tests run."""
    if corpus_files("*.jsonl"):
        corpus = f"public corpus: {PUBLIC_CORPUS}"
    else:
        corpus = (f"public corpus: not at {PUBLIC_CORPUS}, so the tests that read it "
                  f"{'fail (CI=true)' if IN_CI else 'skip (-rs says which)'}: only the project's checkout has it "
                  "beside it")
    slow = ("slow tests: run" if runs_slow_tests(config)
            else "slow tests: skipped (run them with --runslow; CI=true always runs them)")
    return [corpus, slow]


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own, which reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    """Every test that drives the browser is marked `browser`, so `pytest -m browser` runs them alone.

    The tests run on several worker processes (pytest-xdist's loadgroup, pyproject.toml), each test where
    a worker is free, except for groups that go to one worker together:
    - the tests of a module that share a module-scoped fixture (a build and the pages parsed from it),
      browser tests among them: spread over the workers, each would make it again;
    - the other browser tests: one Chromium is started for them, and only one worker runs it beside forked
      build workers. (A module's group with browser tests starts a second where it runs; kept together,
      the browser tests would be a third of the run's work on one worker.)

    Tests marked `slow` skip, naming --runslow, unless it is given or the run is CI's."""
    skip_slow = None if runs_slow_tests(config) else pytest.mark.skip(reason=SLOW_SKIPPED)
    for item in items:
        if skip_slow and item.get_closest_marker("slow"):
            item.add_marker(skip_slow)
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
        if uses_a_module_scoped_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
        elif "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("browser"))


def uses_a_module_scoped_fixture(item) -> bool:
    fixtures = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    return any(definitions and definitions[-1].scope == "module" for definitions in fixtures.values())


def skip_unless_in_ci(reason: str):
    """A missing browser-test requirement skips on a developer's machine; in CI it fails, because there a
    skip would hide that .ci/run did not install it."""
    if IN_CI:
        pytest.fail(f"CI must provide this: {reason}")
    pytest.skip(reason)


NPM_CACHE = Path(os.environ.get("SESSIONSITE_NPM_CACHE", REPO / ".npm-cache"))
"""Where .ci/run puts the pinned Claude Code, for the tests that run it (installed from there, offline)."""


def pinned_claude_code(tmp_path_factory) -> Path:
    """The pinned Claude Code (tests/realclient/generate.py's PINNED_VERSION), installed from the npm cache
    .ci/run fills, with no network."""
    sys.path.insert(0, str(REPO / "tests" / "realclient"))
    import generate

    if not shutil.which("npm") or not shutil.which("node"):
        skip_unless_in_ci("npm and node are needed to run the real Claude Code CLI")
    if not NPM_CACHE.is_dir():
        skip_unless_in_ci(f"no npm cache with @anthropic-ai/claude-code@{generate.PINNED_VERSION} at {NPM_CACHE} "
                          "(.ci/run fills it; or `npm cache add` it there)")
    cache = tmp_path_factory.mktemp("claude-code")
    prefix = cache / f"claude-code-{generate.PINNED_VERSION}"
    installed = subprocess.run(["npm", "install", "--offline", "--cache", str(NPM_CACHE), "--prefix", str(prefix),
                                "--no-save", "--no-audit", "--no-fund", "--",
                                f"@anthropic-ai/claude-code@{generate.PINNED_VERSION}"],
                               capture_output=True, text=True)
    if installed.returncode != 0:
        skip_unless_in_ci(f"@anthropic-ai/claude-code@{generate.PINNED_VERSION} is not in {NPM_CACHE}: "
                          f"{installed.stderr[-300:]}")
    return generate.install(generate.PINNED_VERSION, cache)


@pytest.fixture(scope="session", autouse=True)
def private_cache_folder(tmp_path_factory):
    """Builds remember input hashes in the user's cache folder; the tests keep theirs to themselves."""
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="session", autouse=True)
def private_home(tmp_path_factory):
    """No test touches the user's vault, ~/.claude or Claude Code's settings: for the whole run, the home
    folder and every place derived from it are fresh temporary folders (each test that needs its own
    vault or settings names them)."""
    home = tmp_path_factory.mktemp("home")
    os.environ["HOME"] = str(home)
    os.environ["XDG_DATA_HOME"] = str(home / ".local" / "share")
    os.environ["SESSIONSITE_VAULT"] = str(tmp_path_factory.mktemp("vault") / "vault")
    os.environ.pop("CLAUDE_CONFIG_DIR", None)
    os.environ.pop("CODEX_HOME", None)


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """A folder of project folders: a copy of the examples' logs, for a test to change."""
    copy = tmp_path / "projects"
    shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns("*.md"))
    return copy


@pytest.fixture
def vault_dir(tmp_path: Path) -> Path:
    return tmp_path / "vault"


@pytest.fixture(scope="session")
def examples_build(tmp_path_factory) -> tuple[Path, BuildReport]:
    """One build of examples/, shared by the tests that only read it."""
    out = tmp_path_factory.mktemp("examples") / "site"
    report = build(BuildConfig(inputs=(EXAMPLES,), output=out))
    return out, report


@pytest.fixture(scope="session")
def examples_site(examples_build) -> Path:
    return examples_build[0]


# Ctrl-C at a terminal reaches a Python whose SIGINT is at its default, which Python turns into
# KeyboardInterrupt. A test run started as a shell's background job (`pytest &`, no job control) has SIGINT
# ignored, and an ignored signal stays ignored across exec: its child processes would never see Ctrl-C. A
# test's script that stands for a command typed at a terminal begins with this line.
CTRL_C_AS_AT_A_TERMINAL = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser():
    """The system's headless Chromium, driven by Playwright (nothing is downloaded). Without Chromium the
    browser tests skip, except in CI (CI=true), where .ci/run installs it and a skip would hide that."""
    try:
        import playwright.sync_api as playwright_api
    except ImportError:
        skip_unless_in_ci("Playwright is not installed (pip install -e '.[test]')")
    if not CHROMIUM:
        skip_unless_in_ci("Chromium is not installed (apt-get install chromium; see .ci/run)")
    with playwright_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run"],
        )
        yield instance
        instance.close()


def corpus_files(*patterns: str) -> list[Path]:
    """The public corpus's files matching each pattern in turn (sorted); none when it is not there."""
    if not PUBLIC_CORPUS.is_dir():
        return []
    return [path for pattern in patterns for path in sorted(PUBLIC_CORPUS.rglob(pattern))]


def each_corpus_file(files: list[Path], argname: str = "path"):
    """Parametrize a test that needs the `public_corpus` fixture over corpus files. Without the corpus,
    pytest would skip an empty parameter set silently, even in CI; one case stands in instead, so that the
    fixture skips it on a developer's machine and fails it in CI."""
    if not files:
        return pytest.mark.parametrize(argname, [pytest.param(None, id="corpus-missing")])
    return pytest.mark.parametrize(argname, files, ids=lambda p: p.relative_to(PUBLIC_CORPUS).as_posix())


@pytest.fixture(scope="session")
def public_corpus() -> Path:
    """The real logs beside the repository. Missing, the tests that need them skip, except in CI, where
    they fail: there a skip would hide that the corpus was not there."""
    if not corpus_files("*.jsonl"):
        skip_unless_in_ci(CORPUS_MISSING)
    return PUBLIC_CORPUS


@pytest.fixture(scope="session")
def public_corpus_site(public_corpus, tmp_path_factory) -> Path:
    """One build of the public corpus as a user would make it (redaction on), for the tests that only read
    it: the browser walks and the link check."""
    files = corpus_files("*.jsonl", "chat.json")
    out = tmp_path_factory.mktemp("public-corpus") / "site"
    build(BuildConfig(inputs=tuple(files), output=out))
    return out
