"""Pages show what happened as it happened, in the shapes real logs take (issue 14): a prompt reads as
it was typed, a result written before its call is paired with it, Claude Code's own messages are not the
user's prompts, a file with any content gets a page, a subagent's task is the calling agent's, and the
figures agree wherever they are shown."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from bs4 import BeautifulSoup

from generator.core.model import BashMode, Notice, Prompt, Thinking, ToolCall

from helpers import (
    build_project,
    CWD,
    PROJECT_DIR,
    SESSION_ID,
    assistant,
    build_archive,
    chain,
    events_of,
    interpret_entries,
    lines_shown,
    snapshot,
    summary,
    text,
    thinking,
    tool_result,
    tool_use,
    user,
    write_jsonl,
)


def _page(out: Path, session_file: str) -> BeautifulSoup:
    folder = next((out / "projects").iterdir())
    return BeautifulSoup((folder / session_file).read_text(encoding="utf-8"), "html.parser")


# -- 1. A prompt reads as it was typed ------------------------------------------------------------------

PASTED_ERROR = (
    "this fails on the server:\n"
    "Traceback (most recent call last):\n"
    '  File "/srv/app/tidewatch/__init__.py", line 12, in <module>\n'
    "    from .harmonics import __all__\n"
    "ImportError: cannot import name '__all__'\n"
    "\n"
    "* not a list, just a star\n"
    "1. and not a numbered list either"
)


def test_a_prompt_keeps_its_lines_indents_and_underscores(tmp_path):
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": chain(user(PASTED_ERROR), assistant(text("Looking.")))})
    prompt = _page(out, f"{SESSION_ID}.html").select_one(".msg.user")
    # Nothing the person typed became emphasis, a list or a heading.
    assert prompt.find(["strong", "em", "ul", "ol", "h1", "h2", "h3"]) is None
    assert lines_shown(prompt) == PASTED_ERROR.split("\n")


def test_fenced_code_in_a_prompt_is_still_highlighted(tmp_path):
    typed = "why does this print None?\n```python\ndef height(t):\n    print(t)\n```\nthanks"
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": chain(user(typed), assistant(text("Because…")))})
    prompt = _page(out, f"{SESSION_ID}.html").select_one(".msg.user")
    code = prompt.select_one("pre.highlight")
    assert code is not None and "language-python" in code["class"]
    assert code.select_one(".k").get_text() == "def"  # highlighted by a Python lexer
    assert "def height(t):\n    print(t)" in code.get_text()
    assert "thanks" in prompt.get_text()


def test_replies_are_still_markdown(tmp_path):
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": chain(user("hi"), assistant(text("It is **bold**.")))})
    reply = _page(out, f"{SESSION_ID}.html").select_one(".msg.assistant")
    assert reply.find("strong").get_text() == "bold"


# -- 2. Results written before their call ---------------------------------------------------------------

def _result_before_call(call_id: str = "toolu_01EarlyResult0001") -> list[dict]:
    """As 2.1.9x writes it: the result line, then the assistant line holding the call it answers."""
    call = tool_use("Edit", {"file_path": f"{CWD}/hyprlock.conf", "old_string": "a", "new_string": "b"}, call_id)
    return chain(
        user("change the lock screen weather"),
        assistant(thinking("An edit.")),
        tool_result(call_id, "The file has been updated successfully."),
        assistant(call),
        assistant(text("Done.")),
    )


def test_a_result_written_before_its_call_is_paired_with_it(tmp_path):
    session = interpret_entries(tmp_path, _result_before_call()).session
    calls = events_of(session, ToolCall)
    assert [(c.name, c.result is not None) for c in calls] == [("Edit", True)]
    assert calls[0].result.text == "The file has been updated successfully."
    assert session.tool_counts == {"Edit": 1}


def test_a_result_before_its_call_makes_one_card_with_one_id(tmp_path):
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": _result_before_call()})
    page = _page(out, f"{SESSION_ID}.html")
    ids = Counter(tag["id"] for tag in page.find_all(id=True))
    assert [i for i, n in ids.items() if n > 1] == []
    cards = page.select("details.tool")
    assert [c.select_one(".tool-name").get_text() for c in cards] == ["Edit"]
    assert cards[0].select_one(".status").get_text() == "ok"
    assert "unknown tool" not in page.get_text()


def test_a_result_after_a_resume_is_paired_with_the_call_replayed_from_the_earlier_session(tmp_path):
    call = tool_use("Bash", {"command": "pytest -q"}, "toolu_01ResumedCall0001")
    earlier = chain(user("run the tests"), assistant(call))
    later_id = "6c7d8e9f-0a1b-4c2d-8e3f-4a5b6c7d8e9f"
    # A resumed session replays the earlier entries verbatim (same uuids) and goes on from there.
    replayed = [dict(entry, sessionId=later_id) for entry in earlier]
    later = replayed + chain(tool_result("toolu_01ResumedCall0001", "3 passed", sessionId=later_id,
                                         parentUuid=earlier[-1]["uuid"]),
                             assistant(text("All green."), sessionId=later_id))
    project = tmp_path / PROJECT_DIR
    write_jsonl(project / f"{SESSION_ID}.jsonl", earlier)
    write_jsonl(project / f"{later_id}.jsonl", later)
    archive = build_archive(project)
    resumed = next(s for s in archive.sessions.values() if s.session_id == later_id)
    assert resumed.continues_key  # it was found to continue the earlier one
    calls = events_of(resumed, ToolCall)
    assert [(c.name, c.input.get("command"), c.result.text if c.result else None) for c in calls] == [
        ("Bash", "pytest -q", "3 passed")]


def test_a_result_whose_call_is_nowhere_is_shown_as_the_result_of_an_unknown_call(tmp_path):
    session = interpret_entries(tmp_path, chain(user("go on"), tool_result("toolu_01Nowhere", "done"),
                                                assistant(text("ok")))).session
    calls = events_of(session, ToolCall)
    assert [(c.name, c.result.text) for c in calls] == [("(unknown tool)", "done")]
    assert session.tool_counts == {} and session.tool_call_count == 0  # not a call made in this session


# -- 3. Claude Code's own messages are not prompts ------------------------------------------------------

def _background_session() -> list[dict]:
    call = tool_use("Bash", {"command": "pytest -q", "run_in_background": True}, "toolu_01Background0001")
    return chain(
        user("run the tests in the background"),
        assistant(call),
        tool_result(call["id"], "Command running in background with ID: b7x2k9. Output is being written to: "
                                "/tmp/claude-1000/-home-ada-src-tidewatch/tasks/b7x2k9.output",
                    structured={"backgroundTaskId": "b7x2k9", "stdout": "", "stderr": ""}),
        assistant(text("Started.")),
        user("<task-notification>\n<task-id>b7x2k9</task-id>\n"
             "<output-file>/tmp/claude-1000/-home-ada-src-tidewatch/tasks/b7x2k9.output</output-file>\n"
             "<status>completed</status>\n"
             "<summary>Background command \"Run the tests\" completed (exit code 0)</summary>\n"
             "</task-notification>\nRead the output file to retrieve the result: "
             "/tmp/claude-1000/-home-ada-src-tidewatch/tasks/b7x2k9.output"),
        assistant(text("The tests passed.")),
    )


def test_a_task_notification_is_a_system_message_linked_to_its_call(tmp_path):
    session = interpret_entries(tmp_path, _background_session()).session
    assert [p.text for p in events_of(session, Prompt)] == ["run the tests in the background"]
    assert session.prompt_count == 1 and [item.text for item in session.outline] == ["run the tests in the background"]
    notice = next(n for n in events_of(session, Notice) if n.kind == "task-notification")
    call = events_of(session, ToolCall)[0]
    assert notice.related == call.anchor
    assert dict(notice.details)["status"] == "completed"
    assert "completed (exit code 0)" in notice.text


def test_a_task_notification_page_shows_no_raw_tags_and_links_to_the_call(tmp_path):
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": _background_session()})
    page = _page(out, f"{SESSION_ID}.html")
    visible = page.get_text()
    assert "<task-notification>" not in visible and "<task-id>" not in visible
    notice = page.select_one(".notice-task-notification")
    assert "completed (exit code 0)" in notice.get_text() and "b7x2k9" in notice.get_text()
    call = page.select_one("details.tool")
    assert notice.find("a")["href"] == f"#{call['id']}"
    assert len(page.select(".msg.user")) == 1


def test_the_older_bash_notification_and_unknown_wrapper_tags_are_system_messages_too(tmp_path):
    entries = chain(
        user("start the server"),
        user("<bash-notification>\n<shell-id>b18a41f</shell-id>\n<status>failed</status>\n<summary>Background "
             "command \"Start server\" failed with exit code 137.</summary>\nRead the output file.\n</bash-notification>"),
        user("<agent-mail-notice>\n<from>reviewer</from>\nlooks fine\n</agent-mail-notice>"),
    )
    interpreted = interpret_entries(tmp_path, entries)
    assert [p.text for p in events_of(interpreted.session, Prompt)] == ["start the server"]
    kinds = [n.kind for n in events_of(interpreted.session, Notice)]
    assert kinds == ["bash-notification", "agent-mail-notice"]
    # A tag this stage does not know is still shown, and counted for the report.
    assert interpreted.unknown == Counter({"tag:agent-mail-notice": 1})


def test_a_prompt_that_only_mentions_a_tag_is_still_a_prompt(tmp_path):
    typed = "why does <task-notification> show up in my logs?"
    session = interpret_entries(tmp_path, chain(user(typed))).session
    assert [p.text for p in events_of(session, Prompt)] == [typed]


# -- 4. Files with content but no prompt get a page -----------------------------------------------------

def test_files_with_content_but_no_prompt_get_a_page_and_empty_ones_do_not(tmp_path):
    ids = {name: f"{n:08d}-1111-4222-8333-444455556666" for n, name in enumerate(
        ["bash", "thinking", "orphan", "system", "empty"], start=1)}
    files = {
        "bash": chain(user("<bash-input>git status</bash-input>", sessionId=ids["bash"]),
                      user("<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>",
                           sessionId=ids["bash"])),
        "thinking": chain(assistant(thinking("Where was I? The harmonics."), sessionId=ids["thinking"])),
        "orphan": chain(tool_result("toolu_01CallElsewhere", "42 files checked", sessionId=ids["orphan"])),
        "system": chain(user("<task-notification>\n<task-id>zz1</task-id>\n<status>killed</status>\n"
                             "<summary>Background command \"watch\" was stopped</summary>\n</task-notification>",
                             sessionId=ids["system"])),
        "empty": [summary("Pointer to another session", "00000000-0000-4000-8000-000000999999"), snapshot(),
                  {"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-03-02T09:00:00.000Z",
                   "sessionId": ids["empty"], "content": "later"}],
    }
    out = build_project(tmp_path, {f"{ids[name]}.jsonl": entries for name, entries in files.items()})
    folder = next((out / "projects").iterdir())
    for name in ("bash", "thinking", "orphan", "system"):
        assert (folder / f"{ids[name]}.html").is_file(), name
    assert not (folder / f"{ids['empty']}.html").exists()
    project_page = BeautifulSoup((folder / "index.html").read_text(encoding="utf-8"), "html.parser")
    titles = [a.get_text(" ", strip=True) for a in project_page.select("table.sessions a")]
    # Named after what happened in them, not "Untitled session".
    assert any("git status" in title for title in titles), titles
    orphan = _page(out, f"{ids['orphan']}.html").select_one("details.tool")
    assert "(unknown tool)" in orphan.get_text() and "42 files checked" in orphan.get_text()
    archive = build_archive(tmp_path / "in" / PROJECT_DIR)
    assert any(isinstance(e, BashMode) for s in archive.sessions.values() for e in s.events)
    assert any(isinstance(e, Thinking) for s in archive.sessions.values() for e in s.events)


# -- 5. Labels ------------------------------------------------------------------------------------------

def test_a_subagent_task_is_labelled_as_the_calling_agents_and_rendered_as_markdown(tmp_path):
    agent_id = "a4c9e21"
    task = "Find where **extremes** are computed.\n\n1. read `harmonics.py`\n2. report back"
    call = tool_use("Task", {"description": "Find extremes", "prompt": task, "subagent_type": "Explore"},
                    "toolu_01TaskCall0001")
    parent = chain(user("where are extremes computed?"), assistant(call),
                   tool_result(call["id"], [text("In extrema.py.")], structured={"agentId": agent_id, "status": "completed"}),
                   assistant(text("In extrema.py.")))
    run = chain(user(task, isSidechain=True, agentId=agent_id),
                assistant(text("In extrema.py."), isSidechain=True, agentId=agent_id))
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": parent, f"{SESSION_ID}/subagents/agent-{agent_id}.jsonl": run})
    folder = next((out / "projects").iterdir())
    page = BeautifulSoup((folder / SESSION_ID / f"agent-{agent_id}.html").read_text(encoding="utf-8"), "html.parser")
    first = page.select_one(".msg.user")
    meta = first.select_one(".meta")
    assert meta.select_one(".who").get_text() == "Task" and "You" not in meta.get_text()
    link = meta.find("a", string="its call")
    assert link is not None and link["href"].endswith(f"{SESSION_ID}.html#{call_anchor(page, link)}")
    assert first.find("strong").get_text() == "extremes" and first.find("ol") is not None
    # The person typed one prompt; the task is not counted as theirs anywhere.
    archive = build_archive(tmp_path / "in" / PROJECT_DIR)
    assert sum(s.prompt_count for s in archive.sessions.values()) == 1


def call_anchor(page, link) -> str:
    return link["href"].rsplit("#", 1)[1]


def test_a_plan_title_is_shown_once_and_the_page_has_one_top_heading(tmp_path):
    plan = "# Plan: tidewatch extremes\n\n## Approach\n\n1. New module `extrema.py`"
    entries = chain(user("Implement the following plan:\n\n" + plan, planContent=plan), assistant(text("On it.")))
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": entries})
    page = _page(out, f"{SESSION_ID}.html")
    assert [h.get_text() for h in page.find_all("h1")] == ["Plan: tidewatch extremes"]
    card = page.select_one(".plan")
    assert "Plan: tidewatch extremes" not in card.get_text()
    assert [h.get_text() for h in card.find_all(re.compile("^h[1-6]$"))] == ["Approach"]
    assert card.find("h3") is not None  # the plan's own "##" sits below the page's sections


# -- 6. One definition per figure -----------------------------------------------------------------------

def test_the_index_card_and_the_project_page_give_the_same_figures(tmp_path):
    agent_id = "b5d0f32"
    call = tool_use("Task", {"description": "Look", "prompt": "look around"}, "toolu_01TaskCall0002")
    parent = chain(user("look around the repo"), assistant(call),
                   tool_result(call["id"], [text("Seen.")], structured={"agentId": agent_id}),
                   user("thanks, now summarise"), assistant(text("Summary.")))
    run = chain(user("look around", isSidechain=True, agentId=agent_id),
                assistant(text("Seen."), isSidechain=True, agentId=agent_id))
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": parent, f"{SESSION_ID}/subagents/agent-{agent_id}.jsonl": run})
    index = BeautifulSoup((out / "index.html").read_text(encoding="utf-8"), "html.parser")
    folder = next((out / "projects").iterdir())
    project = BeautifulSoup((folder / "index.html").read_text(encoding="utf-8"), "html.parser")
    card = index.select_one(".card-meta").get_text(" ", strip=True)
    tiles = {div.dt.get_text(): div.dd.get_text(" ", strip=True) for div in project.select(".stat-tiles > div")}
    assert "1 session" in card and tiles["Sessions"].startswith("1 ")
    assert "2 prompts" in card and tiles["Prompts"] == "2"  # the person's two prompts, not the agent's task
    card_tokens = re.search(r"([\d.,]+[kM]?) tokens", card).group(1)
    assert tiles["Tokens"].split()[0] == card_tokens and "incl. subagents" in tiles["Tokens"]
    assert "incl. 1 subagent run" in card


def test_a_very_long_pasted_prompt_shows_its_start_and_links_the_whole(tmp_path):
    log = "\n".join(f"[11:12:{n % 60:02d}] [INFO] worker {n} started with __init__ hooks" for n in range(6000))
    out = build_project(tmp_path, {f"{SESSION_ID}.jsonl": chain(user("why does it stall?\n" + log), assistant(text("Look.")))})
    page_file = next((out / "projects").iterdir()) / f"{SESSION_ID}.html"
    prompt = _page(out, f"{SESSION_ID}.html").select_one(".msg.user")
    link = prompt.find("a", string="The whole prompt")
    whole = (page_file.parent / link["href"]).read_text(encoding="utf-8")
    assert whole == "why does it stall?\n" + log
    assert "worker 0 started with __init__ hooks" in prompt.get_text()
    assert "worker 5999 started" not in prompt.get_text()
    assert page_file.stat().st_size < len(log)  # the page holds the start, not the whole paste
