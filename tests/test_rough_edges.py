"""Rough edges a newcomer meets (issue 31): addresses, messages and figures that must read as they should."""

from __future__ import annotations

import itertools
import re

import pytest

from generator.core import urls


# -- project addresses ---------------------------------------------------------------------------------------

PROJECT_NAMES = ["-home-ada-src-app", "~-src-app", "~7e-src-app", "~", "-~", "-", "", "--", "~~", "~-", "-~-",
                 "a~b", "~a", "~7e", "~2f", "a-~", "a-~-b", "private-tmp-claude-501-~-src", "~--claude",
                 "~home", "~p2", "-.", "..", "é~-x", "~" * 3 + "-", "x" * 250 + "~-", "~-" + "y" * 250]


def test_a_project_redacted_by_redact_paths_has_a_readable_address():
    assert urls.project_folder("~-napoli-matcha") == "projects/~-napoli-matcha"
    assert urls.project_folder("~") == "projects/~"
    assert urls.project_folder("-private-tmp-claude-501-~-src") == "projects/private-tmp-claude-501-~-src"


@pytest.mark.parametrize("name", PROJECT_NAMES)
def test_a_project_address_stays_inside_projects_and_safe(name):
    folder = urls.project_folder(name)
    assert folder.startswith("projects/") and folder.count("/") == 1
    assert re.fullmatch(r"[A-Za-z0-9._~-]{1,255}", folder.removeprefix("projects/"))
    assert not folder.removeprefix("projects/").startswith(".")


def test_no_two_project_names_share_an_address():
    names = set(PROJECT_NAMES) | {"".join(parts) for parts in itertools.product(["~", "-", "a", "7e", "/"], repeat=3)}
    # A folder name never holds `/`; Claude Code's name of `/` itself is `-`.
    names = {name for name in names if "/" not in name}
    folders: dict[str, str] = {}
    for name in sorted(names):
        # Names that only differ in the leading `-` Claude Code puts in front are one folder by design.
        key = name.removeprefix("-")
        folder = urls.project_folder(name)
        assert folders.setdefault(folder, key) == key, (folder, name, folders[folder])


# -- with no input and no ~/.claude/projects, each command suggests trying itself on the examples ----------

@pytest.mark.parametrize("command, suggested", [
    (["serve", "--no-vault"], "sessionsite serve examples"),
    (["audit"], "sessionsite audit examples"),
    (["build", "-o", "out", "--no-vault"], "sessionsite build examples -o demo"),
    (["markdown", "-o", "out", "--no-vault"], "sessionsite markdown examples -o demo"),
])
def test_a_command_with_no_logs_suggests_itself_on_the_examples(tmp_path, monkeypatch, command, suggested):
    from click.testing import CliRunner

    from generator.cli import main

    monkeypatch.setenv("HOME", str(tmp_path / "nobody"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, command)
    assert result.exit_code != 0
    assert f"to try it on the examples: {suggested}\n" in result.output


# -- the vault says where it keeps the raw logs, once per build ------------------------------------------------

EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize("command", [["build", "-o"], ["markdown", "-o"]])
def test_a_build_says_once_where_the_vault_keeps_the_raw_logs_and_how_to_stop_it(tmp_path, command):
    from click.testing import CliRunner

    from generator.cli import main

    vault = tmp_path / "my-vault"
    result = CliRunner().invoke(main, [command[0], str(EXAMPLES), *command[1:], str(tmp_path / "out"),
                                       "--vault", str(vault), "-j", "1"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if str(vault) in line]
    assert len(lines) == 1, result.output
    assert "secrets included" in lines[0] and "--no-vault" in lines[0]
    # Built again (nothing new to save), it still says so: the copies are there.
    again = CliRunner().invoke(main, [command[0], str(EXAMPLES), *command[1:], str(tmp_path / "out"),
                                      "--vault", str(vault), "-j", "1"])
    assert [line for line in again.output.splitlines() if str(vault) in line] == lines


def test_without_the_vault_or_quiet_no_line_about_it(tmp_path):
    from click.testing import CliRunner

    from generator.cli import main

    off = CliRunner().invoke(main, ["build", str(EXAMPLES), "-o", str(tmp_path / "a"), "--no-vault", "-j", "1"])
    quiet = CliRunner().invoke(main, ["build", str(EXAMPLES), "-o", str(tmp_path / "b"), "-q", "-j", "1",
                                      "--vault", str(tmp_path / "v")])
    assert off.exit_code == quiet.exit_code == 0
    assert "secrets included" not in off.output and "secrets included" not in quiet.output


# -- the side panel's Tools table counts every call the log holds ---------------------------------------------

def _calls_in_log(path) -> dict[str, int]:
    import json
    from collections import Counter

    seen: set[str] = set()
    counts: Counter[str] = Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if entry.get("type") != "assistant" or entry.get("isSidechain") or not isinstance(message, dict):
            continue
        for part in message.get("content") or []:
            if isinstance(part, dict) and part.get("type") == "tool_use" and part.get("id") not in seen:
                seen.add(part["id"])
                counts[part["name"]] += 1
    return dict(counts)


def _tools_table(page) -> dict[str, int]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    return {row.th.get_text(strip=True): int(row.td.get_text(strip=True).replace(",", ""))
            for row in soup.select("details.tools tbody tr")}


@pytest.mark.parametrize("log", sorted(p.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.glob("*/*.jsonl")
                                       if '"ExitPlanMode"' in p.read_text(encoding="utf-8")))
def test_the_tools_table_counts_exit_plan_mode_as_the_log_does(examples_site, log):
    path = EXAMPLES / log
    page = examples_site / urls.project_folder(path.parent.name) / f"{path.stem}.html"
    in_log = _calls_in_log(path)
    assert "ExitPlanMode" in in_log
    assert _tools_table(page) == in_log
