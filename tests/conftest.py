from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from generator.build import BuildConfig, BuildReport, build

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
# Real logs written by Claude Code, beside the repository (never copied into it); CI has them there too.
PUBLIC_CORPUS = REPO.parent / "shared" / "corpus" / "public"
IN_CI = bool(os.environ.get("CI"))


def pytest_collection_modifyitems(items):
    """Every test that drives the browser is marked `browser`, so `pytest -m browser` runs them alone."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


def skip_unless_in_ci(reason: str):
    """A missing browser-test requirement skips on a developer's machine; in CI it fails, because there a
    skip would hide that .ci/run did not install it."""
    if IN_CI:
        pytest.fail(f"CI must provide this: {reason}")
    pytest.skip(reason)


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


@pytest.fixture(scope="session")
def examples_build(tmp_path_factory) -> tuple[Path, BuildReport]:
    """One build of examples/, shared by the tests that only read it."""
    out = tmp_path_factory.mktemp("examples") / "site"
    report = build(BuildConfig(inputs=(EXAMPLES,), output=out))
    return out, report


@pytest.fixture(scope="session")
def examples_site(examples_build) -> Path:
    return examples_build[0]


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


@pytest.fixture(scope="session")
def public_corpus_site(tmp_path_factory) -> Path:
    """One build of the public corpus as a user would make it (redaction on), for the browser tests."""
    files = sorted(PUBLIC_CORPUS.rglob("*.jsonl")) + sorted(PUBLIC_CORPUS.rglob("chat.json")) if PUBLIC_CORPUS.is_dir() else []
    if not files:
        skip_unless_in_ci(f"the public corpus is not at {PUBLIC_CORPUS}")
    out = tmp_path_factory.mktemp("public-corpus") / "site"
    build(BuildConfig(inputs=tuple(files), output=out))
    return out
