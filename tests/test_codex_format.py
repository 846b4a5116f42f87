"""Codex CLI's earlier rollouts (2025: the event messages beside the response items, exit codes in a JSON envelope,
`shell` calls as argument lists, `local_shell_call`, MCP tools named `<server>__<tool>`; and before mid-2025 a
metadata line and bare items), written here record by record as codex-rs/protocol defines them, read into the
one model: each message once, the harness never, every call with its output, and what is new counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from generator.build import BuildConfig, build
from generator.core.model import AssistantText, BashMode, Notice, NoticeKind, Prompt, Thinking, ToolCall, Unknown
from generator.render.stats import price_table
from generator.stages.discover import discover
from generator.stages.interpret import interpret
from generator.stages.read import read_file


def at(second: int) -> str:
    return f"2025-09-10T10:00:{second:02d}.000Z"


def record(second: int, kind: str, payload: dict) -> dict:
    return {"timestamp": at(second), "type": kind, "payload": payload}


def item(second: int, payload: dict) -> dict:
    return record(second, "response_item", payload)


def event(second: int, payload: dict) -> dict:
    return record(second, "event_msg", payload)


def user(text: str) -> dict:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def shell(call_id: str, *argv: str) -> dict:
    return {"type": "function_call", "name": "shell", "call_id": call_id,
            "arguments": json.dumps({"command": list(argv), "workdir": "/home/ada/tidewatch"})}


def envelope(output: str, exit_code: int) -> str:
    return json.dumps({"output": output, "metadata": {"exit_code": exit_code, "duration_seconds": 0.1}})


PATCH = "*** Begin Patch\n*** Update File: tides.py\n@@ def tide():\n-    return 'low'\n+    return 'high'\n*** Move to: tide.py\n*** End Patch"
SEPTEMBER_2025 = [
    record(0, "session_meta", {"id": "5973b6c0-94b8-487b-a530-2aeb6098ae0e", "timestamp": at(0),
                               "cwd": "/home/ada/tidewatch", "originator": "codex_cli_rs", "cli_version": "0.34.0",
                               "instructions": "SECRET-SYSTEM-PROMPT never shown",
                               "git": {"commit_hash": "abc123", "branch": "feature/tides",
                                       "repository_url": "git@github.com:ada/tidewatch.git"}}),
    item(1, user("<user_instructions>\n\nAGENTS-MD-WORDS never shown\n\n</user_instructions>")),
    item(1, user("<environment_context>\n  <cwd>/home/ada/tidewatch</cwd>\n</environment_context>")),
    item(2, user("Fix the tide table, <script>alert(1)</script> and <b>mind</b> the </details>")),
    event(2, {"type": "user_message", "message": "Fix the tide table, <script>alert(1)</script> and <b>mind</b> the </details>",
              "kind": "plain"}),
    record(2, "turn_context", {"cwd": "/home/ada/tidewatch", "approval_policy": "on-request", "model": "gpt-5-codex",
                               "sandbox_policy": {"mode": "workspace-write", "network_access": False},
                               "effort": "high", "summary": "auto"}),
    event(3, {"type": "agent_reasoning", "text": "**Looking at the table**"}),
    item(3, {"type": "reasoning", "summary": [{"type": "summary_text", "text": "**Looking at the table**"}],
             "content": None, "encrypted_content": "gAAAAB-encrypted"}),
    item(4, shell("call_1", "bash", "-lc", "ls")),
    event(4, {"type": "exec_command_begin", "call_id": "call_1", "command": ["bash", "-lc", "ls"]}),
    event(5, {"type": "exec_command_end", "call_id": "call_1", "stdout": "tides.py\n", "stderr": "",
              "aggregated_output": "tides.py\n", "exit_code": 0, "formatted_output": "tides.py"}),
    item(5, {"type": "function_call_output", "call_id": "call_1", "output": envelope("tides.py\n", 0)}),
    item(6, shell("call_2", "bash", "-lc", "rm -rf build")),
    item(7, {"type": "function_call_output", "call_id": "call_2", "output": "exec command rejected by user"}),
    item(8, shell("call_3", "pytest", "-q", "tests dir")),
    item(9, {"type": "function_call_output", "call_id": "call_3", "output": envelope("1 failed\n", 1)}),
    item(10, {"type": "function_call", "name": "update_plan", "call_id": "call_4", "arguments": json.dumps(
        {"plan": [{"step": "Read the table", "status": "completed"}, {"step": "Fix it", "status": "in_progress"}]})}),
    item(10, {"type": "function_call_output", "call_id": "call_4", "output": "Plan updated"}),
    event(10, {"type": "plan_update", "plan": [{"step": "Read the table", "status": "completed"}]}),
    item(11, {"type": "custom_tool_call", "status": "completed", "call_id": "call_5", "name": "apply_patch", "input": PATCH}),
    event(12, {"type": "patch_apply_end", "call_id": "call_5", "stdout": "M tide.py", "stderr": "", "success": True}),
    item(12, {"type": "custom_tool_call_output", "call_id": "call_5",
              "output": envelope("Success. Updated the following files:\nM tide.py\n", 0)}),
    item(13, {"type": "local_shell_call", "call_id": "call_6", "status": "completed",
              "action": {"type": "exec", "command": ["git", "status"], "working_directory": "/home/ada/tidewatch"}}),
    item(13, {"type": "function_call_output", "call_id": "call_6", "output": "On branch feature/tides"}),
    item(14, {"type": "function_call", "name": "tidewatch__forecast", "call_id": "call_7",
              "arguments": json.dumps({"port": "Brest"})}),
    item(14, {"type": "function_call_output", "call_id": "call_7", "output": {"content": "Sunny all day", "success": True}}),
    item(15, {"type": "function_call", "name": "shell", "call_id": "call_8", "arguments": "not json {"}),
    item(15, {"type": "function_call_output", "call_id": "call_8", "output": "failed to parse function arguments"}),
    item(16, {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "brest tides"}}),
    event(17, {"type": "agent_message", "message": "Done, the table is fixed."}),
    item(17, {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done, the table is fixed."}]}),
    event(18, {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 5000, "cached_input_tokens": 1000,
                                                                    "output_tokens": 300, "reasoning_output_tokens": 100,
                                                                    "total_tokens": 5300}}, "rate_limits": None}),
    event(18, {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 5000, "cached_input_tokens": 1000,
                                                                    "output_tokens": 300, "total_tokens": 5300}}}),
    event(18, {"type": "token_count", "info": None, "rate_limits": {"primary": {"used_percent": 3.0}}}),
    item(19, user("And again")),
    event(19, {"type": "user_message", "message": "And again", "kind": "plain"}),
    event(20, {"type": "turn_aborted", "reason": "interrupted"}),
    event(21, {"type": "exec_command_end", "call_id": "user-shell-1", "command": ["bash", "-lc", "make test"],
               "stdout": "all passed", "stderr": "", "exit_code": 0, "source": "user_shell"}),
    record(22, "compacted", {"message": "Earlier: the table was fixed."}),
    event(23, {"type": "thread_name_updated", "thread_name": "Tide table fix"}),
    event(24, {"type": "error", "message": "stream disconnected before completion"}),
    event(25, {"type": "some_future_event", "detail": 1}),
    record(26, "future_record", {"detail": 2}),
    record(27, "session_meta", ["not", "an", "object"]),
]

APRIL_2025 = [
    {"id": "0b1c2d3e-0000-4000-8000-000000000001", "timestamp": "2025-04-20T10:00:00.000Z", "instructions": None,
     "git": {"branch": "main"}},
    {"record_type": "state"},
    user("Hello early codex"),
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hi from April"}]},
    shell("c1", "ls", "missing folder"),
    {"type": "function_call_output", "call_id": "c1", "output": envelope("ls: cannot access\n", 2)},
]


def write(path: Path, records: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def interpreted(path: Path):
    [found] = discover([path])
    return found, interpret(found, read_file(path))


def test_a_2025_rollout_reads_into_the_one_model(tmp_path):
    log = write(tmp_path / "sessions" / "2025" / "09" / "10" / "rollout-2025-09-10T10-00-00-5973b6c0.jsonl", SEPTEMBER_2025)
    found, result = interpreted(log)
    assert found.agent == "codex" and found.project_dir == "-home-ada-tidewatch"
    session = result.session
    assert session.session_id == "5973b6c0-94b8-487b-a530-2aeb6098ae0e" and session.git_branch == "feature/tides"
    assert session.versions == ("0.34.0",) and session.models == ("gpt-5-codex",) and session.agent == "codex"
    assert session.title == "Tide table fix"
    events = session.events
    prompts = [e.text for e in events if isinstance(e, Prompt)]
    assert prompts == ["Fix the tide table, <script>alert(1)</script> and <b>mind</b> the </details>", "And again"]
    assert [e.text for e in events if isinstance(e, Thinking)] == ["**Looking at the table**"]
    assert [e.text for e in events if isinstance(e, AssistantText)] == ["Done, the table is fixed."]
    calls = {e.tool_use_id: e for e in events if isinstance(e, ToolCall)}
    assert calls["call_1"].name == "Bash" and calls["call_1"].input["command"] == "ls"
    assert calls["call_1"].result.text == "tides.py\n" and calls["call_1"].result.structured["exit_code"] == 0
    assert calls["call_2"].result.is_error and calls["call_2"].result.structured["status"] == "denied"
    assert calls["call_3"].input["command"] == "pytest -q 'tests dir'" and calls["call_3"].result.structured["exit_code"] == 1
    assert calls["call_4"].name == "TodoWrite" and [t["content"] for t in calls["call_4"].input["todos"]] == [
        "Read the table", "Fix it"]
    patch = calls["call_5"]
    assert patch.name == "apply_patch" and patch.input["files"] == ["tides.py"]
    assert patch.input["changes"][0]["move_to"] == "tide.py" and "+    return 'high'" in patch.input["changes"][0]["diff"]
    assert calls["call_6"].name == "Bash" and calls["call_6"].input["command"] == "git status"
    assert calls["call_7"].name == "mcp__tidewatch__forecast" and calls["call_7"].result.text == "Sunny all day"
    assert calls["call_8"].input == {"input": "not json {", "command": "not json {"} and calls["call_8"].result.is_error
    [search] = [call for call in calls.values() if call.name == "WebSearch"]
    assert search.input["query"] == "brest tides" and not search.result.is_error
    notices = [(e.kind, e.text) for e in events if isinstance(e, Notice) and not e.hidden]
    assert (NoticeKind.INTERRUPT, "Interrupted by the user") in notices
    assert any(kind == NoticeKind.COMPACTION for kind, _ in notices)
    assert any(kind == NoticeKind.API_ERROR and "stream disconnected" in text for kind, text in notices)
    settings = next(e for e in events if isinstance(e, Notice) and e.kind == NoticeKind.MODEL_SETTINGS)
    assert dict(settings.details) == {"model": "gpt-5-codex", "reasoning effort": "high", "reasoning summaries": "auto",
                                      "approvals": "on-request", "sandbox": "workspace-write"}
    [ran] = [e for e in events if isinstance(e, BashMode)]
    assert ran.command == "make test" and ran.stdout == "all passed"
    # Usage counted once, however often the running total is repeated; cached input apart from fresh input.
    assert (session.usage.input_tokens, session.usage.cache_read_tokens, session.usage.output_tokens) == (4000, 1000, 300)
    # Priced at OpenAI's published prices for gpt-5-codex: $1.25 input, $0.125 cached input, $10 output per million.
    assert price_table().cost("gpt-5-codex", session.usage) == pytest.approx((4000 * 1.25 + 1000 * 0.125 + 300 * 10) / 1e6)
    assert dict(result.unknown) == {"codex-event:some_future_event": 1, "codex-record:future_record": 1,
                                    "shape:session_meta": 1}
    unknown = [e for e in events if isinstance(e, Unknown)]
    assert [e.hidden for e in unknown] == [True, True, False]
    assert any("payload is not an object" in d.message and d.line == len(SEPTEMBER_2025) for d in result.diagnostics)


def test_a_2025_rollout_page_shows_text_as_text_and_never_the_harness(tmp_path):
    log = write(tmp_path / "in" / "rollout-2025-09-10T10-00-00-5973b6c0.jsonl", SEPTEMBER_2025)
    site = tmp_path / "site"
    build(BuildConfig(inputs=(log.parent,), output=site, vault=None))
    html = next(site.glob("projects/*/rollout-*.html")).read_text(encoding="utf-8")
    soup = BeautifulSoup(html, "html.parser")
    assert not soup.select("script:not([src])") or all("alert(1)" not in s.get_text() for s in soup.select("script"))
    assert "<script>alert(1)</script>" in soup.get_text() and "</details>" in soup.get_text()
    everything = "".join(p.read_text(encoding="utf-8", errors="replace") for p in site.rglob("*") if p.is_file())
    assert "SECRET-SYSTEM-PROMPT" not in everything and "AGENTS-MD-WORDS" not in everything
    assert "gAAAAB-encrypted" not in everything
    patch = next(tool for tool in soup.select("details.tool") if tool.select_one(".tool-name").get_text() == "Patch")
    assert patch.select_one("p.label").get_text() == "tides.py (changed, moved to tide.py)"
    denied = next(tool for tool in soup.select("details.tool") if "rm -rf build" in tool.get_text())
    assert denied.select_one(".status").get_text() == "denied"
    failed = next(tool for tool in soup.select("details.tool") if "pytest" in tool.get_text())
    assert failed.select_one(".status").get_text() == "exit 1"


def test_an_april_2025_rollout_of_bare_items(tmp_path):
    log = write(tmp_path / "rollout-2025-04-20-0b1c2d3e.jsonl", APRIL_2025)
    found, result = interpreted(log)
    assert found.agent == "codex"
    session = result.session
    assert session.git_branch == "main" and session.session_id == "0b1c2d3e-0000-4000-8000-000000000001"
    assert [e.text for e in session.events if isinstance(e, Prompt)] == ["Hello early codex"]
    assert [e.text for e in session.events if isinstance(e, AssistantText)] == ["Hi from April"]
    [call] = [e for e in session.events if isinstance(e, ToolCall)]
    assert call.input["command"] == "ls 'missing folder'" and call.result.is_error
    assert dict(result.unknown) == {}


def test_a_person_typing_a_tag_is_a_prompt_and_codex_blocks_are_not(tmp_path):
    records = [SEPTEMBER_2025[0], item(1, user("<details>my own words</details>")),
               item(2, user("<turn_aborted>\nThe user interrupted.\n</turn_aborted>")),
               item(3, user("<subagent_notification>{}</subagent_notification>")),
               item(4, user("# AGENTS.md instructions for /home/ada/tidewatch\n\nrules"))]
    _, result = interpreted(write(tmp_path / "r.jsonl", records))
    assert [e.text for e in result.session.events if isinstance(e, Prompt)] == ["<details>my own words</details>"]


def test_secrets_in_a_codex_session_are_redacted(tmp_path):
    """A key a command printed, one pasted into a prompt, one in a patch: redacted on every page, as in Claude
    Code's logs (redaction reads every string of every record, whatever agent wrote it)."""
    github = "ghp_" + "R8x2Lq9ZtV4mK7pW3sN6yB1cD5fH0jG2aE8u"
    aws = "AKIA" + "Q3EGRZ7T6H2XK4WM"
    records = [SEPTEMBER_2025[0],
               item(1, user(f"Use the token {github} to push")),
               item(2, shell("call_env", "bash", "-lc", "cat .env")),
               item(3, {"type": "function_call_output", "call_id": "call_env",
                        "output": envelope(f"AWS_ACCESS_KEY_ID={aws}\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY\n", 0)}),
               item(4, {"type": "custom_tool_call", "call_id": "call_patch", "name": "apply_patch",
                        "input": f"*** Begin Patch\n*** Add File: .env\n+GITHUB_TOKEN={github}\n*** End Patch"}),
               item(5, {"type": "custom_tool_call_output", "call_id": "call_patch", "output": "Success."})]
    log = write(tmp_path / "in" / "rollout-2025-09-10T10-00-00-5973b6c0.jsonl", records)
    site = tmp_path / "site"
    report = build(BuildConfig(inputs=(log.parent,), output=site, vault=None))
    everything = "".join(p.read_text(encoding="utf-8", errors="replace") for p in site.rglob("*") if p.is_file())
    for secret in (github, aws, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"):
        assert secret not in everything
    assert sum(report.redactions.values()) >= 3
    assert "Use the token" in everything and "cat .env" in everything


def test_ids_a_log_repeats_make_no_two_elements_share_an_anchor(tmp_path):
    same = {"id": "msg_same", "call_id": "call_same"}
    records = [SEPTEMBER_2025[0],
               item(1, {**user("first"), **same}), item(2, {**user("second"), **same}),
               item(3, {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "one"}], **same}),
               item(4, {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "two"}], **same}),
               item(5, {"type": "reasoning", "summary": [{"type": "summary_text", "text": "a"}, {"type": "summary_text", "text": "b"}], **same}),
               item(6, {"type": "web_search_call", "status": "completed", "action": {"query": "x"}, **same}),
               item(7, {"type": "web_search_call", "status": "completed", "action": {"query": "y"}, **same}),
               item(8, shell("call_same", "ls")), item(9, shell("call_same", "pwd"))]
    _, result = interpreted(write(tmp_path / "r.jsonl", records))
    anchors = [event.anchor for event in result.session.events]
    assert len(anchors) == len(set(anchors)), anchors
