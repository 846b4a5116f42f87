"""A build interprets every file twice: in phase 1 for its summaries, with no sink for the events, and in
phase 2 for its pages, without summaries. Each leaves out what it does not need (phase 1 the bytes of an
embedded image and the task lists; phase 2 the counting of usage, models and times, and any run nothing
is wanted of). What each keeps must come out as it would if nothing were left out: the summaries, and
the events."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from conftest import corpus_files, each_corpus_file
from generator.core.model import Event, Interpreted, Notice, Prompt, ToolCall
from generator.stages.discover import SessionFile
from generator.stages.interpret import interpret_stream, without_repeated_result
from generator.stages.read import read_file
from helpers import (MODEL, PNG_BYTES, PROJECT_DIR, SESSION_ID, assistant, chain, image, sidechain_run, system, text,
                     tool_result, tool_use, user, write_jsonl)

PDF_BYTES = b"%PDF-1.4 a document"


def _progress(task_id: str, agent_id: str, number: int, role: str, content: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": role, "content": content}
    if role == "assistant":
        message.update({"id": f"msg_progress_{agent_id}_{number}", "model": "claude-haiku-4-5",
                        "usage": {"input_tokens": 5, "output_tokens": 7}})
    return {"type": "progress", "parentToolUseID": task_id, "toolUseID": f"agent_msg_{number}",
            "data": {"type": "agent_progress", "agentId": agent_id, "prompt": "Look around.",
                     "message": {"type": role, "message": message,
                                 "uuid": f"00000000-0000-4000-9000-{agent_id[:4]}{number:08d}",
                                 "timestamp": f"2026-03-02T09:00:{30 + number:02d}.000Z"}}}


def _everything_left_out_somewhere() -> list[dict[str, Any]]:
    """A session with all that one phase or the other leaves out: images and documents in prompts and in
    results, task tools, a background task's notification, usage of two models, titles, a run of a subagent
    inline and one streamed as agent_progress, and an entry written twice."""
    task = tool_use("Task", {"description": "Look around", "prompt": "Look around.", "subagent_type": "Explore"})
    create = tool_use("TaskCreate", {"subject": "Write the parser", "description": "parse it"})
    update = tool_use("TaskUpdate", {"taskId": "1", "status": "completed"})
    shot = tool_use("Read", {"file_path": "/work/shot.png"})
    pdf = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                          "data": base64.b64encode(PDF_BYTES).decode()}}
    notes = {"type": "document", "title": "notes.txt",
             "source": {"type": "text", "media_type": "text/plain", "data": "The notes say what to build."}}
    background = tool_use("Bash", {"command": "make test", "run_in_background": True})
    repeated = assistant(text("Said twice."))
    entries = chain(
        user([text("What is in this picture?"), image(), pdf]),
        assistant(text("A single pixel."), model="claude-opus-4-5"),
        user([text("see"), notes]),
        assistant(create), tool_result(create["id"], "Task #1 created", structured={"task": {"id": "1"}}),
        assistant(update), tool_result(update["id"], "Updated task #1"),
        assistant(shot), tool_result(shot["id"], [image(), image(b"not a png", "image/svg+xml")]),
        user([image(b"\x00broken", "image/png")]),
        assistant(task),
        _progress(task["id"], "a5150f1", 1, "user", "Look around."),
        _progress(task["id"], "a5150f1", 2, "assistant", [{"type": "text", "text": "Found tests/."}]),
        tool_result(task["id"], [text("Found tests/.")], structured={"agentId": "a5150f1", "status": "completed"}),
        assistant(background), tool_result(background["id"], "Command running in background with ID: bg42"),
        user("<task-notification><task-id>bg42</task-id><status>completed</status>"
             "<summary>make test finished</summary></task-notification>"),
        repeated, dict(repeated),
        system("turn_duration", durationMs=1500),
        {"type": "custom-title", "customTitle": "Pictures", "sessionId": SESSION_ID},
        {"type": "ai-title", "aiTitle": "Looking at a pixel", "sessionId": SESSION_ID},
    )
    inline = sidechain_run(user("Inline task."), assistant(text("Inline answer."), model="claude-haiku-4-5"))
    return [*entries, *inline]


def _source(tmp_path: Path, entries: list[dict[str, Any]]) -> SessionFile:
    path = write_jsonl(tmp_path / PROJECT_DIR / f"{SESSION_ID}.jsonl", entries)
    return SessionFile(path, PROJECT_DIR)


def _interpreted(source: SessionFile, *, events: bool, summarise: bool = True,
                 unwanted: frozenset[str] = frozenset()) -> tuple[Interpreted, dict[str, list[Event]]]:
    """The file interpreted as a build does (the structured results cut down as the reader leaves them),
    with its events collected when `events`, but for the sessions named in `unwanted`."""
    collected: dict[str, list[Event]] = {}

    def sink_for(key: str) -> Any:
        if not events or key in unwanted:
            return None
        return collected.setdefault(key, []).append

    items = [without_repeated_result(item) for item in read_file(source.path).items]
    return interpret_stream(source, items, sink_for=sink_for, summarise=summarise), collected


def _sessions(result: Interpreted) -> list[Any]:
    return [result.session, *result.sidechains]


def _assert_same_summaries(source: SessionFile) -> None:
    phase_one, _ = _interpreted(source, events=False)
    whole, _ = _interpreted(source, events=True)
    assert _sessions(phase_one) == _sessions(whole)
    assert (phase_one.diagnostics, phase_one.unknown, phase_one.has_conversation) == \
        (whole.diagnostics, whole.unknown, whole.has_conversation)


def _assert_same_events(source: SessionFile) -> None:
    summarised, summarised_events = _interpreted(source, events=True)
    _, rendered_events = _interpreted(source, events=True, summarise=False)
    assert rendered_events == summarised_events
    assert set(rendered_events) <= {session.key for session in _sessions(summarised)}


def test_summaries_are_the_same_whether_or_not_anything_wants_the_events(tmp_path: Path) -> None:
    source = _source(tmp_path, _everything_left_out_somewhere())
    _assert_same_summaries(source)
    summarised, _ = _interpreted(source, events=False)
    session = summarised.session
    # The summary has what it is made of: nothing here is an empty summary compared with another.
    assert session.title == "Pictures" and session.first_prompt == "What is in this picture?"
    assert session.models == ("claude-opus-4-5", MODEL) and set(session.usage_by_model) == set(session.models)
    assert session.prompt_count == 3  # the prompt of an image alone among them
    assert session.tool_counts == {"Bash": 1, "Read": 1, "Task": 1, "TaskCreate": 1, "TaskUpdate": 1}
    assert [side.from_progress for side in summarised.sidechains] == [False, True]
    assert summarised.sidechains[1].models == ("claude-haiku-4-5",)


def test_events_are_the_same_whether_or_not_the_sessions_are_summarised(tmp_path: Path) -> None:
    source = _source(tmp_path, _everything_left_out_somewhere())
    _assert_same_events(source)
    _, rendered = _interpreted(source, events=True, summarise=False)
    main = rendered[f"{PROJECT_DIR}/{SESSION_ID}"]
    prompt = next(event for event in main if isinstance(event, Prompt) and event.images)
    assert [media.data for media in prompt.images] == [PNG_BYTES, PDF_BYTES]  # decoded where shown
    calls = {event.name: event for event in main if isinstance(event, ToolCall)}
    assert calls["Read"].result is not None and calls["Read"].result.images[0].data == PNG_BYTES
    assert [(task.id, task.subject, task.status) for task in calls["TaskUpdate"].tasks] == \
        [("1", "Write the parser", "completed")]
    notification = next(event for event in main if isinstance(event, Notice) and event.text == "make test finished")
    assert notification.related == calls["Bash"].anchor


def test_a_run_nothing_is_wanted_of_leaves_the_others_as_they_were(tmp_path: Path) -> None:
    source = _source(tmp_path, _everything_left_out_somewhere())
    summarised, everything = _interpreted(source, events=True, summarise=False)
    keys = [session.key for session in _sessions(summarised)]
    assert len(keys) == 3
    for unwanted in keys:
        _, wanted = _interpreted(source, events=True, summarise=False, unwanted=frozenset({unwanted}))
        assert wanted == {key: events for key, events in everything.items() if key != unwanted}


@pytest.mark.slow
@each_corpus_file(corpus_files("*.jsonl"))
def test_each_corpus_log_is_summarised_and_shown_alike_in_both_phases(public_corpus: Path, path: Path) -> None:
    source = SessionFile(path, path.parent.name, agent_id=path.stem.removeprefix("agent-")
                         if path.stem.startswith("agent-") else "")
    _assert_same_summaries(source)
    _assert_same_events(source)
