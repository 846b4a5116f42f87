"""Codex CLI's sessions in the commands over the archive: a bundle of a range of commits, or of a branch, takes the
Codex sessions that made them beside Claude Code's, found in Codex's own folder ($CODEX_HOME)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from generator.cli import main
from generator.commit_range import encoded_project_name
from test_commits import committing_session, git, repository  # noqa: F401 - the fixture


def codex_committing_session(repository: Path, codex_home: Path, subject: str, prompt: str,  # noqa: F811
                             branch: str = "main") -> Path:
    """A Codex rollout whose `git commit` printed the hash the repository gave that commit."""
    sha = git(repository, "log", "--format=%h", "-1", f"--grep={subject}")
    session_id = "01a233fe-0000-7000-8000-0000000000" + sha[:2].rjust(2, "0")
    path = codex_home / "sessions" / "2026" / "12" / "01" / f"rollout-2026-12-01T10-00-00-{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    records = [
        {"timestamp": "2026-12-01T10:00:00Z", "type": "session_meta",
         "payload": {"id": session_id, "cwd": str(repository), "cli_version": "0.171.0", "git": {"branch": branch}}},
        {"timestamp": "2026-12-01T10:00:01Z", "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}},
        {"timestamp": "2026-12-01T10:00:02Z", "type": "response_item",
         "payload": {"type": "function_call", "name": "exec_command", "call_id": "call_commit",
                     "arguments": json.dumps({"cmd": f"git commit -m '{subject}'"})}},
        {"timestamp": "2026-12-01T10:00:03Z", "type": "response_item",
         "payload": {"type": "function_call_output", "call_id": "call_commit",
                     "output": f"Process exited with code 0\nOutput:\n[{branch} {sha}] {subject}\n 1 file changed, 1 insertion(+)\n"}},
        {"timestamp": "2026-12-01T10:00:04Z", "type": "response_item",
         "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Committed."}]}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_bundle_of_a_commit_range_takes_both_agents_sessions(repository, tmp_path, monkeypatch):  # noqa: F811
    projects = Path.home() / ".claude" / "projects"
    folder = projects / encoded_project_name(repository.resolve())
    committing_session(repository, folder, "aaaaaaaa-0000-4000-8000-000000000002", "Add parser", "Write the parser")
    codex_home = tmp_path / "codex-home"
    codex_committing_session(repository, codex_home, "Add docs", "Codex, write the docs")
    codex_committing_session(repository, codex_home, "Add base", "Codex, lay the base")
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    monkeypatch.chdir(repository)
    out = tmp_path / "pr.md"
    result = CliRunner().invoke(main, ["bundle", "--commits", "HEAD~2..HEAD", "-o", str(out), "--no-vault", "-j", "1"])
    assert result.exit_code == 0, result.output
    written = out.read_text(encoding="utf-8")
    assert "Write the parser" in written and "Codex, write the docs" in written
    assert "Codex, lay the base" not in written
    assert "2 sessions" in result.output


def test_a_bundle_of_a_commit_range_with_only_codex_sessions(repository, tmp_path, monkeypatch):  # noqa: F811
    codex_home = tmp_path / "codex-home"
    codex_committing_session(repository, codex_home, "Add docs", "Codex, write the docs")
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    monkeypatch.chdir(repository)
    out = tmp_path / "pr.md"
    result = CliRunner().invoke(main, ["bundle", "--commits", "HEAD~1..HEAD", "-o", str(out), "--no-vault", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "Codex, write the docs" in out.read_text(encoding="utf-8")


def test_a_bundle_of_the_branch_takes_its_codex_sessions(repository, tmp_path, monkeypatch):  # noqa: F811
    codex_home = tmp_path / "codex-home"
    codex_committing_session(repository, codex_home, "Add docs", "Codex, on main")
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    monkeypatch.chdir(repository)
    out = tmp_path / "branch.md"
    result = CliRunner().invoke(main, ["bundle", "-o", str(out), "--no-vault", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "Codex, on main" in out.read_text(encoding="utf-8")
