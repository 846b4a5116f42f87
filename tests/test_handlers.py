"""Interpretation as tables of handlers (generator/stages/interpret/dispatch.py): each entry type, content part and
system subtype is looked up by name; a name with no handler is counted and shown, never dropped. And the
model's enums: what later stages decide is keyed on them, not on the wording a reader sees."""

from __future__ import annotations

import pytest

from generator.core.model import (
    Notice,
    NoticeKind,
    PermissionMode,
    Plan,
    PlanDecision,
    PlanStatus,
    Prompt,
    PromptLabel,
    Unknown,
)
from generator.stages import interpret as interpret_stage
from generator.stages.summarize import PLAN_PREAMBLE, Summary
from helpers import (PROJECT_DIR, SESSION_ID, assistant, build_project, chain, element_ids, events_of,
                     interpret_entries, system, text, user)


def test_a_new_entry_type_needs_one_handler(tmp_path, monkeypatch):
    entry = {"type": "deploy-note", "uuid": "d1", "timestamp": "2026-03-01T10:00:00Z", "sessionId": SESSION_ID,
             "note": "shipped"}
    before = interpret_entries(tmp_path / "before", [entry])
    assert [(event.name, event.raw["note"]) for event in events_of(before.session, Unknown)] == [("type:deploy-note", "shipped")]
    assert before.unknown["type:deploy-note"] == 1

    def deploy_note(builder, entry):
        builder.events.append(Notice(builder._next_anchor(entry.data["uuid"]), builder._time(entry.data),
                                     "deploy-note", entry.data["note"]))

    monkeypatch.setitem(interpret_stage.ENTRY_HANDLERS, "deploy-note", deploy_note)
    after = interpret_entries(tmp_path / "after", [entry])
    assert [(notice.kind, notice.text) for notice in after.session.events] == [("deploy-note", "shipped")]
    assert after.unknown["type:deploy-note"] == 0


@pytest.mark.parametrize("table, names", [
    ("ENTRY_HANDLERS", ("user",)),  # a family claiming another's entry type
    ("SYSTEM_HANDLERS", ("compact_boundary",)),
    ("ASSISTANT_PART_HANDLERS", ("tool_use",)),
    ("USER_PART_HANDLERS", ("image",)),
    ("ENTRY_HANDLERS", ("deploy-note", "summary")),  # a new name alongside a taken one: neither is registered
    ("ENTRY_HANDLERS", ("deploy-note", "deploy-note")),  # one name twice in one registration
])
def test_a_name_gets_one_handler_and_a_second_is_refused(table, names):
    handlers = getattr(interpret_stage, table)
    before = dict(handlers)

    def second(*arguments):
        raise AssertionError("never called")

    with pytest.raises(ValueError, match="two handlers for"):
        interpret_stage.handles(handlers, *names)(second)
    assert handlers == before


@pytest.mark.parametrize("earlier", [
    lambda uuid: user("why does the tide table skip Sunday?", uuid=uuid),
    lambda uuid: {"type": "deploy-note", "uuid": uuid, "timestamp": "2026-03-02T08:00:00Z", "sessionId": SESSION_ID,
                  "message": {"role": "ops", "content": "shipped 1.4"}},
])
def test_an_entry_of_an_unknown_type_sharing_a_uuid_gets_an_anchor_of_its_own(tmp_path, earlier):
    """Two entries with one uuid are both shown, each with its own anchor: also when the second is of a type
    no handler knows, shown as it is."""
    uuid = "0d9c8b7a-6f5e-4d3c-8b2a-1f0e9d8c7b6a"
    later = {"type": "deploy-note", "uuid": uuid, "timestamp": "2026-03-02T09:30:00Z", "sessionId": SESSION_ID,
             "message": {"role": "ops", "content": "rolled back 1.4"}}
    site = build_project(tmp_path, {f"{SESSION_ID}.jsonl": [earlier(uuid), assistant(text("Noted.")), later]})

    html = (site / "projects" / PROJECT_DIR.lstrip("-") / f"{SESSION_ID}.html").read_text(encoding="utf-8")
    assert "rolled back 1.4" in html
    ids = element_ids(html)
    assert len(ids) == len(set(ids)), [name for name in ids if ids.count(name) > 1]


