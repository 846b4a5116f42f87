"""The command line end to end, through Click's runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from generator import __version__
from generator.cli import main
from generator.config import BuildConfig, BuildReport

from conftest import EXAMPLES

COMMANDS = sorted(main.commands)


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def received(monkeypatch) -> list[BuildConfig]:
    """The build (and the JSON export) replaced by one that keeps the config it was given: for what only
    the options decide."""
    configs: list[BuildConfig] = []

    def build(config: BuildConfig, progress=None) -> BuildReport:
        configs.append(config)
        return BuildReport()

    monkeypatch.setattr("generator.build.build", build)
    monkeypatch.setattr("generator.json_export.export", build)
    return configs


def test_version(runner):
    result = runner.invoke(main, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.output


@pytest.mark.parametrize("command", [[]] + [[name] for name in COMMANDS], ids=lambda c: " ".join(c) or "main")
def test_every_command_has_help_with_an_example(runner, command):
    result = runner.invoke(main, [*command, "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output
    assert "sessionsite " in result.output.split("Example:", 1)[1]


def test_commands_are_the_documented_ones():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert COMMANDS == ["audit", "build", "bundle", "doctor", "gh-deploy", "hook", "json", "markdown", "restore", "review", "save", "serve"]
    assert all(f"sessionsite {name} " in readme for name in COMMANDS)


def test_build_writes_site_and_report(runner, tmp_path):
    out, report_file = tmp_path / "site", tmp_path / "report.json"
    result = runner.invoke(main, ["build", str(EXAMPLES), "-o", str(out), "--report", str(report_file)])
    assert result.exit_code == 0, result.output
    report = json.loads(report_file.read_text(encoding="utf-8"))
    assert set(report) == {"sessions", "subagent_runs", "pages", "events", "unknown", "diagnostics",
                           "redactions", "search_index_bytes", "site_bytes", "kept", "pruned"}
    pages = sorted(out.rglob("*.html"))
    assert report["pages"] == len(pages)
    assert report["sessions"] + report["subagent_runs"] == len(list(out.rglob("*.md")))
    # The count the command prints and the report are the index's: one definition of a session.
    index = BeautifulSoup((out / "index.html").read_text(encoding="utf-8"), "html.parser")
    assert f"{report['sessions']} sessions" in index.select_one(".lede").get_text()
    assert f"{report['sessions']} sessions (+ {report['subagent_runs']} subagent runs)" in result.output
    assert report["events"]["prompt"] > 0 and report["events"]["tool_call"] > 0
    # The adversarial example has four unreadable lines and a user entry with no message object, each reported
    # with its file and line.
    broken = [d for d in report["diagnostics"] if d["file"].endswith("7296ccd2-c393-48c2-a896-d22e0099834f.jsonl")]
    assert sorted(d["line"] for d in broken) == [8, 13, 14, 18, 23]
    assert all(d["message"] for d in broken)
    assert report["unknown"] == {"shape:user": 1, "type:hologram": 1}
    assert (out / "index.html").is_file() and (out / "assets" / "style.css").is_file()


def test_markdown_command_writes_only_markdown(runner, tmp_path):
    out = tmp_path / "md"
    result = runner.invoke(main, ["markdown", str(EXAMPLES), "-o", str(out)])
    assert result.exit_code == 0, result.output
    written = {p.suffix for p in out.rglob("*") if p.is_file() and p.name != ".sessionsite"}
    assert ".md" in written and ".html" not in written and ".css" not in written
    document = next(out.rglob("5c12bdb1-a10b-4b0a-9bc1-2edc1cd3eb90.md")).read_text(encoding="utf-8")
    assert document.startswith("---\nid: ")


def test_single_file_input(runner, tmp_path):
    source = next(EXAMPLES.glob("*/5c12bdb1-*.jsonl"))
    out = tmp_path / "one"
    result = runner.invoke(main, ["build", str(source), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert [p.name for p in out.rglob("*.md")] == [source.with_suffix(".md").name]


def test_no_input_and_no_claude_folder_says_so_in_one_line(runner, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    result = runner.invoke(main, ["build", "-o", str(tmp_path / "out")])
    assert result.exit_code == 1
    message = result.output.strip()
    assert "\n" not in message
    assert ".claude/projects" in message and "sessionsite build examples -o demo" in message


def test_no_input_reads_the_claude_projects_folder(runner, tmp_path, monkeypatch, received):
    projects = tmp_path / ".claude" / "projects"
    (projects / "-home-x-app").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path))
    result = runner.invoke(main, ["build", "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    (config,) = received
    assert config.inputs == (projects,) and config.output == tmp_path / "out"


def test_usage_errors_exit_2(runner, tmp_path):
    assert runner.invoke(main, ["build", str(EXAMPLES)]).exit_code == 2  # no -o
    assert runner.invoke(main, ["build", str(tmp_path / "missing"), "-o", str(tmp_path / "o")]).exit_code == 2
    assert runner.invoke(main, ["frobnicate"]).exit_code == 2


def test_a_folder_with_no_sessions_is_a_build_error(runner, tmp_path):
    (tmp_path / "empty").mkdir()
    result = runner.invoke(main, ["build", str(tmp_path / "empty"), "-o", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "no session logs of Claude Code or Codex CLI" in result.output


def test_refuses_to_replace_a_folder_it_did_not_write(runner, tmp_path):
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work", encoding="utf-8")
    result = runner.invoke(main, ["build", str(EXAMPLES), "-o", str(precious)])
    assert result.exit_code == 1
    assert (precious / "thesis.tex").read_text(encoding="utf-8") == "years of work"
    assert not (precious / "index.html").exists()


def test_rebuild_replaces_its_own_output(runner, tmp_path):
    out = tmp_path / "site"
    assert runner.invoke(main, ["build", str(EXAMPLES), "-o", str(out)]).exit_code == 0
    (out / "stale.html").write_text("old", encoding="utf-8")
    assert runner.invoke(main, ["build", str(EXAMPLES), "-o", str(out)]).exit_code == 0
    assert not (out / "stale.html").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # no staging folders left behind


def test_strict_fails_on_unreadable_lines(runner, tmp_path):
    # --yes: past the review of the examples' two random-looking values, to the lines that cannot be read.
    result = runner.invoke(main, ["build", str(EXAMPLES), "-o", str(tmp_path / "out"), "--strict", "--yes"])
    assert result.exit_code == 1
    assert "--strict" in result.output
    assert not (tmp_path / "out").exists()


def test_diagnostics_name_file_and_line_on_stderr(runner, tmp_path):
    result = runner.invoke(main, ["build", str(EXAMPLES), "-o", str(tmp_path / "out")])
    assert "7296ccd2-c393-48c2-a896-d22e0099834f.jsonl:23: truncated last line" in result.output


@pytest.mark.parametrize("command", ["build", "markdown", "json"])
def test_show_hidden_reaches_the_build_only_when_given(runner, tmp_path, received, command):
    # What --show-hidden reveals is tested on a build: test_realclient's hook and task-list tests.
    for flags in ([], ["--show-hidden"]):
        result = runner.invoke(main, [command, str(EXAMPLES), "-o", str(tmp_path / "out"), "--no-vault", *flags])
        assert result.exit_code == 0, result.output
    assert [config.show_hidden for config in received] == [False, True]


@pytest.mark.parametrize("where", ["in-a-missing-folder", "under-a-file"])
def test_a_report_that_cannot_be_written_is_refused_before_the_build(runner, tmp_path, where):
    (tmp_path / "file").write_text("not a folder\n")
    report = {"in-a-missing-folder": tmp_path / "nowhere" / "report.json",
              "under-a-file": tmp_path / "file" / "report.json"}[where]
    out = tmp_path / "site"
    result = runner.invoke(main, ["build", str(EXAMPLES), "-o", str(out), "-q", "--report", str(report)])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "--report" in lines[0] and str(report) in lines[0], result.output
    assert not out.exists()  # checked before anything was built


def test_an_os_error_is_one_line_naming_the_file(runner, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder\n")
    result = runner.invoke(main, ["build", str(EXAMPLES), "-o", str(blocker / "site"), "-q"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and str(blocker) in lines[0], result.output
    assert "internal error" not in lines[0] and "Error(" not in lines[0], lines[0]
