"""Format fidelity: plans and their outcomes, task lists, questions, media, tool errors, subagents rebuilt
from progress, permission modes and counts, from JSONL in to what the reader sees."""

from __future__ import annotations

import json
from pathlib import Path

from bs4 import BeautifulSoup

from generator.build import BuildConfig, build
from generator.core.model import Notice, Plan, Prompt, ToolCall

from helpers import (
    CWD,
    PNG_BYTES,
    PROJECT_DIR,
    SESSION_ID,
    assistant,
    chain,
    events_of,
    image,
    interpret_entries,
    system,
    text,
    tool_result,
    tool_use,
    user,
    write_jsonl,
)

PLAN = "# Plan: add `extremes`\n\n1. Find turning points.\n2. Print them."
REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
            "edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n"
            "Use hourly steps, not minutes.")


def site_for(tmp_path: Path, entries: list[dict], name: str = SESSION_ID) -> tuple[Path, BeautifulSoup]:
    project = tmp_path / "in" / PROJECT_DIR
    write_jsonl(project / f"{name}.jsonl", entries)
    out = tmp_path / "site"
    build(BuildConfig(inputs=(project,), output=out))
    page = out / "projects" / PROJECT_DIR.lstrip("-") / f"{name}.html"
    return out, BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")


# -- plans ------------------------------------------------------------------------------------------------


def test_an_approved_plan_is_a_plan_card_marked_approved(tmp_path):
    call = tool_use("ExitPlanMode", {"plan": PLAN})
    entries = chain(user("plan it"), assistant(call),
                    tool_result(call["id"], "User has approved your plan. You can now start coding."))
    (plan,) = events_of(interpret_entries(tmp_path, entries).session, Plan)
    assert (plan.status, plan.text) == ("approved", PLAN)
    _, soup = site_for(tmp_path, entries)
    card = soup.select_one("div.plan")
    assert card.select_one(".status").get_text() == "approved"
    assert "Find turning points." in card.get_text()


def test_a_rejected_plan_shows_what_the_user_said(tmp_path):
    call = tool_use("ExitPlanMode", {"plan": PLAN})
    entries = chain(user("plan it"), assistant(call), tool_result(call["id"], REJECTED, is_error=True),
                    assistant(text("Switching to hourly steps.")))
    (plan,) = events_of(interpret_entries(tmp_path, entries).session, Plan)
    assert plan.status == "rejected"
    assert plan.feedback == "Use hourly steps, not minutes."
    _, soup = site_for(tmp_path, entries)
    card = soup.select_one("div.plan")
    assert card.select_one(".status").get_text() == "rejected"
    assert "Use hourly steps, not minutes." in card.select_one("blockquote").get_text()


def test_accept_and_clear_context_in_the_old_format_is_an_approval(tmp_path):
    call = tool_use("ExitPlanMode", {"plan": PLAN})
    implement = (f"Implement the following plan:\n\n{PLAN}\n\nIf you need specific details from before exiting "
                 "plan mode (like exact code snippets), read the full transcript at: /tmp/x.jsonl")
    entries = chain(user("plan it"), assistant(call), tool_result(call["id"], REJECTED.split(" To tell")[0],
                                                                    is_error=True),
                    user([text("[Request interrupted by user for tool use]")]), user(implement),
                    assistant(text("Starting on the plan.")))
    session = interpret_entries(tmp_path, entries).session
    (plan,) = events_of(session, Plan)
    assert plan.status == "approved" and "fresh context" in plan.how
    hidden = [e for e in session.events if getattr(e, "hidden", False)]
    assert {type(e).__name__ for e in hidden} == {"Prompt", "Notice"}  # the preamble and the interrupt
    assert session.prompt_count == 1
    _, soup = site_for(tmp_path, entries)
    assert "Implement the following plan" not in soup.select_one("article").get_text()
    assert "[Request interrupted" not in soup.get_text()


def test_plan_content_opens_the_implementation_session_as_its_approved_plan(tmp_path):
    implement = f"Implement the following plan:\n\n{PLAN}\n\nIf you need specific details… read the full transcript at: /x/p.jsonl"
    first = user(implement, planContent=PLAN)
    first["parentUuid"] = None
    entries = chain(first, assistant(text("On it.")))
    session = interpret_entries(tmp_path, entries).session
    assert isinstance(session.events[0], Plan) and session.events[0].status == "approved"
    _, soup = site_for(tmp_path, entries)
    assert soup.select_one("article div.plan") is not None
    assert soup.find("title").get_text().startswith("Plan: add extremes")


def test_a_plan_with_no_answer_is_pending(tmp_path):
    entries = chain(user("plan it"), assistant(tool_use("ExitPlanMode", {"plan": PLAN})))
    (plan,) = events_of(interpret_entries(tmp_path, entries).session, Plan)
    assert plan.status == "pending"


