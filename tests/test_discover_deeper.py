"""An INPUT with no session files where they are read (the folder itself, its project folders), but logs further
down: a backup of ~/.claude in a repository, a home folder, a folder of checkouts. The error names the folders to
give instead, on one line, in a form a shell takes back, without letting a folder's name reach the terminal raw."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from helpers import SESSION_ID, assistant, text, user, write_jsonl

PROJECT = "-home-ada-src-tidewatch"


def a_session(path: Path) -> Path:
    return write_jsonl(path, [user("how do the tide tables get built?", sessionId=SESSION_ID),
                              assistant(text("From the harmonics."), sessionId=SESSION_ID)])


def build(folder: Path, output: Path, *more: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["build", *more, str(folder), "-o", str(output), "--no-vault", "-j", "1", "-q"])
    return result.exit_code, result.output


def suggested(message: str) -> list[str]:
    """The folders the message's command line names, as a shell reads them."""
    command = message.split("sessionsite build ", 1)[1].rsplit(" -o ", 1)[0]
    return shlex.split(command)


def test_backups_further_down_are_named_and_the_named_folders_build(tmp_path: Path) -> None:
    given = tmp_path / "checkouts"
    a_session(given / "dotfiles" / "dot-claude" / "projects" / PROJECT / f"{SESSION_ID}.jsonl")
    a_session(given / "old laptop" / "projects.bak" / "-home-ada-notes" / f"{SESSION_ID}.jsonl")
    code, message = build(given, tmp_path / "site")
    assert code == 1
    assert "\n" not in message.strip(), "one line"
    assert "no session logs of Claude Code or Codex CLI" in message
    folders = suggested(message)
    assert folders == [str(given / "dotfiles" / "dot-claude" / "projects"), str(given / "old laptop" / "projects.bak")]
    code, output = build(Path(folders[0]), tmp_path / "site", folders[1])
    assert code == 0, output
    assert (tmp_path / "site" / "index.html").is_file()


def test_a_project_holding_only_subagent_logs_names_its_folder_of_projects(tmp_path: Path) -> None:
    given = tmp_path / "backup"
    projects = given / "claude" / "projects"
    a_session(projects / PROJECT / SESSION_ID / "subagents" / "agent-a1b2c3.jsonl")
    _, message = build(given, tmp_path / "site")
    assert suggested(message) == [str(projects)]


def test_the_hidden_claude_folder_of_a_home_is_looked_into(tmp_path: Path) -> None:
    home = tmp_path / "home"
    a_session(home / ".claude" / "projects" / PROJECT / f"{SESSION_ID}.jsonl")
    _, message = build(home, tmp_path / "site")
    assert suggested(message) == [str(home / ".claude" / "projects")]


@pytest.mark.parametrize("tool_folder", [".git", "node_modules", ".venv", "__pycache__"])
def test_tool_folders_are_not_suggested(tmp_path: Path, tool_folder: str) -> None:
    # A repository's history or a package's test data is nobody's archive of sessions.
    given = tmp_path / "repo"
    a_session(given / tool_folder / "fixtures" / "transcripts" / f"{SESSION_ID}.jsonl")
    code, message = build(given, tmp_path / "site")
    assert code == 1
    assert "sessionsite build" not in message


def test_the_search_goes_six_levels_down_and_no_further(tmp_path: Path) -> None:
    given = tmp_path / "deep"
    near = given / "a" / "b" / "c" / "d" / "projects"
    a_session(near / PROJECT / f"{SESSION_ID}.jsonl")  # the project folder six levels down
    _, message = build(given, tmp_path / "site")
    assert suggested(message) == [str(near)]
    farther = tmp_path / "deeper"
    a_session(farther / "a" / "b" / "c" / "d" / "e" / "projects" / PROJECT / f"{SESSION_ID}.jsonl")
    _, message = build(farther, tmp_path / "site")
    assert "sessionsite build" not in message and "no session logs of Claude Code or Codex CLI" in message


def test_many_places_are_counted_not_all_listed(tmp_path: Path) -> None:
    given = tmp_path / "machines"
    for number in range(9):
        a_session(given / f"machine-{number}" / "projects" / PROJECT / f"{SESSION_ID}.jsonl")
    _, message = build(given, tmp_path / "site")
    assert suggested(message) == [str(given / f"machine-{number}" / "projects") for number in range(5)]
    assert "4 more" in message


def test_a_folder_name_cannot_write_to_the_terminal(tmp_path: Path) -> None:
    given = tmp_path / "backups"
    hostile = given / "\x1b]0;owned\x07\x1b[2J" / "projects"
    a_session(hostile / PROJECT / f"{SESSION_ID}.jsonl")
    _, message = build(given, tmp_path / "site")
    assert "\x1b" not in message and "\x07" not in message
    assert "sessionsite build" in message


def test_a_link_back_up_the_tree_is_not_followed(tmp_path: Path) -> None:
    given = tmp_path / "loop"
    (given / "inner").mkdir(parents=True)
    os.symlink(given, given / "inner" / "back")
    a_session(given / "inner" / "dot-claude" / "projects" / PROJECT / f"{SESSION_ID}.jsonl")
    _, message = build(given, tmp_path / "site")
    assert suggested(message) == [str(given / "inner" / "dot-claude" / "projects")]


def test_a_folder_with_nothing_anywhere_keeps_the_plain_message(tmp_path: Path) -> None:
    given = tmp_path / "nothing"
    (given / "a" / "b").mkdir(parents=True)
    (given / "a" / "notes.json").write_text("{}", encoding="utf-8")
    code, message = build(given, tmp_path / "site")
    assert code == 1
    assert message.strip().startswith(f"Error: no session logs of Claude Code or Codex CLI (*.jsonl) found in {given}; "
                                      "Claude Code keeps its logs in ")
