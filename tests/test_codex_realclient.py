"""The pinned Codex CLI, run for real and offline against the scripted Responses API (tests/realclient_codex/), writes
rollouts that build clean: the same check as the committed fixtures, on what today's run writes. Installed from
the npm cache .ci/run fills (no test downloads anything); skipped without npm or that cache outside CI."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from conftest import NPM_CACHE, skip_unless_in_ci
from generator.build import BuildConfig, build

HERE = Path(__file__).parent


def codex_generator() -> ModuleType:
    """tests/realclient_codex/generate.py, under a name of its own (Claude Code's generator is `generate`)."""
    spec = importlib.util.spec_from_file_location("codex_generate", HERE / "realclient_codex" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["codex_generate"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def real_codex(tmp_path_factory) -> tuple[ModuleType, Path]:
    generate = codex_generator()
    if not shutil.which("npm") or not shutil.which("node"):
        skip_unless_in_ci("npm and node are needed to run the real Codex CLI")
    if not NPM_CACHE.is_dir():
        skip_unless_in_ci(f"no npm cache with @openai/codex@{generate.PINNED_VERSION} at {NPM_CACHE} (.ci/run fills it)")
    prefix = tmp_path_factory.mktemp("codex") / f"codex-{generate.PINNED_VERSION}"
    installed = subprocess.run(["npm", "install", "--offline", "--cache", str(NPM_CACHE), "--prefix", str(prefix),
                                "--no-save", "--no-audit", "--no-fund", "--", f"@openai/codex@{generate.PINNED_VERSION}"],
                               capture_output=True, text=True)
    if installed.returncode != 0:
        skip_unless_in_ci(f"@openai/codex@{generate.PINNED_VERSION} is not in {NPM_CACHE}: {installed.stderr[-300:]}")
    executable = prefix / "node_modules" / ".bin" / "codex"
    assert generate.reported_version(executable) == generate.PINNED_VERSION
    return generate, executable


@pytest.mark.slow
@pytest.mark.parametrize("name", ["shell_and_patch", "mcp"])
def test_the_real_codex_writes_rollouts_that_build_clean(real_codex, tmp_path, name):
    generate, executable = real_codex
    [scenario] = [s for s in generate.SCENARIOS if s.name == name]
    logs, received, home = generate.run_scenario(executable, scenario, tmp_path / "run")
    assert logs and received
    site = tmp_path / "site"
    report = build(BuildConfig(inputs=tuple(sorted({log.parent for log in logs})), output=site, vault=None))
    assert dict(report.unknown) == {} and report.sessions == 1
    everything = "".join(p.read_text(encoding="utf-8", errors="replace") for p in site.rglob("*") if p.is_file())
    assert scenario.runs[0].prompt.split(",")[0] in everything
    for line in generate.distinctive_lines(received):
        assert line not in everything
    assert json.dumps(scenario.runs[0].prompt)[1:20] in logs[0].read_text(encoding="utf-8")