def test_every_registered_system_subtype_is_known_and_any_other_is_shown_by_its_name(tmp_path):
    registered = [subtype for subtype in interpret_stage.SYSTEM_HANDLERS if subtype != "local_command"]
    entries = [system(subtype, f"line of {subtype or 'no subtype'}") for subtype in registered]
    entries.append(system("kettle_boiled", "The kettle boiled"))
    result = interpret_entries(tmp_path, chain(*entries))
    assert [name for name in result.unknown if name.startswith("system:")] == ["system:kettle_boiled"]
    notices = events_of(result.session, Notice)
    assert len(notices) == len(entries)
    new = notices[-1]
    # A kind we do not know stays the name Claude Code gave it, for the page to class, and is not ours.
    assert (new.kind, new.text, new.hidden) == ("kettle-boiled", "The kettle boiled", False)
    assert not isinstance(new.kind, NoticeKind)
    assert all(isinstance(notice.kind, NoticeKind) for notice in notices[:-1])


def test_unknown_content_parts_are_counted_and_shown(tmp_path):
    result = interpret_entries(tmp_path, chain(
        user([{"type": "text", "text": "look"}, {"type": "hologram", "frames": 3}]),
        assistant(text("Seen."), {"type": "sparkle", "level": 9}),
    ))
    assert result.unknown["part:hologram"] == result.unknown["part:sparkle"] == 1
    assert [event.name for event in events_of(result.session, Unknown)] == ["part:hologram", "part:sparkle"]
    assert [prompt.text for prompt in events_of(result.session, Prompt)] == ["look"]
    assert sorted(interpret_stage.ASSISTANT_PART_HANDLERS) == sorted(
        ["redacted_thinking", "text", "thinking", "tool_use", "server_tool_use", "mcp_tool_use",
         *interpret_stage.SERVER_TOOL_RESULTS])
    assert sorted(interpret_stage.USER_PART_HANDLERS) == ["document", "image", "text", "tool_result"]


def test_plan_mode_is_known_by_the_mode_not_by_its_wording(tmp_path):
    result = interpret_entries(tmp_path, chain(
        user("plan it first", permissionMode="plan"),
        assistant(text("Planning.")),
    ))
    [mode] = [notice for notice in events_of(result.session, Notice) if notice.kind == NoticeKind.PERMISSION_MODE]
    assert mode.mode == PermissionMode.PLAN
    assert result.session.role_hint == "planning"
    # Summarize goes by the mode alone: a notice reworded for readers changes nothing.
    reworded = Summary()
    reworded(Notice("e-1", "", NoticeKind.PERMISSION_MODE, "Planning only", mode=PermissionMode.PLAN))
    assert reworded.role == "planning"
    worded_alike = Summary()
    worded_alike(Notice("e-2", "", NoticeKind.PERMISSION_MODE, "Plan mode: said, not set", mode="someNewMode"))
    assert worded_alike.role == "further work"


def test_a_session_started_from_a_plan_is_known_by_its_decision(tmp_path):
    plan_text = "# Plan\n\n1. Parse the feed"
    result = interpret_entries(tmp_path, chain(
        user(f"{PLAN_PREAMBLE}\n\n{plan_text}", planContent=plan_text),
        assistant(text("Starting.")),
    ))
    [plan] = events_of(result.session, Plan)
    assert (plan.status, plan.decision) == (PlanStatus.APPROVED, PlanDecision.STARTED_SESSION)
    [preamble] = events_of(result.session, Prompt)
    assert preamble.hidden and preamble.label == PromptLabel.PLAN_PREAMBLE
    assert result.session.role_hint == "implementation"
    assert result.session.first_plan_status == "approved" and type(result.session.first_plan_status) is str
