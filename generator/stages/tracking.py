"""The state `interpret` keeps across entries, one small collaborator per concern: what the entries say
about their session (`SessionMetadata`), streamed usage (`UsageCounter`), task lists (`TaskTracker`), plan
outcomes (`PlanApproval`, `plan_of`), background tasks (`BackgroundTasks`) and which tool calls and results
wait for each other (`CallPairing`); which entries are seen twice is `duplicates.DuplicateEntries`. Each holds
only its own state and knows nothing of entries' other parts, so that each can be tested by feeding it
what interpret would and looking at what it says.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from ..core.text import head
from ..core.model import (
    AssistantText,
    Ending,
    Event,
    Plan,
    PlanDecision,
    PlanStatus,
    Prompt,
    PromptLabel,
    TaskItem,
    ToolCall,
    ToolResult,
    Usage,
)
from .summarize import PLAN_PREAMBLE

# Messages whose usage is still being counted: a streamed message's lines come together, so older ones
# are done and only their totals are kept (a session of any length holds this many).
RECENT_MESSAGES = 64
USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
# Counts past a trillion tokens in one message are a broken log; they are not added up.
MOST_TOKENS = 10**12

PLAN_TOOLS = frozenset({"ExitPlanMode", "exit_plan_mode"})
# "approved your plan" up to 2.1.1xx; "has approved exiting plan mode" by 2.1.3xx.
PLAN_APPROVED = re.compile(r"approved your plan|approved exiting plan mode|Approved Plan", re.I)
PLAN_REJECTED = re.compile(r"rejected|doesn't want to proceed", re.I)
PLAN_FEEDBACK = "the user said:"
# The plan as the user edited it before approving, at the end of ExitPlanMode's answer (2.1.1xx).
EDITED_PLAN = re.compile(r"^#+ *Approved Plan \(edited by user\):? *\n", re.M)
PLAN_APPROVED_EDITED = "after your edits"
"""How a plan was approved, after its status (`Plan approved after your edits`): the status is not repeated."""

TASK_TOOLS = frozenset({"TaskCreate", "TaskUpdate"})

# How a background command's result names its task, for linking the notification back to the call.
BACKGROUND_TASK_ID = re.compile(r"running in background with ID: ([A-Za-z0-9_-]+)")
BACKGROUND_TASKS_PER_SESSION = 1000


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value < MOST_TOKENS else None


class _Message:
    """One message still being counted: the largest count of each kind its lines gave, the model that
    wrote it (its last line's), and the UTC day of its first line that has a time."""

    __slots__ = ("counts", "model", "day")

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.model = "unknown"
        self.day = ""


@dataclass
class UsageCounter:
    """Token counts of one session, by model and by day. Streaming repeats one message's usage on each of
    its lines, with output_tokens growing as it goes: the largest count per message is kept, and a message
    is added to the totals once it is done (its lines are together: once many later messages have come,
    it is done)."""

    recent: dict[tuple[str, str], _Message] = field(default_factory=dict)
    """Messages still being counted, oldest first, by (message id, request id)."""
    by_model: dict[str, Counter[str]] = field(default_factory=dict)
    """Counts of the messages that are done, by model."""
    tokens_by_day: Counter[str] = field(default_factory=Counter)

    def count(self, data: Mapping[str, Any], message: Mapping[str, Any]) -> None:
        """Count an assistant entry (`data`) whose message is `message`."""
        usage = message.get("usage")
        if not isinstance(usage, dict):
            return
        message_id = message["id"] if "id" in message else data.get("uuid", "")
        request_id = data.get("requestId", "")
        key = (message_id if type(message_id) is str else str(message_id),
               request_id if type(request_id) is str else str(request_id))
        recent = self.recent
        counting = recent.get(key)
        if counting is None:
            counting = recent[key] = _Message()
            if len(recent) > RECENT_MESSAGES:
                self._add_up(next(iter(recent)))
        model = message.get("model")
        if isinstance(model, str) and model != "<synthetic>":
            counting.model = model
        if not counting.day:
            timestamp = data.get("timestamp")
            if isinstance(timestamp, str) and len(timestamp) >= 10:
                counting.day = timestamp[:10]  # Claude Code writes UTC: the day is the UTC day
        counted = counting.counts
        for field_name in USAGE_FIELDS:
            value = usage.get(field_name)
            # `_count`, inline: a number from JSON is an int or a bool (which is not a count) or another type
            if type(value) is int and value < MOST_TOKENS and value > counted.get(field_name, 0):
                counted[field_name] = value
        # 2.x says which cache a write went to; the one-hour cache costs more than the five-minute one.
        split = usage.get("cache_creation")
        one_hour = _count(split.get("ephemeral_1h_input_tokens")) if isinstance(split, dict) else None
        if one_hour is not None:
            counted["cache_creation_1h"] = max(counted.get("cache_creation_1h", 0), one_hour)

    def _add_up(self, key: tuple[str, str]) -> None:
        counting = self.recent.pop(key)
        counted = counting.counts
        totals = self.by_model.get(counting.model)
        if totals is None:
            totals = self.by_model[counting.model] = Counter()
        for name, value in counted.items():  # `Counter.update`, without its checks and calls for each name
            totals[name] += value
        if counting.day:
            self.tokens_by_day[counting.day] += (counted.get("input_tokens", 0) + counted.get("output_tokens", 0)
                                                 + counted.get("cache_read_input_tokens", 0)
                                                 + counted.get("cache_creation_input_tokens", 0))

    def finish(self) -> tuple[Usage, dict[str, Usage], dict[str, int]]:
        """The session's totals: all of it, by model (sorted), and tokens by UTC day (sorted)."""
        for key in list(self.recent):
            self._add_up(key)
        total: Counter[str] = sum(self.by_model.values(), Counter())
        return (usage_of(total), {model: usage_of(c) for model, c in sorted(self.by_model.items())},
                dict(sorted(self.tokens_by_day.items())))


def usage_of(counted: Counter[str]) -> Usage:
    return Usage(
        input_tokens=counted["input_tokens"],
        output_tokens=counted["output_tokens"],
        cache_read_tokens=counted["cache_read_input_tokens"],
        cache_creation_tokens=counted["cache_creation_input_tokens"],
        cache_creation_1h_tokens=min(counted["cache_creation_1h"], counted["cache_creation_input_tokens"]),
    )


@dataclass
class TaskTracker:
    """TaskCreate/TaskUpdate change one task at a time; the reader wants the whole list after each."""

    tasks: dict[str, TaskItem] = field(default_factory=dict)

    def track(self, call: ToolCall, result: ToolResult) -> tuple[TaskItem, ...]:
        """The list after `call` (a TaskCreate or TaskUpdate) got `result`, in task id order."""
        structured = result.structured if isinstance(result.structured, dict) else {}
        if call.name == "TaskCreate" and not result.is_error:
            created = task if isinstance(task := structured.get("task"), dict) else {}
            task_id = str(created.get("id") or len(self.tasks) + 1)
            subject = str(call.input.get("subject") or created.get("subject") or "")
            self.tasks[task_id] = TaskItem(task_id, subject, str(call.input.get("status") or "pending"))
        elif call.name == "TaskUpdate" and not result.is_error:
            task_id = str(call.input.get("taskId") or structured.get("taskId") or "")
            current = self.tasks.get(task_id, TaskItem(task_id, "", "pending"))
            status = str(call.input.get("status") or current.status)
            if status == "deleted":
                self.tasks.pop(task_id, None)
            else:
                subject = str(call.input.get("subject") or current.subject)
                self.tasks[task_id] = TaskItem(task_id, subject, status)
        return tuple(sorted(self.tasks.values(), key=lambda t: (len(t.id), t.id)))


def plan_of(call: ToolCall) -> Plan:
    """An ExitPlanMode call as the plan it proposed, with its outcome."""
    plan_text = str(call.input.get("plan", ""))
    result = call.result.text if call.result else ""
    status, decision, how, feedback = PlanStatus.PENDING, PlanDecision.ANSWERED, "", ""
    if call.result is None:
        decision, how = PlanDecision.NO_ANSWER, "no answer in this session"
    elif PLAN_APPROVED.search(result):
        status, how = PlanStatus.APPROVED, "by the user"
        structured = call.result.structured if isinstance(call.result.structured, dict) else {}
        edited_heading = EDITED_PLAN.search(result)
        if structured.get("planWasEdited") is True or edited_heading is not None:
            how = PLAN_APPROVED_EDITED
            edited = structured.get("plan")
            if isinstance(edited, str) and edited.strip():
                plan_text = edited
            elif edited_heading is not None and result[edited_heading.end():].strip():
                plan_text = result[edited_heading.end():]
    elif call.result.ending == Ending.REJECTED:
        status, how, feedback = PlanStatus.REJECTED, "by the user", call.result.feedback
    elif PLAN_REJECTED.search(result):
        status, how = PlanStatus.REJECTED, "by the user"
        said = result.split(PLAN_FEEDBACK, 1)
        feedback = said[1].strip() if len(said) == 2 else ""
    elif call.result.ending == Ending.INTERRUPTED:
        status, how = PlanStatus.REJECTED, "interrupted by the user (Escape)"
    else:
        how = "answered: " + head(" ".join(result.split()), 200)
    return Plan(call.anchor, call.timestamp, plan_text, status, decision, how, feedback, tool=call.name)


@dataclass
class PlanApproval:
    """A plan rejected in the old format's "accept and clear context" is followed by "Implement the
    following plan:" with its text: that plan was approved, and the prompt repeating it is hidden. Any
    other turn first means it was a real rejection. This keeps where the rejected plan waits (its absolute
    index in the session's events) until the next turn says which."""

    waiting: int | None = None

    def decided(self, index: int, plan: Plan) -> None:
        """`plan`, at `index`, has its outcome: a rejection waits for the next turn."""
        if plan.status == PlanStatus.REJECTED:
            self.waiting = index

    def holds(self, index: int) -> bool:
        return index == self.waiting

    def let_go(self, index: int) -> None:
        """The plan at `index` goes out as it stands (rejected)."""
        if index == self.waiting:
            self.waiting = None

    def before_adding(self, event: Event, plan: Plan) -> tuple[Event, Plan | None]:
        """`event` comes after the waiting `plan`: the event as it is to be added, and the plan as it
        turned out when this event settles it (None while it still waits, or when it stays rejected)."""
        if isinstance(event, Prompt) and event.text.startswith(PLAN_PREAMBLE):
            wanted = " ".join(plan.text.split())
            body = " ".join(event.text[len(PLAN_PREAMBLE):].split())
            if wanted and body.startswith(wanted):
                self.waiting = None
                return (replace(event, hidden=True, label=PromptLabel.PLAN_PREAMBLE),
                        replace(plan, status=PlanStatus.APPROVED, decision=PlanDecision.FRESH_CONTEXT,
                                how="accepted with a fresh context", feedback=""))
        elif isinstance(event, (Prompt, AssistantText)) and not getattr(event, "hidden", False):
            self.waiting = None
        return event, None


@dataclass
class BackgroundTasks:
    """A command sent to the background names its task; the notification that it ended names only the
    task (or the call's id), so the call is found by it."""

    call_of: dict[str, str] = field(default_factory=dict)
    """Anchor of the call that started each background task, by task id and by the call's own id."""

    def note(self, call: ToolCall, result: ToolResult) -> None:
        structured = result.structured if isinstance(result.structured, dict) else {}
        task_id = structured.get("backgroundTaskId")
        if not isinstance(task_id, str):
            head = result.text[:2000]
            found = BACKGROUND_TASK_ID.search(head) if "background" in head else None
            task_id = found.group(1) if found else None
        if task_id and len(self.call_of) < BACKGROUND_TASKS_PER_SESSION:
            self.call_of[task_id] = call.anchor
            if call.tool_use_id:
                self.call_of[call.tool_use_id] = call.anchor

    def call_for(self, task_id: str) -> str:
        """The anchor of the call that started `task_id` ("" when not known here)."""
        return self.call_of.get(task_id, "")


# How many events a result written before its call waits for the call (2.1.9x writes it right after).
EARLY_RESULT_WAIT = 32
# Replayed calls still waiting for a result: a continuation resumes where a few calls were open.
REPLAYED_CALLS_KEPT = 256


@dataclass
class CallPairing:
    """Which tool calls and results wait for each other, by tool_use id. Events are named by their
    absolute index in the session: a call waits for its result; a result written before its call
    (2.1.9x does this) waits as a stand-in call for a few events; a call replayed from the session this
    one continues waits for a result written after the resume."""

    waiting_calls: dict[str, int] = field(default_factory=dict)
    early_results: dict[str, int] = field(default_factory=dict)
    """Stand-ins for results that came before their call, by tool_use id."""
    shown_without_call: set[str] = field(default_factory=set)
    """Ids of results that went out without their call: a call that comes later needs an anchor of its own."""
    replayed: dict[str, tuple[str, Mapping[str, Any]]] = field(default_factory=dict)
    """Name and input of each replayed call whose result has not come, oldest first."""

    def call_made(self, tool_use_id: str, index: int) -> None:
        self.waiting_calls[tool_use_id] = index

    def is_waiting(self, tool_use_id: str) -> bool:
        """Whether a call with this id waits for its result already (the same block written twice)."""
        return tool_use_id in self.waiting_calls

    def result_came(self, tool_use_id: str) -> int | None:
        """The index of the call this result answers, if one waits for it."""
        return self.waiting_calls.pop(tool_use_id, None)

    def result_came_first(self, tool_use_id: str, index: int) -> None:
        """A result with no call yet waits at `index` as a stand-in."""
        if tool_use_id and tool_use_id not in self.early_results:
            self.early_results[tool_use_id] = index

    def stand_in_for(self, tool_use_id: str) -> int | None:
        """The index of the stand-in for this call's result, which came first, if it still waits."""
        return self.early_results.pop(tool_use_id, None) if tool_use_id else None

    def call_replayed(self, tool_use_id: str, name: str, tool_input: Mapping[str, Any]) -> None:
        if len(self.replayed) >= REPLAYED_CALLS_KEPT:
            del self.replayed[next(iter(self.replayed))]
        self.replayed[tool_use_id] = (name, tool_input)

    def replayed_result(self, tool_use_id: str) -> None:
        self.replayed.pop(tool_use_id, None)

    def replayed_call(self, tool_use_id: str) -> tuple[str, Mapping[str, Any]] | None:
        """The name and input of the replayed call this result answers, if any."""
        return self.replayed.pop(tool_use_id, None) if tool_use_id else None

    def anchor_is_free(self, tool_use_id: str) -> bool:
        """Whether an event for this call may take its anchor from the id (no other event has)."""
        return bool(tool_use_id) and tool_use_id not in self.shown_without_call

    def holds(self, index: int, call: ToolCall, queued: int) -> bool:
        """Whether the call at `index` still waits, `queued` events having come so far."""
        if self.early_results.get(call.tool_use_id) == index:
            # A result before its call: its call comes within a few entries, or from another file.
            if queued - index <= EARLY_RESULT_WAIT:
                return True
            self._give_up(call.tool_use_id)
            return False
        return self.waiting_calls.get(call.tool_use_id) == index

    def let_go(self, index: int, call: ToolCall) -> bool:
        """The call at `index` goes out as it stands; whatever comes for it later is shown on its own.
        True when it was a call still waiting for its result."""
        if self.early_results.get(call.tool_use_id) == index:
            self._give_up(call.tool_use_id)
        if self.waiting_calls.get(call.tool_use_id) == index:
            del self.waiting_calls[call.tool_use_id]
            return True
        return False

    def _give_up(self, tool_use_id: str) -> None:
        del self.early_results[tool_use_id]
        self.shown_without_call.add(tool_use_id)


@dataclass
class SessionMetadata:
    """What a session's entries say about it: the first id, folder, slug and branch any entry names, every
    Claude Code version and model, the earliest and latest time, and its titles."""

    session_id: str = ""
    cwd: str = ""
    slug: str = ""
    git_branch: str = ""
    versions: dict[str, None] = field(default_factory=dict)
    """In the order first seen (a dict keeps it)."""
    models: dict[str, None] = field(default_factory=dict)
    started: str = ""
    ended: str = ""
    custom_title: str = ""
    ai_title: str = ""
    leaf_summaries: dict[str, str] = field(default_factory=dict)
    """Summaries (titles) by the uuid of the entry they end at, which may be another file's."""
    reported_cost_by_model: dict[str, float] = field(default_factory=dict)
    """Dollars by model as Claude Code last reported them (`cost-state`): running totals for the session."""

    def note(self, data: Mapping[str, Any]) -> None:
        """Take in what any entry says (a message's model is `note_model`'s)."""
        timestamp = data.get("timestamp")
        if isinstance(timestamp, str) and timestamp:
            if not self.started or timestamp < self.started:
                self.started = timestamp
            if timestamp > self.ended:
                self.ended = timestamp
        if not self.session_id and isinstance(data.get("sessionId"), str):
            self.session_id = data["sessionId"]
        if not self.cwd and isinstance(data.get("cwd"), str):
            self.cwd = data["cwd"]
        if not self.slug and isinstance(data.get("slug"), str):
            self.slug = data["slug"]
        if not self.git_branch and isinstance(data.get("gitBranch"), str):
            self.git_branch = data["gitBranch"]
        if isinstance(data.get("version"), str):
            self.versions.setdefault(data["version"], None)

    def note_reported_cost(self, model_usage: Any, total: Any) -> None:
        """Take in a `cost-state`: its cost per model, or its total when it names no model."""
        costs = {model: float(figures["costUSD"]) for model, figures in model_usage.items()
                 if isinstance(model, str) and isinstance(figures, dict) and _dollars(figures.get("costUSD"))
                 } if isinstance(model_usage, dict) else {}
        if costs:
            self.reported_cost_by_model = costs
        elif _dollars(total) and self.models:
            self.reported_cost_by_model = {next(reversed(self.models)): float(total)}

    def note_model(self, model: str) -> None:
        if model and model != "<synthetic>":
            self.models.setdefault(model, None)

    @property
    def title(self) -> str:
        """The title the session was given, else the one Claude Code made up for it."""
        return self.custom_title or self.ai_title or ""


def _dollars(value: Any) -> bool:
    """A cost a log may hold: a finite, non-negative number (never a bool, which JSON keeps apart)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 1e9
