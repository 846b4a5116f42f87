from __future__ import annotations

from pathlib import Path

import pytest

from generator.build import BuildConfig, BuildReport, build

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


@pytest.fixture(scope="session")
def examples_build(tmp_path_factory) -> tuple[Path, BuildReport]:
    """One build of examples/, shared by the tests that only read it."""
    out = tmp_path_factory.mktemp("examples") / "site"
    report = build(BuildConfig(inputs=(EXAMPLES,), output=out))
    return out, report


@pytest.fixture(scope="session")
def examples_site(examples_build) -> Path:
    return examples_build[0]
