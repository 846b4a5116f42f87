"""The collaborators interpretation keeps its state in (generator/stages/tracking.py), each fed what
`interpret` would feed it, with no session read and no site built."""

from __future__ import annotations

from generator.core.model import AssistantText, Plan, PlanDecision, PlanStatus, Prompt, PromptLabel, TaskItem, ToolCall, ToolResult
from generator.stages.summarize import PLAN_PREAMBLE, uuid_digest
from generator.stages.tracking import (
    EARLY_RESULT_WAIT,
    RECENT_MESSAGES,
    REPLAYED_CALLS_KEPT,
    BackgroundTasks,
    CallPairing,
    SessionMetadata,
    PlanApproval,
    TaskTracker,
    UsageCounter,
    plan_of,
)
from generator.stages.duplicates import DuplicateEntries, Seen, replay_digest


def _assistant(message_id: str, model: str, usage: dict, timestamp: str = "2026-03-01T10:00:00Z") -> tuple[dict, dict]:
    message = {"id": message_id, "model": model, "usage": usage}
    return {"uuid": f"u-{message_id}", "requestId": f"r-{message_id}", "timestamp": timestamp}, message


def test_a_streamed_message_counts_once_with_its_largest_counts():
    counter = UsageCounter()
    for output in (1, 40, 25):  # lines of one streamed message, each repeating its usage so far
        counter.count(*_assistant("m1", "claude-a", {"input_tokens": 10, "output_tokens": output}))
    total, by_model, by_day = counter.finish()
    assert (total.input_tokens, total.output_tokens) == (10, 40)
    assert by_model == {"claude-a": total}
    assert by_day == {"2026-03-01": 50}


