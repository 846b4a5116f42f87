"""The config file: sessionsite.toml or pyproject.toml's [tool.sessionsite], found in the current folder;
flags override it; every problem is one usage error naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from generator.cli import main
from generator.config import BuildConfig, BuildReport

from conftest import EXAMPLES

LEDGER = "-Users-grace-work-ledger-api"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def received(monkeypatch) -> list[BuildConfig]:
    """The build replaced by one that keeps the config it was given: for what only the options decide."""
    configs: list[BuildConfig] = []

    def build(config: BuildConfig, progress=None) -> BuildReport:
        configs.append(config)
        return BuildReport()

    monkeypatch.setattr("generator.build.build", build)
    return configs


def run(*arguments: str):
    return CliRunner().invoke(main, list(arguments))


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


CONFIG = f"""
inputs = ["{EXAMPLES.as_posix()}"]
output = "public"
title = "How the ledger was built"
redact_words = ["grace"]

[select]
project = ["ledger-api"]
"""


def test_build_with_no_flags_does_what_the_config_says(folder):
    write(folder / "sessionsite.toml", CONFIG)
    result = run("build", "--no-vault", "-j", "1")
    assert result.exit_code == 0, result.output
    site = folder / "public"
    index = BeautifulSoup((site / "index.html").read_text(encoding="utf-8"), "html.parser")
    assert index.h1.get_text() == "How the ledger was built"
    assert [p.name for p in (site / "projects").iterdir()] == ["Users-redacted-work-ledger-api"]
    every_text = "".join(p.read_text(encoding="utf-8", errors="replace") for p in site.rglob("*") if p.is_file())
    assert "grace" not in every_text.lower()


def test_pyproject_table_is_found_and_paths_are_relative_to_it(folder, received):
    write(folder / "pyproject.toml", '[project]\nname = "x"\n\n[tool.sessionsite]\ninputs = ["sessions"]\n'
                                     'output = "site"\n')
    (folder / "sessions").symlink_to(EXAMPLES / LEDGER, target_is_directory=True)
    elsewhere = folder / "elsewhere"
    elsewhere.mkdir()
    result = CliRunner().invoke(main, ["markdown", "--config-file", str(folder / "pyproject.toml"), "--no-vault",
                                       "-j", "1", "-q"])
    assert result.exit_code == 0, result.output
    (config,) = received
    assert config.inputs == (folder / "sessions",) and config.output == folder / "site" and config.markdown_only


def test_a_pyproject_without_the_table_is_not_a_config(folder):
    write(folder / "pyproject.toml", '[project]\nname = "x"\n')
    result = run("build", "--no-vault")
    assert result.exit_code == 2
    assert "Missing option '-o'" in result.output


def test_flags_override_the_config(folder, received):
    write(folder / "sessionsite.toml", CONFIG)
    result = run("build", "-o", "other", "--title", "Flag title", "--project", "tidewatch", "--no-vault", "-j", "1")
    assert result.exit_code == 0, result.output
    (config,) = received
    assert config.output == Path("other") and config.title == "Flag title"
    assert config.selection.projects == ("tidewatch",)
    assert config.inputs == (EXAMPLES,) and config.own_redaction.words == ("grace",)  # what no flag overrides


@pytest.mark.parametrize("text, said", [
    ('outptu = "site"\n', "unknown key 'outptu'; the keys are [gh-deploy], [select], base_url, inputs, output"),
    ("redact = 3\n", "redact must be a list of strings (regular expressions), not a number (3)"),
    ("redact_paths = \"yes\"\n", "redact_paths must be true or false, not a string ('yes')"),
    ('[select]\nsince = "last week"\n', "select.since 'last week': expected a date"),
    ('[select]\nbranch = [1]\n', "select.branch must be a list of strings"),
    ('redact = ["("]\n', "redact: '(' is not a regular expression"),
    ('redact = ["x*"]\n', "redact: 'x*' matches empty text"),
    ('inputs = ["no-such-folder"]\n', "inputs: "),
    ('select = "x"\n', "[select] must be a table"),
    ("output = [\n", "is not valid TOML"),
])
def test_config_problems_name_the_file_and_the_key(folder, text, said):
    config = write(folder / "sessionsite.toml", f'output = "site"\n{text}' if not text.startswith("output") else text)
    result = run("build", str(EXAMPLES), "--no-vault")
    assert result.exit_code == 2, result.output
    assert str(config) in result.output
    assert said in result.output
    assert "Traceback" not in result.output


def test_an_error_in_a_pyproject_table_names_the_table(folder):
    write(folder / "pyproject.toml", "[tool.sessionsite]\ntheme = 4\n")
    result = run("build", str(EXAMPLES), "-o", "site", "--no-vault")
    assert result.exit_code == 2
    assert "pyproject.toml: tool.sessionsite.theme must be a string" in result.output


def test_gh_deploy_settings_come_from_their_table(folder):
    write(folder / "sessionsite.toml", '[gh-deploy]\nremote = "mirror"\nbranch = "pages"\nmessage = "Sessions"\n')
    from generator.config_file import load

    defaults = load(folder / "sessionsite.toml").defaults["gh-deploy"]
    assert defaults == {"remote": "mirror", "deploy_branch": "pages", "message": "Sessions"}


def test_the_documented_example_is_a_valid_config(folder):
    page = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "config.md").read_text(encoding="utf-8")
    example = page.split("```toml\n", 1)[1].split("```", 1)[0]
    (folder / "my-theme").mkdir()
    example = example.replace('"~/.claude/projects/-home-me-src-app"', f'"{EXAMPLES.as_posix()}"')
    write(folder / "sessionsite.toml", example)
    from generator.config_file import load

    defaults = load(folder / "sessionsite.toml").defaults
    assert defaults["build"]["redact_patterns"] == (r"ACME-\d{6}",)
    assert defaults["build"]["projects"] == ("app",)
    assert defaults["gh-deploy"]["deploy_branch"] == "gh-pages"
    assert "inputs" not in defaults["bundle"]
