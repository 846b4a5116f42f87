from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from generator.build import BuildConfig, BuildReport, build

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


@pytest.fixture(scope="session", autouse=True)
def private_cache_folder(tmp_path_factory):
    """Builds remember input hashes in the user's cache folder; the tests keep theirs to themselves."""
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))


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
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM:
        if os.environ.get("CI"):
            pytest.fail("CI must install Chromium (see .ci/run)")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    with playwright_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run"],
        )
        yield instance
        instance.close()