def test_plan_mode_and_enter_plan_mode_are_marked(tmp_path):
    enter = tool_use("EnterPlanMode", {})
    entries = chain(user("think first", permissionMode="plan"), assistant(enter),
                    tool_result(enter["id"], "Entered plan mode."))
    notices = [e for e in events_of(interpret_entries(tmp_path, entries).session, Notice) if e.kind == "permission-mode"]
    assert len(notices) == 1 and "Plan mode" in notices[0].text
    _, soup = site_for(tmp_path, entries)
    assert soup.select_one(".notice-permission-mode") is not None
    assert soup.select_one("details.plan-mode .tool-name").get_text() == "Plan mode"


# -- tasks and todos --------------------------------------------------------------------------------------


def _task_session() -> list[dict]:
    create_a = tool_use("TaskCreate", {"subject": "Add extrema module", "description": "…", "activeForm": "Adding"})
    create_b = tool_use("TaskCreate", {"subject": "Add CLI command", "description": "…", "activeForm": "Adding"})
    start = tool_use("TaskUpdate", {"taskId": "1", "status": "in_progress"})
    finish = tool_use("TaskUpdate", {"taskId": "1", "status": "completed"})
    listing = tool_use("TaskList", {})
    return chain(
        user("build it"),
        assistant(create_a), tool_result(create_a["id"], "Task #1 created", structured={"task": {"id": "1", "subject": "Add extrema module"}}),
        assistant(create_b), tool_result(create_b["id"], "Task #2 created", structured={"task": {"id": "2", "subject": "Add CLI command"}}),
        assistant(start), tool_result(start["id"], "Updated task #1 status", structured={"success": True, "taskId": "1"}),
        assistant(text("Writing the module.")),
        assistant(finish), tool_result(finish["id"], "Updated task #1 status", structured={"success": True, "taskId": "1"}),
        assistant(listing), tool_result(listing["id"], "#1 [completed] Add extrema module\n#2 [pending] Add CLI command"),
    )


def test_task_create_and_update_track_the_whole_list(tmp_path):
    calls = [c for c in events_of(interpret_entries(tmp_path, _task_session()).session, ToolCall)
             if c.name in ("TaskCreate", "TaskUpdate")]
    snapshots = [[(t.id, t.status) for t in call.tasks] for call in calls]
    assert snapshots == [
        [("1", "pending")],
        [("1", "pending"), ("2", "pending")],
        [("1", "in_progress"), ("2", "pending")],
        [("1", "completed"), ("2", "pending")],
    ]


def test_the_checklist_is_shown_after_each_change_and_task_list_stays_quiet(tmp_path):
    _, soup = site_for(tmp_path, _task_session())
    lists = soup.select("details.checklist")
    assert len(lists) == 4
    last = lists[-1]
    assert [box.has_attr("checked") for box in last.select("input[type=checkbox]")] == [True, False]
    assert "TaskList" not in soup.select_one("article").get_text()


# -- questions --------------------------------------------------------------------------------------------


def test_questions_show_options_and_the_answers_picked(tmp_path):
    question = {"question": "Which output formats?", "header": "Formats", "multiSelect": True,
                "options": [{"label": "Table", "description": "aligned columns"},
                            {"label": "JSON", "description": "for scripts"},
                            {"label": "CSV", "description": "for spreadsheets"}]}
    call = tool_use("AskUserQuestion", {"questions": [question]})
    entries = chain(user("add output formats"), assistant(call), tool_result(
        call["id"], 'User has answered your questions: "Which output formats?"="Table, JSON". You can now continue.',
        structured={"questions": [question], "answers": {"Which output formats?": "Table, JSON"}}))
    _, soup = site_for(tmp_path, entries)
    block = soup.select_one("details.question")
    picked = [li.find("strong").get_text() for li in block.select("li") if li.find("strong")]
    assert picked == ["Table", "JSON"]
    assert "CSV" in block.get_text() and "1 question, 1 answered" in block.find("summary").get_text()


def test_answers_are_read_from_the_text_when_there_is_no_structured_result(tmp_path):
    question = {"question": "Which units?", "options": [{"label": "Metres"}, {"label": "Feet"}]}
    call = tool_use("AskUserQuestion", {"questions": [question]})
    entries = chain(user("units"), assistant(call),
                    tool_result(call["id"], 'User has answered your questions: "Which units?"="Feet".'))
    _, soup = site_for(tmp_path, entries)
    assert [s.get_text() for s in soup.select("details.question li strong")] == ["Feet"]


# -- media ------------------------------------------------------------------------------------------------


def test_pasted_images_are_stored_once_by_content_and_references_are_never_fetched(tmp_path):
    url_image = {"type": "image", "source": {"type": "url", "url": "https://example.com/chart.png"}}
    pdf = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                          "data": "JVBERi0xLjQKJSVFT0YK"}}
    entries = chain(user([text("first"), image()]), assistant(text("seen")),
                    user([text("again"), image(), url_image, pdf]), assistant(text("seen again")))
    out, soup = site_for(tmp_path, entries)
    media = sorted(p.name for p in (out / "media").iterdir())
    assert len(media) == 2 and any(m.endswith(".png") for m in media) and any(m.endswith(".pdf") for m in media)
    png = next(p for p in (out / "media").iterdir() if p.suffix == ".png")
    assert png.read_bytes() == PNG_BYTES
    images = soup.select("article img")
    assert len(images) == 2 and len({img["src"] for img in images}) == 1
    assert all(not img["src"].startswith("http") for img in images)
    assert "https://example.com/chart.png" in soup.get_text()
    assert any(a["href"].endswith(".pdf") for a in soup.select("article a"))


