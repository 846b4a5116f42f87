"""Which agent wrote a file is told by its content, its first record, never by its name or its folder: Claude Code's
logs, Codex CLI's rollouts (kept by day, under ~/.codex or $CODEX_HOME), and files that are no log at all (a README,
Codex's history.jsonl of prompts, someone's data set), which are skipped with one line saying so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.core.entries import Diagnostic
from generator.stages.agents import CLAUDE_CODE, CODEX, FIRST_RECORD_LIMIT, writer_of, writer_of_line
from generator.stages.discover import discover
from helpers import SESSION_ID, assistant, text, user, write_jsonl

HERE = Path(__file__).parent
ROLLOUT = next((HERE / "fixtures" / "codex" / "resume").rglob("rollout-*.jsonl"))
REPO = HERE.parent


def claude_log(path: Path, words: str = "how do the tide tables get built?") -> Path:
    return write_jsonl(path, [user(words, sessionId=SESSION_ID), assistant(text("From the harmonics."), sessionId=SESSION_ID)])


def build(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["build", *args, "--no-vault", "-j", "1"])
    return result.exit_code, result.output


@pytest.mark.parametrize(("first_line", "agent"), [
    (b'{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x","cwd":"/w"}}', CODEX),
    (b'{"type":"response_item","timestamp":"t","payload":{"type":"message"}}', CODEX),
    (b'{"id":"x","timestamp":"2025-04-20T10:00:00Z","instructions":null,"git":null}', CODEX),
    (b'{"type":"message","role":"user","content":[]}', CODEX),
    (b'{"type":"user","message":{"role":"user","content":"{\\"type\\":\\"session_meta\\",\\"payload\\":{}}"}}', CLAUDE_CODE),
    (b'{"type":"summary","summary":"x","leafUuid":"u"}', CLAUDE_CODE),
    (b'{"parentUuid":null,"sessionId":"s"}', CLAUDE_CODE),
    (b'{"session_id":"x","ts":1700000000,"text":"a prompt from history.jsonl"}', ""),
    (b'["a", "list"]', ""),
    (b"# A README\n", ""),
    (b"\xef\xbb\xbf{\"type\":\"user\"}", CLAUDE_CODE),
    (b"\xff\xfe{\x00", CLAUDE_CODE),
    (b'{"type":"user","message":', CLAUDE_CODE),
])
def test_the_first_record_tells_the_agent(first_line, agent):
    assert writer_of_line(first_line).agent == agent


def test_a_first_record_too_long_to_read_whole_still_tells_codex_and_its_folder(tmp_path):
    """Codex's first record holds its whole system prompt; what tells it comes first."""
    payload = {"id": "x", "cwd": "/home/ada/tidewatch", "base_instructions": {"text": "y" * (FIRST_RECORD_LIMIT * 2)}}
    path = tmp_path / "rollout.jsonl"
    path.write_text(json.dumps({"timestamp": "t", "type": "session_meta", "payload": payload}) + "\n", encoding="utf-8")
    writer = writer_of(path)
    assert (writer.agent, writer.cwd) == (CODEX, "/home/ada/tidewatch")


def test_blank_lines_and_padding_are_passed_over(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"\n{}\n\n" + ROLLOUT.read_bytes())
    assert writer_of(path).agent == CODEX


def test_a_readme_given_is_skipped_with_one_line(tmp_path):
    readme = REPO / "README.md"
    problems: list[Diagnostic] = []
    assert discover([readme], problems) == []
    assert [p.message for p in problems] == [
        "not a session log (its first line is no record of Claude Code or Codex CLI): skipped"]
    code, output = build(str(readme), "-o", str(tmp_path / "out"))
    assert code == 1
    assert "not valid JSON" not in output and output.count("not a session log") == 1
    assert "Claude Code keeps its logs in" in output and "Codex CLI in" in output
    assert not (tmp_path / "out").exists()


def test_a_folder_of_mixed_files_takes_only_the_logs(tmp_path):
    folder = tmp_path / "mixed"
    claude_log(folder / "claude.jsonl")
    shutil.copy(ROLLOUT, folder / "codex.jsonl")
    (folder / "notes.jsonl").write_text('{"name": "a data set", "rows": 3}\n', encoding="utf-8")
    (folder / "README.md").write_text("# not a log\n", encoding="utf-8")
    (folder / "picture.png").write_bytes(b"\x89PNG\r\n")
    problems: list[Diagnostic] = []
    found = discover([folder], problems)
    assert sorted((f.path.name, f.agent) for f in found) == [("claude.jsonl", CLAUDE_CODE), ("codex.jsonl", CODEX)]
    assert [(Path(p.file).name, p.message.split(" (")[0]) for p in problems] == [("notes.jsonl", "not a session log")]
    code, output = build(str(folder), "-o", str(tmp_path / "site"))
    assert code == 0, output
    assert "2 sessions" in output


def codex_home(root: Path) -> Path:
    home = root / ".codex"
    day = home / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    shutil.copy(ROLLOUT, day / ROLLOUT.name)
    archived = home / "archived_sessions"
    archived.mkdir()
    shutil.copy(next((HERE / "fixtures" / "codex" / "mcp").rglob("rollout-*.jsonl")), archived)
    (home / "history.jsonl").write_text('{"session_id":"x","ts":1,"text":"a prompt"}\n', encoding="utf-8")
    (home / "config.toml").write_text('model = "gpt-5.5"\n', encoding="utf-8")
    return home