def test_usage_is_split_by_model_and_day_and_old_messages_are_added_up_as_they_go():
    counter = UsageCounter()
    messages = RECENT_MESSAGES * 3
    for number in range(messages):
        model = "claude-a" if number % 2 else "claude-b"
        day = "2026-03-01" if number < messages // 2 else "2026-03-02"
        counter.count(*_assistant(f"m{number}", model, {"input_tokens": 1, "output_tokens": 2}, f"{day}T09:00:00Z"))
        assert len(counter.recent) <= RECENT_MESSAGES
    total, by_model, by_day = counter.finish()
    assert total.input_tokens == messages and total.output_tokens == 2 * messages
    assert list(by_model) == ["claude-a", "claude-b"]
    assert by_model["claude-a"].input_tokens == by_model["claude-b"].input_tokens == messages // 2
    assert by_day == {"2026-03-01": 3 * messages // 2, "2026-03-02": 3 * messages // 2}


def test_broken_counts_are_not_added_up():
    counter = UsageCounter()
    counter.count(*_assistant("m1", "claude-a", {"input_tokens": True, "output_tokens": 10**13,
                                                 "cache_creation_input_tokens": 5,
                                                 "cache_creation": {"ephemeral_1h_input_tokens": 9}}))
    counter.count({"uuid": "u2"}, {"usage": "not an object"})
    total, _, _ = counter.finish()
    assert (total.input_tokens, total.output_tokens) == (0, 0)
    # The one-hour share of a cache write is never more than the write.
    assert (total.cache_creation_tokens, total.cache_creation_1h_tokens) == (5, 5)


def _call(name: str, **tool_input) -> ToolCall:
    return ToolCall("e-call", "2026-03-01T10:00:00Z", "toolu_1", name, tool_input)


def _result(text: str = "", structured=None, is_error: bool = False) -> ToolResult:
    return ToolResult("2026-03-01T10:00:01Z", text, is_error, structured)


def test_the_task_list_is_whole_after_each_change():
    tracker = TaskTracker()
    tracker.track(_call("TaskCreate", subject="Write the parser"), _result(structured={"task": {"id": "1"}}))
    tracker.track(_call("TaskCreate", subject="Test it"), _result(structured={"task": {"id": "2"}}))
    tracker.track(_call("TaskCreate", subject="Ship"), _result(structured={"task": {"id": "10"}}))
    after = tracker.track(_call("TaskUpdate", taskId="1", status="completed"), _result())
    assert after == (TaskItem("1", "Write the parser", "completed"), TaskItem("2", "Test it", "pending"),
                     TaskItem("10", "Ship", "pending"))
    after = tracker.track(_call("TaskUpdate", taskId="2", status="deleted"), _result())
    assert [item.id for item in after] == ["1", "10"]
    # A refused change changes nothing.
    assert tracker.track(_call("TaskUpdate", taskId="10", status="completed"), _result(is_error=True)) == after


def _plan_call(result: ToolResult | None) -> ToolCall:
    call = _call("ExitPlanMode", plan="# Plan\n\n1. Parse\n2. Test")
    return ToolCall(call.anchor, call.timestamp, call.tool_use_id, call.name, call.input, result)


def test_a_plan_call_says_what_became_of_the_plan():
    approved = plan_of(_plan_call(_result("User has approved your plan. You can now start coding.")))
    assert (approved.status, approved.decision) == (PlanStatus.APPROVED, PlanDecision.ANSWERED)
    rejected = plan_of(_plan_call(_result("The user doesn't want to proceed. the user said: smaller steps")))
    assert (rejected.status, rejected.feedback) == (PlanStatus.REJECTED, "smaller steps")
    unanswered = plan_of(_plan_call(None))
    assert (unanswered.status, unanswered.decision) == (PlanStatus.PENDING, PlanDecision.NO_ANSWER)
    assert unanswered.text.startswith("# Plan")


def _rejected_plan() -> Plan:
    return plan_of(_plan_call(_result("The user doesn't want to proceed with this tool use.")))


def test_a_rejected_plan_carried_out_from_the_next_prompt_was_accepted_with_a_fresh_context():
    approval = PlanApproval()
    plan = _rejected_plan()
    approval.decided(7, plan)
    assert approval.holds(7)
    preamble = Prompt("e-p", "", f"{PLAN_PREAMBLE}\n\n{plan.text}\n")
    shown, settled = approval.before_adding(preamble, plan)
    assert settled is not None and (settled.status, settled.decision) == (PlanStatus.APPROVED, PlanDecision.FRESH_CONTEXT)
    assert shown.hidden and shown.label == PromptLabel.PLAN_PREAMBLE
    assert not approval.holds(7)


def test_any_other_turn_first_makes_the_rejection_real():
    approval = PlanApproval()
    plan = _rejected_plan()
    approval.decided(3, plan)
    other = Prompt("e-p", "", f"{PLAN_PREAMBLE}\n\nsome other plan")
    assert approval.before_adding(other, plan) == (other, None)
    assert approval.holds(3)  # a preamble of another plan says nothing yet
    reply = AssistantText("e-a", "", "Understood, I will not do that.")
    assert approval.before_adding(reply, plan) == (reply, None)
    assert not approval.holds(3)
    approval.decided(4, plan_of(_plan_call(_result("User has approved your plan."))))
    assert not approval.holds(4)


def test_a_background_task_is_found_by_its_id_or_its_call():
    tasks = BackgroundTasks()
    call = ToolCall("e-toolu_7", "", "toolu_7", "Bash", {"command": "make", "run_in_background": True})
    tasks.note(call, _result("Command running in background with ID: bash_3"))
    tasks.note(_call("Bash", command="ls"), _result("README.md"))
    assert tasks.call_for("bash_3") == tasks.call_for("toolu_7") == "e-toolu_7"
    assert tasks.call_for("toolu_1") == ""
    structured = ToolCall("e-toolu_8", "", "toolu_8", "Bash", {})
    tasks.note(structured, _result("started", structured={"backgroundTaskId": "b9"}))
    assert tasks.call_for("b9") == "e-toolu_8"


def test_a_call_waits_for_its_result_and_is_paired_with_it():
    pairing = CallPairing()
    call = ToolCall("e-toolu_1", "", "toolu_1", "Read", {"file_path": "a.py"})
    pairing.call_made("toolu_1", 4)
    assert pairing.is_waiting("toolu_1") and pairing.holds(4, call, queued=1000)
    assert pairing.result_came("toolu_2") is None
    assert pairing.result_came("toolu_1") == 4
    assert not pairing.holds(4, call, queued=5) and not pairing.is_waiting("toolu_1")


def test_a_result_before_its_call_waits_a_few_events_then_goes_out_alone():
    pairing = CallPairing()
    stand_in = ToolCall("e-toolu_9", "", "toolu_9", "(unknown tool)", {})
    pairing.result_came_first("toolu_9", 10)
    assert pairing.holds(10, stand_in, queued=10 + EARLY_RESULT_WAIT)
    assert pairing.anchor_is_free("toolu_9")
    # Past the wait it goes out as the result of an unknown call; a call that comes later for it needs
    # an anchor of its own, and finds no stand-in to take the place of.
    assert not pairing.holds(10, stand_in, queued=11 + EARLY_RESULT_WAIT)
    assert not pairing.anchor_is_free("toolu_9")
    assert pairing.stand_in_for("toolu_9") is None


def test_a_call_that_comes_in_time_takes_the_place_of_its_results_stand_in():
    pairing = CallPairing()
    pairing.result_came_first("toolu_3", 2)
    pairing.result_came_first("toolu_3", 5)  # the same result written twice: the first stand-in stays
    assert pairing.stand_in_for("toolu_3") == 2
    assert pairing.stand_in_for("toolu_3") is None and pairing.anchor_is_free("toolu_3")


def test_a_full_queue_lets_a_waiting_call_go_without_its_result():
    pairing = CallPairing()
    call = ToolCall("e-toolu_4", "", "toolu_4", "Bash", {})
    pairing.call_made("toolu_4", 0)
    assert pairing.let_go(0, call)
    assert pairing.result_came("toolu_4") is None
    assert not pairing.let_go(0, call)


def test_replayed_calls_wait_for_results_after_the_resume_and_only_so_many_are_kept():
    pairing = CallPairing()
    for number in range(REPLAYED_CALLS_KEPT + 1):
        pairing.call_replayed(f"toolu_{number}", "Bash", {"command": f"echo {number}"})
    pairing.replayed_result("toolu_5")  # answered before the resume: nothing to pair
    assert pairing.replayed_call("toolu_0") is None  # the oldest was let go
    assert pairing.replayed_call("toolu_5") is None
    assert pairing.replayed_call(f"toolu_{REPLAYED_CALLS_KEPT}") == ("Bash", {"command": f"echo {REPLAYED_CALLS_KEPT}"})
    assert pairing.replayed_call("") is None


def test_metadata_keeps_the_first_names_every_version_and_model_and_the_whole_time_span():
    metadata = SessionMetadata()
    metadata.note({"timestamp": "2026-03-01T10:05:00Z", "sessionId": "s1", "cwd": "/srv/app", "version": "2.1.3",
                   "gitBranch": "main"})
    metadata.note({"timestamp": "2026-03-01T09:59:00Z", "sessionId": "s2", "cwd": "/elsewhere", "version": "2.1.4",
                   "slug": "quiet-fox"})
    metadata.note({"timestamp": "2026-03-01T10:30:00Z", "version": "2.1.3", "cwd": 7})
    for model in ("claude-a", "<synthetic>", "", "claude-b", "claude-a"):
        metadata.note_model(model)
    assert (metadata.session_id, metadata.cwd, metadata.slug, metadata.git_branch) == ("s1", "/srv/app", "quiet-fox", "main")
    assert (metadata.started, metadata.ended) == ("2026-03-01T09:59:00Z", "2026-03-01T10:30:00Z")
    assert list(metadata.versions) == ["2.1.3", "2.1.4"] and list(metadata.models) == ["claude-a", "claude-b"]
    assert metadata.title == ""
    metadata.ai_title = "Made up"
    assert metadata.title == "Made up"
    metadata.custom_title = "Given"
    assert metadata.title == "Given"


def test_an_entry_written_again_is_seen_once_and_a_shared_uuid_is_another_entry():
    entries = DuplicateEntries()
    assert entries.see("u1", "2026-03-01T10:00:00Z") is Seen.NEW
    assert entries.see("u2", "2026-03-01T10:00:01Z") is Seen.NEW
    # A resumed session writes the same entry again, uuid and time: it is left out, and not remembered twice.
    assert entries.see("u1", "2026-03-01T10:00:00Z") is Seen.IN_THIS_FILE
    # Another entry with the same uuid at another time is shown, as is an entry with no time after one with.
    assert entries.see("u1", "2026-03-01T11:00:00Z") is Seen.UUID_IN_THIS_FILE
    assert entries.see("u2", None) is Seen.UUID_IN_THIS_FILE
    assert entries.see("u2", None) is Seen.IN_THIS_FILE
    # What is kept, in file order, for link to find continuations by.
    assert entries.uuid_digests == b"".join(map(uuid_digest, ("u1", "u2", "u1", "u2")))
    assert entries.replay_digests == b"".join(replay_digest(uuid, time) for uuid, time in (
        ("u1", "2026-03-01T10:00:00Z"), ("u2", "2026-03-01T10:00:01Z"), ("u1", "2026-03-01T11:00:00Z"), ("u2", None)))
    assert entries.replayed == 0


def test_entries_the_continued_session_shows_are_left_out_and_counted():
    earlier = DuplicateEntries()
    for uuid, time in (("a", "2026-03-01T10:00:00Z"), ("b", "2026-03-01T10:00:05Z")):
        earlier.see(uuid, time)
    held = bytes(earlier.uuid_digests) + bytes(earlier.replay_digests)
    continued = frozenset(held[i:i + 8] for i in range(0, len(held), 8))  # as phases.replayed_entries gives it

    entries = DuplicateEntries(continued=continued)
    assert entries.see("a", "2026-03-01T10:00:00Z") is Seen.IN_CONTINUED_SESSION
    assert entries.see("b", "2026-03-01T10:00:05Z") is Seen.IN_CONTINUED_SESSION
    # The same uuid at another time is an entry of this session, which happens to share it.
    assert entries.see("b", "2026-03-02T09:00:00Z") is Seen.UUID_IN_CONTINUED_SESSION
    assert entries.see("c", "2026-03-02T09:00:01Z") is Seen.NEW
    assert entries.replayed == 2
    # Only the entries this session shows are its own: a session continuing it replays those.
    assert entries.uuid_digests == uuid_digest("b") + uuid_digest("c")
    # Written again in this file, the shared-uuid entry is left out like any other.
    assert entries.see("b", "2026-03-02T09:00:00Z") is Seen.IN_THIS_FILE