def test_an_svg_is_never_written_into_the_site(tmp_path):
    svg = image(b"<svg onload=alert(1)></svg>", "image/svg+xml")
    out, soup = site_for(tmp_path, chain(user([text("logo"), svg]), assistant(text("ok"))))
    assert not (out / "media").exists()
    assert "not embedded" in soup.select_one(".msg.user").get_text()


# -- errors, subagents from progress, noise, counts --------------------------------------------------------


def test_tool_use_error_marks_the_call_as_an_error(tmp_path):
    call = tool_use("Write", {"file_path": f"{CWD}/notes.md", "content": "x"})
    entries = chain(user("write notes"), assistant(call), tool_result(
        call["id"], "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"))
    (written,) = events_of(interpret_entries(tmp_path, entries).session, ToolCall)
    assert written.result.is_error and "<tool_use_error>" not in written.result.text
    _, soup = site_for(tmp_path, entries)
    assert soup.select_one("details.tool .status").get_text() == "error"


def test_a_subagent_known_only_from_agent_progress_gets_its_transcript(tmp_path):
    task = tool_use("Task", {"description": "Survey the tests", "prompt": "List the test files.",
                             "subagent_type": "Explore"})
    progress = []
    for role, content in (("user", "List the test files."), ("assistant", [{"type": "text", "text": "tests/test_cli.py"}])):
        message = {"role": role, "content": content}
        if role == "assistant":
            message.update({"id": "msg_sub_1", "model": "claude-haiku-4-5"})
        progress.append({"type": "progress", "parentToolUseID": task["id"], "toolUseID": "agent_msg_1",
                         "data": {"type": "agent_progress", "agentId": "a5150f1", "prompt": "List the test files.",
                                  "message": {"type": role, "message": message,
                                              "uuid": f"00000000-0000-4000-9000-00000000000{len(progress)}",
                                              "timestamp": "2026-03-02T09:00:30.000Z"}}})
    entries = chain(user("what tests exist?"), assistant(task), *progress,
                    tool_result(task["id"], [text("tests/test_cli.py")], structured={"agentId": "a5150f1", "status": "completed"}))
    out, soup = site_for(tmp_path, entries)
    link = next(a for a in soup.select("details.subagent a") if a.get_text().startswith("Subagent transcript"))
    transcript = BeautifulSoup((out / "projects" / PROJECT_DIR.lstrip("-") / link["href"]).read_text(encoding="utf-8"),
                               "html.parser")
    assert "tests/test_cli.py" in transcript.select_one(".msg.assistant").get_text()
    assert transcript.find("title").get_text().startswith("Survey the tests")


def test_a_withdrawn_queued_message_is_shown(tmp_path):
    queued = {"type": "queue-operation", "operation": "remove", "timestamp": "2026-03-02T09:00:05.000Z",
              "sessionId": SESSION_ID, "content": "also handle leap seconds"}
    entries = chain(user("go"), assistant(text("working")))
    entries.insert(1, queued)
    _, soup = site_for(tmp_path, entries)
    assert "also handle leap seconds" in soup.select_one(".notice-queue-removed").get_text()


def test_tokens_are_counted_per_model_and_active_time_comes_from_turn_durations(tmp_path):
    entries = chain(user("hi"), assistant(text("hello"), model="claude-opus-4-6"),
                    assistant(text("sub"), model="claude-haiku-4-5"),
                    system("turn_duration", durationMs=61_000), user("more"), assistant(text("sure")),
                    system("turn_duration", durationMs=4_000))
    session = interpret_entries(tmp_path, entries).session
    assert set(session.usage_by_model) == {"claude-opus-4-6", "claude-haiku-4-5"}
    total = sum(u.output_tokens for u in session.usage_by_model.values())
    assert total == session.usage.output_tokens
    assert session.active_ms == 65_000
    prompts = [e for e in session.events if isinstance(e, Prompt) and not e.hidden]
    assert len(prompts) == 2


def test_report_counts_plans_as_events(tmp_path):
    call = tool_use("ExitPlanMode", {"plan": PLAN})
    project = tmp_path / "in" / PROJECT_DIR
    write_jsonl(project / f"{SESSION_ID}.jsonl", chain(user("plan"), assistant(call),
                                                        tool_result(call["id"], "User has approved your plan.")))
    report = build(BuildConfig(inputs=(project,), output=tmp_path / "out", markdown_only=True))
    assert report.events["plan"] == 1 and report.unknown == {}
    assert json.loads(report.to_json())["events"]["plan"] == 1