@pytest.mark.parametrize("given", [".codex", ".codex/sessions", ".codex/sessions/2026", ".codex/archived_sessions"])
def test_codex_folders_are_found_at_any_level(tmp_path, given):
    home = codex_home(tmp_path)
    found = discover([tmp_path / given])
    expected = {".codex": 2, ".codex/archived_sessions": 1}.get(given, 1)
    assert len(found) == expected and {f.agent for f in found} == {CODEX}
    assert {f.project_dir for f in found} == {"-home-ada-tidewatch"}
    assert home.exists()


def test_with_no_input_both_agents_default_folders_are_read(tmp_path, monkeypatch):
    claude = tmp_path / "claude"
    claude_log(claude / "projects" / "-home-ada-tidewatch" / f"{SESSION_ID}.jsonl")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(codex_home(tmp_path / "elsewhere")))
    code, output = build("-o", str(tmp_path / "site"))
    assert code == 0, output
    assert "3 sessions" in output
    projects = sorted(p.name for p in (tmp_path / "site" / "projects").iterdir() if p.is_dir())
    assert len(projects) == 1, projects


def test_with_no_input_and_no_folder_at_all_says_where_logs_live(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "none either"))
    code, output = build("-o", str(tmp_path / "site"))
    assert code == 1 and "does not exist" in output and "Codex" in output


def test_a_codex_log_kept_by_the_vault_is_read_as_codex(tmp_path):
    """A log read back from the vault is told by its first record too (the vault keeps no agent)."""
    from generator.stages.discover import SessionFile
    from generator.stages.interpret import interpret
    from generator.stages.read import read_file

    class Kept:
        size, content_hash, last_seen = 0, "", "2026-12-01"

        def readable(self) -> Path:
            return ROLLOUT

    session_file = SessionFile(tmp_path / "gone.jsonl", "-home-ada-tidewatch", kept=Kept())
    result = interpret(session_file, read_file(ROLLOUT))
    assert result.session.agent == CODEX and dict(result.unknown) == {}


def test_a_codex_session_is_kept_by_the_vault_and_restored_where_codex_keeps_it(tmp_path, monkeypatch):
    home = codex_home(tmp_path)
    monkeypatch.setenv("CODEX_HOME", str(home))
    vault = tmp_path / "vault"
    runner = CliRunner()
    first = runner.invoke(main, ["build", str(home), "-o", str(tmp_path / "site"), "--vault", str(vault), "-j", "1"])
    assert first.exit_code == 0, first.output
    [live] = list((home / "sessions").rglob("rollout-*.jsonl"))
    original = live.read_bytes()
    live.unlink()
    again = runner.invoke(main, ["build", str(home), "-o", str(tmp_path / "site"), "--vault", str(vault), "-j", "1"])
    assert again.exit_code == 0, again.output
    assert "2 sessions" in again.output  # the deleted one read back from the vault
    session_id = live.name[-len("01a233fe-dd4d-7f62-847b-32bf9db62e36.jsonl"):-len(".jsonl")]
    restored = runner.invoke(main, ["restore", session_id, "--vault", str(vault)])
    assert restored.exit_code == 0, restored.output
    assert live.read_bytes() == original
    assert f"codex resume {session_id}" in restored.output


@pytest.mark.parametrize(("relpath", "session_id", "problem"), [
    ("rollout-2026-12-01T23-45-05-01a233ff-6746-7930-8884-dbdd7187061e.jsonl", "01a233ff-6746-7930-8884-dbdd7187061e", False),
    ("rollout-2026-12-01T23-45-05-01a233ff-6746-7930-8884-dbdd7187061e.jsonl", "01a233ff-0000-7930-8884-dbdd7187061e", True),
    ("rollout-2026-12-01T23-45-05-01a233ff-6746-7930-8884-dbdd7187061e.jsonl", "", True),
    ("../rollout-2026-12-01T23-45-05-01a233ff-6746-7930-8884-dbdd7187061e.jsonl", "01a233ff-6746-7930-8884-dbdd7187061e", True),
])
def test_a_vault_row_of_a_rollout_must_name_its_own_session(relpath, session_id, problem):
    from generator.output.vault.store import place_problem

    found = place_problem("/home/ada/.codex/sessions/2026/12/01/x.jsonl", "/home/ada/.codex/sessions/2026/12/01",
                          "-home-ada-tidewatch", relpath, session_id, "", "")
    assert bool(found) == problem, found


@pytest.mark.parametrize("kind", [[], ["session_meta"], {"a": 1}, 3, 2.5, True])
def test_a_first_record_whose_type_is_no_string_is_claude_code_s_damaged_entry(kind):
    """A type of the wrong JSON kind is damage for the reader to report at its line, not a crash of the whole build
    (a list or an object is not hashable: asking whether it names a Codex record must not raise)."""
    line = json.dumps({"type": kind, "uuid": "u1", "payload": {}}).encode()
    assert writer_of_line(line).agent == CLAUDE_CODE
