"""Faithful to today's Claude Code (issue 28, part 4): real logs written by Claude Code up to 2.1.143 that
built without a crash but showed the wrong thing. Each fixture is shaped like the entries those versions
write (see ../shared/format/CHANGES-2026.md); each test asserts what a reader sees, on the page and in the
Markdown beside it."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from bs4 import BeautifulSoup

from generator.stages.read import read_file

from helpers import (
    build_project,
    PROJECT_DIR,
    SESSION_ID,
    assistant,
    chain,
    element_ids,
    interpret_entries,
    text,
    tool_result,
    tool_use,
    usage_block,
    user,
    write_jsonl,
)

NEW_VERSION = "2.1.143"



def _session_file(out: Path, name: str) -> Path:
    return next((out / "projects").iterdir()) / name


def _page(out: Path, name: str = f"{SESSION_ID}.html") -> BeautifulSoup:
    return BeautifulSoup(_session_file(out, name).read_text(encoding="utf-8"), "html.parser")


def _markdown(out: Path, name: str = f"{SESSION_ID}.md") -> str:
    return _session_file(out, name).read_text(encoding="utf-8")


def _project_page_links(out: Path) -> list[str]:
    project = BeautifulSoup(_session_file(out, "index.html").read_text(encoding="utf-8"), "html.parser")
    return [" ".join(a.get_text().split()) for a in project.select("a") if a.get("href", "").endswith(".html")]


# -- 1. A document attached to a prompt ------------------------------------------------------------------

INSTRUCTIONS = ("Refactor the tide table parser\n\n- keep the public API\n- add tests for leap years\n"
                "- the harmonic constants stay in harmonics.py")


def _document_prompt(source: dict, typed: str = "go", **extra) -> list[dict]:
    document = {"type": "document", "source": source, **extra}
    return chain(user([document, text(typed)], version=NEW_VERSION), assistant(text("On it."), version=NEW_VERSION))


def test_a_text_document_attached_to_a_prompt_is_shown_and_names_the_session(tmp_path):
    source = {"type": "text", "media_type": "text/plain", "data": INSTRUCTIONS}
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": _document_prompt(source, title="instructions.txt")})
    prompt = _page(out).select_one(".msg.user")
    shown = prompt.get_text()
    assert "go" in shown and "add tests for leap years" in shown and "instructions.txt" in shown
    assert "harmonics.py" in _markdown(out)
    title = _page(out).find("h1").get_text()
    assert "Refactor the tide table parser" in title and title != "go"


def test_a_base64_text_document_and_a_pdf_are_shown_too(tmp_path):
    encoded = {"type": "base64", "media_type": "text/plain",
               "data": base64.b64encode(INSTRUCTIONS.encode()).decode()}
    pdf = {"type": "base64", "media_type": "application/pdf", "data": base64.b64encode(b"%PDF-1.4\n%%EOF").decode()}
    entries = chain(
        user([{"type": "document", "source": encoded}, {"type": "document", "source": pdf, "title": "spec.pdf"},
              text("do it")], version=NEW_VERSION),
        assistant(text("Reading both."), version=NEW_VERSION))
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": entries})
    prompt = _page(out).select_one(".msg.user")
    assert "add tests for leap years" in prompt.get_text()
    assert any(a["href"].endswith(".pdf") for a in prompt.select("a[href]"))
    assert "Refactor the tide table parser" in _page(out).find("h1").get_text()


def test_a_documents_text_stays_text(tmp_path):
    hostile = "<script>alert(1)</script>\n# not a heading\n[click](javascript:alert(1))"
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": _document_prompt({"type": "text", "media_type": "text/plain",
                                                                     "data": hostile})})
    prompt = _page(out).select_one(".msg.user")
    assert prompt.find("script") is None and prompt.find("h1") is None
    assert not any("javascript" in a.get("href", "") for a in prompt.select("a"))
    assert "<script>alert(1)</script>" in prompt.get_text()


# -- 2. An assistant entry whose message is not an object ------------------------------------------------

def test_an_assistant_message_spread_into_characters_is_read_and_said(tmp_path):
    reply = "Hi, the parser is fixed."
    spread = assistant(text("placeholder"), version=NEW_VERSION)
    spread["message"] = {str(index): char for index, char in enumerate(reply)}
    plain_string = assistant(text("placeholder"), version=NEW_VERSION)
    plain_string["message"] = "Second reply, written as a bare string."
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": chain(user("fix the parser"), spread, plain_string)})
    page = _page(out)
    assert reply in page.get_text() and "Second reply, written as a bare string." in page.get_text()
    assert reply in _markdown(out) and "Second reply, written as a bare string." in _markdown(out)
    report = (out / "report.html").read_text(encoding="utf-8") if (out / "report.html").exists() else ""
    interpreted = interpret_entries(tmp_path / "again", chain(user("fix the parser"), dict(spread)))
    assert any("message" in d.message and "not an object" in d.message for d in interpreted.diagnostics), report


def test_an_assistant_message_of_another_kind_is_shown_raw_with_a_diagnostic(tmp_path):
    numbers = assistant(text("placeholder"))
    numbers["message"] = [1, 2, 3]
    interpreted = interpret_entries(tmp_path, chain(user("hello"), numbers))
    assert any("not an object" in d.message for d in interpreted.diagnostics)
    assert interpreted.unknown["shape:assistant"] == 1


# -- 3. Two JSON entries on one line ---------------------------------------------------------------------

def test_two_entries_on_one_line_are_both_read(tmp_path):
    first, second = chain(user("first prompt"), assistant(text("First answer.")))
    third = user("third prompt", parentUuid=second["uuid"])
    line = json.dumps(first) + json.dumps(second) + "  " + json.dumps(third)
    path = write_jsonl(tmp_path / PROJECT_DIR / f"{SESSION_ID}.jsonl", [line, assistant(text("Bye."))])
    result = read_file(path)
    assert [item.data["uuid"] for item in result.items[:3]] == [first["uuid"], second["uuid"], third["uuid"]]
    assert any("2" in d.message or "3" in d.message for d in result.diagnostics)
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": [line]})
    page = _page(out)
    assert "First answer." in page.get_text() and "third prompt" in page.get_text()
    assert "First answer." in _markdown(out) and "third prompt" in _markdown(out)
    assert page.select_one(".unreadable") is None


def test_a_good_entry_then_garbage_on_one_line_keeps_the_entry_and_shows_the_rest(tmp_path):
    first = user("kept prompt")
    path = write_jsonl(tmp_path / f"{SESSION_ID}.jsonl", [json.dumps(first) + '{"type": "assis'])
    items = read_file(path).items
    assert items[0].data["uuid"] == first["uuid"]
    assert len(items) == 2 and '{"type": "assis' in items[1].text


def test_a_line_of_two_non_objects_is_still_unreadable(tmp_path):
    path = write_jsonl(tmp_path / f"{SESSION_ID}.jsonl", ["[1][2]", '"a""b"'])
    items = read_file(path).items
    assert len(items) == 2 and all(hasattr(item, "reason") for item in items)


# -- 4. A background task's result keeps its Markdown ----------------------------------------------------

def test_a_task_notifications_result_keeps_its_lines_and_lists(tmp_path):
    call = tool_use("Agent", {"description": "Audit", "prompt": "audit the repo", "subagent_type": "general-purpose",
                              "run_in_background": True}, "toolu_01BackgroundAgent01")
    result = "## Findings\n\n- the parser drops leap days\n- two tests are flaky\n\n1. fix the parser\n2. rerun"
    entries = chain(
        user("audit it in the background"), assistant(call),
        tool_result(call["id"], "Async agent launched successfully. agentId: a1b2c3",
                    structured={"status": "async_launched", "agentId": "a1b2c3"}),
        user("<task-notification>\n<task-id>a1b2c3</task-id>\n<tool-use-id>toolu_01BackgroundAgent01</tool-use-id>\n"
             "<status>completed</status>\n<summary>Agent \"Audit\" completed</summary>\n"
             f"<result>{result}</result>\n</task-notification>",
             origin={"kind": "task-notification"}),
        assistant(text("The audit is back.")))
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": entries})
    notice = _page(out).select_one(".notice-task-notification")
    container = notice.parent
    items = [li.get_text(" ", strip=True) for li in container.select("ul li")]
    assert items == ["the parser drops leap days", "two tests are flaky"]
    assert [li.get_text(strip=True) for li in container.select("ol li")] == ["fix the parser", "rerun"]
    markdown = _markdown(out)
    assert "\n- the parser drops leap days\n- two tests are flaky\n" in markdown


# -- 5. SendMessage ---------------------------------------------------------------------------------------

def _team_session(message_input: dict) -> dict[str, list]:
    spawn = tool_use("Agent", {"name": "researcher", "team_name": "tides", "description": "Research tides",
                               "prompt": "find the harmonic constants", "subagent_type": "general-purpose"},
                     "toolu_01SpawnResearcher1")
    send = tool_use("SendMessage", message_input, "toolu_01SendMessage0001")
    main = chain(
        user("split the work"), assistant(spawn),
        tool_result(spawn["id"], "Spawned successfully. agent_id: researcher@tides",
                    structured={"status": "teammate_spawned", "agentId": "a7d1e2f3"}),
        assistant(send),
        tool_result(send["id"], json.dumps({"success": True, "message": "Message sent to researcher's inbox"}),
                    structured={"success": True}),
        assistant(text("Sent.")))
    agent = [user("find the harmonic constants", isSidechain=True, agentId="a7d1e2f3"),
             assistant(text("Found them."), isSidechain=True, agentId="a7d1e2f3")]
    return {f"{SESSION_ID}.jsonl": main, f"{SESSION_ID}/subagents/agent-a7d1e2f3.jsonl": chain(*agent)}


def test_send_message_reads_as_a_message_and_links_the_agent(tmp_path):
    out = build_project(tmp_path, _team_session({"to": "researcher", "summary": "check leap years",
                                          "message": "Please also check **leap years**:\n\n- 2024\n- 2028"}))
    page = _page(out)
    card = page.select_one("details.tool[id='e-toolu_01SendMessage0001']")
    assert card is not None
    shown = card.get_text(" ", strip=True)
    assert "check leap years" in shown and "researcher" in shown
    assert '"to"' not in shown and "{" not in card.select_one("summary").get_text()
    assert [li.get_text() for li in card.select("li")] == ["2024", "2028"]
    links = [a["href"] for a in card.select("a[href]")]
    assert any(href.endswith("agent-a7d1e2f3.html") for href in links)
    assert "agent-a7d1e2f3.md" in _markdown(out)


def test_send_message_in_the_older_shape_and_to_an_agent_id(tmp_path):
    out = build_project(tmp_path, _team_session({"type": "message", "recipient": "a7d1e2f3", "content": "Stop now.",
                                          "summary": "stop"}))
    card = _page(out).select_one("details.tool[id='e-toolu_01SendMessage0001']")
    assert "Stop now." in card.get_text() and '"recipient"' not in card.get_text()
    assert any(a["href"].endswith("agent-a7d1e2f3.html") for a in card.select("a[href]"))


def test_send_message_to_someone_unknown_is_not_linked(tmp_path):
    out = build_project(tmp_path, _team_session({"to": "*", "summary": "all", "message": "Everyone stop."}))
    card = _page(out).select_one("details.tool[id='e-toolu_01SendMessage0001']")
    assert "Everyone stop." in card.get_text()
    assert not any("agent-" in a["href"] for a in card.select("a[href]"))


# -- 6. Thinking whose text was not kept -----------------------------------------------------------------

def test_signature_only_thinking_leaves_a_marker(tmp_path):
    empty = {"type": "thinking", "thinking": "", "signature": "EqQBCkgIBxABGAIqQLx"}
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": chain(user("think hard"), assistant(empty, version=NEW_VERSION),
                                                         assistant(text("Done."), version=NEW_VERSION))})
    reply = _page(out).select_one(".msg.assistant") or _page(out).select_one(".msg:not(.user)")
    marker = reply.select_one(".thinking-not-kept")
    assert marker is not None and "not kept" in marker.get_text()
    assert "not kept" in _markdown(out)


# -- 7. Other backends: server_tool_use and tool_result inside an assistant message: tests/fixtures/cases/tools.md


# -- 8. A plan approved after the user edited it, or unedited: tests/fixtures/cases/tools.md (ExitPlanMode)


# -- 9. Harmless new fields and <synthetic> --------------------------------------------------------------

NEW_FIELDS = {"attributionAgent": "general-purpose", "errorDetails": {"code": 529}, "promptId": "p-1",
              "promptSource": "typed", "turnOrigin": "user", "turnPosition": 0, "origin": {"kind": "human"},
              "entrypoint": "cli", "requestRef": "r-1", "apiBlockIndex": 0, "requestedModel": "opus",
              "effort": "high", "perTurnEffort": "high", "madeBy": "user", "permissionDecision": "allow",
              "sandboxed": False, "attributionSkill": "pdf"}


def test_harmless_new_fields_are_not_unknown_and_real_unknowns_still_are(tmp_path):
    entries = chain(user("hello", **NEW_FIELDS), assistant(text("Hi."), **NEW_FIELDS, surpriseField=1))
    unknown = interpret_entries(tmp_path, entries).unknown
    assert [name for name in unknown if name.startswith("field:")] == ["field:surpriseField"]


def test_synthetic_messages_are_no_model_in_lists_or_figures(tmp_path):
    synthetic = assistant(text("No response requested."), model="<synthetic>",
                          usage=usage_block(0, 0, 0, 0))
    entries = chain(user("hello"), assistant(text("Hi.")), user("ok"), synthetic)
    session = interpret_entries(tmp_path, entries).session
    assert list(session.usage_by_model) == ["claude-opus-4-6"] and session.models == ("claude-opus-4-6",)
    # How the page shows it: tests/fixtures/cases/assistant.md, "A synthetic message (no model)".


# -- 10. A session started with a slash command and its arguments ----------------------------------------

def test_a_session_started_by_a_custom_command_counts_it_as_a_prompt_and_is_named_by_it(tmp_path):
    entries = chain(
        user("<command-message>orchestrator is running…</command-message>\n<command-name>/orchestrator</command-name>\n"
             "<command-args>create TODO app</command-args>"),
        user([text("You orchestrate work. Task: create TODO app")], isMeta=True),
        assistant(text("Planning the TODO app.")),
        user("use sqlite"),
        assistant(text("Done.")))
    session = interpret_entries(tmp_path, entries).session
    assert session.prompt_count == 2
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": entries})
    assert _page(out).find("h1").get_text().strip() == "/orchestrator create TODO app"
    assert "/orchestrator create TODO app" in _project_page_links(out)
    assert 'title: "/orchestrator create TODO app"' in _markdown(out) and "prompts: 2" in _markdown(out)


def test_built_in_commands_are_not_prompts(tmp_path):
    entries = chain(
        user("<command-name>/model</command-name>\n<command-message>model</command-message>\n"
             "<command-args>opus</command-args>"),
        user("<local-command-stdout>Set model to opus</local-command-stdout>"),
        user("fix the parser"), assistant(text("Fixed.")))
    session = interpret_entries(tmp_path, entries).session
    assert session.prompt_count == 1 and session.first_prompt == "fix the parser"


def test_a_hostile_send_message_stays_text(tmp_path):
    out = build_project(tmp_path, _team_session({"to": "<img src=x onerror=alert(1)>", "summary": "<b>hi</b>",
                                          "message": "<script>alert(2)</script>[x](javascript:alert(3))"}))
    card = _page(out).select_one("details.tool[id='e-toolu_01SendMessage0001']")
    assert card.find(["img", "script", "b"]) is None
    assert not any("javascript" in a.get("href", "") for a in card.select("a"))
    assert "<img src=x onerror=alert(1)>" in card.select_one("summary").get_text()
    assert "<script>alert(2)</script>" in card.get_text()


def test_many_empty_objects_on_one_line_are_padding(tmp_path):
    path = write_jsonl(tmp_path / f"{SESSION_ID}.jsonl", ["{}" * 50_000 + json.dumps(user("after the padding"))])
    items = read_file(path).items
    assert [item.data["message"]["content"] for item in items] == ["after the padding"]


def test_entries_on_one_line_that_share_a_uuid_get_ids_of_their_own(tmp_path):
    first = user("first")
    twin_a = assistant(text("Twin A."), uuid=first["uuid"])
    twin_b = assistant(text("Twin B."), uuid=first["uuid"])
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": [first, json.dumps(twin_a) + json.dumps(twin_b)]})
    html = _session_file(out, f"{SESSION_ID}.html").read_text(encoding="utf-8")
    ids = element_ids(html)
    assert len(ids) == len(set(ids))
    assert "Twin A." in html and "Twin B." in html


def test_a_spread_message_with_keys_beside_it_and_split_characters_is_recovered_whole(tmp_path):
    """The family of spread messages: the string is the message's JSON (a tool call in it), other keys of the
    message sit beside the positions, and a character outside the BMP comes as two UTF-16 halves, as
    JavaScript spreads it."""
    message = json.dumps({"role": "assistant", "content": [
        {"type": "text", "text": "Tide checked 🌊 at Penzance."},
        {"type": "tool_use", "id": "toolu_spread1", "name": "Bash", "input": {"command": "echo tide"}}]},
        ensure_ascii=False)
    halves = message.encode("utf-16-le", "surrogatepass")
    units = [halves[i:i + 2].decode("utf-16-le", "surrogatepass") for i in range(0, len(halves), 2)]
    spread = assistant(text("placeholder"), version=NEW_VERSION)
    spread["message"] = {**{str(index): unit for index, unit in enumerate(units)}, "model": "claude-opus-4-6",
                         "id": "msg_spread"}
    # As Claude Code writes it: each half escaped on its own (\\ud83c\\udf0a), which UTF-8 cannot hold raw.
    entries = [json.dumps(entry) for entry in chain(user("check the tide"), spread, tool_result("toolu_spread1", "tide"))]
    interpreted = interpret_entries(tmp_path, entries)
    assert any("not an object" in d.message and d.line == 2 for d in interpreted.diagnostics)
    out = build_project(tmp_path / "site", {f"{SESSION_ID}.jsonl": entries})
    page = _page(out).get_text()
    assert "Tide checked 🌊 at Penzance." in page and "echo tide" in page
