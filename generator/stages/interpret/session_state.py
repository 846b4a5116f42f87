"""What a session builder holds while one file is interpreted (`SessionState`), and the queue its events
wait in until nothing can change them (`_EventQueue`). The handlers of each entry family are methods of
subclasses of `SessionState` (user_entries, assistant_entries, ...); `build()` freezes it all into a
`Session`."""

from __future__ import annotations

import re
from collections import Counter
from collections import deque
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Callable, ClassVar, Mapping

from ...core.model import (
    Diagnostic,
    Entry,
    Event,
    Notice,
    NoticeKind,
    Plan,
    Prompt,
    Session,
    ToolCall,
    Unknown,
)
from ..agents import CLAUDE_CODE
from ..discover import SessionFile
from ..redact import identifier
from ..summarize import Summary
from ..duplicates import DuplicateEntries
from ..tracking import (PLAN_TOOLS, BackgroundTasks, CallPairing, PlanApproval, SessionMetadata, TaskTracker,
                        UsageCounter, plan_of)

# Times outside this window are a wrong clock or a broken log, not when a session ran (Claude Code came out
# in 2025): they are reported and left out, so that they stretch no chart or duration. A fixed window,
# never the build's own clock, so that two builds of the same input stay byte-identical.
PLAUSIBLE_TIMES = (date(2023, 1, 1), date(2100, 1, 1))

EventSink = Callable[[Event], None]
_NOT_IN_ANCHOR = re.compile(r"[^A-Za-z0-9_-]")


# Most ids are uuids, or a uuid with the number of a part of its message (`<uuid>-<n>`): no token of a
# known format can stand in one (tests/test_interpret_anchors.py asks every rule), so `identifier` gives it
# back as it is, and every character of it may stand in an anchor.
_PLAIN_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?:-[0-9]{1,6})?")


def _anchor(raw_id: Any, fallback: str) -> str:
    if type(raw_id) is str and _PLAIN_ID.fullmatch(raw_id) is not None:
        return "e-" + raw_id[:40]
    text = identifier(str(raw_id)) if raw_id else fallback  # an id holding a key does not carry it into links
    return "e-" + _NOT_IN_ANCHOR.sub("", text)[:40]


@dataclass
class SessionState:
    """Mutable while one file is being interpreted; `build()` freezes the result."""

    source: SessionFile
    agent_id: str = ""
    run_name: str = ""
    """For a subagent run found inside the main file (inline sidechain or agent_progress): its name in the key."""
    problems: list[Diagnostic] = field(default_factory=list)
    """Where problems found in the entries go (shared by the sessions of one file)."""
    events: _EventQueue = field(init=False)
    unknown: Counter[str] = field(default_factory=Counter)
    restoring_context: bool = False
    """Between a compaction and the next prompt: files attached then are Claude Code's re-reading, not the
    person's."""
    calls: CallPairing = field(default_factory=CallPairing)
    duplicates: DuplicateEntries = field(default_factory=DuplicateEntries)
    usage: UsageCounter = field(default_factory=UsageCounter)
    metadata: SessionMetadata = field(default_factory=SessionMetadata)
    has_conversation: bool = False
    counter: int = 0
    permission_mode: str = "default"
    tasks: TaskTracker = field(default_factory=TaskTracker)
    progress_sink: Callable[[str], Callable[[Entry], None] | None] | None = None
    """The feed of the run rebuilt from a subagent's agent_progress entries, by its agent id (None when
    nothing is wanted of that run)."""
    sink: EventSink | None = None
    summary: Summary = field(default_factory=Summary)
    summarising: bool = True
    """Whether the session is summarised (phase 1). Without, nothing is counted that only its summary
    says (usage, models, times, titles): phase 2 has the summary, and renders the events only."""
    whole_events: bool = False
    """Whether the events go to a sink whole. Without one only the summary sees them, and what it never
    reads is not made: the bytes of an embedded image, the task list after each task tool's call, the
    links from a background task's notification to the call that started it."""
    plans: PlanApproval = field(default_factory=PlanApproval)
    background: BackgroundTasks = field(default_factory=BackgroundTasks)
    agent: ClassVar[str] = CLAUDE_CODE
    """The coding agent whose logs the builder reads (each agent's adapter is a subclass)."""
    prompt_after: dict[str, str] = field(default_factory=dict)
    """The anchor of the first prompt written after each entry, by that entry's uuid (the prompt's
    `parentUuid`): a second prompt after the same entry is the user going back to it."""

    def __post_init__(self) -> None:
        self.agent_id = self.agent_id or self.source.agent_id
        self.events = _EventQueue(self)

    def start(self, sink: EventSink | None, summarising: bool = True) -> None:
        self.sink = sink
        self.whole_events = sink is not None
        self.summarising = summarising

    @property
    def wanted(self) -> bool:
        """Whether anything is wanted of the session: its events, or its summary."""
        return self.summarising or self.sink is not None

    def deliver(self, event: Event) -> None:
        if not self.has_conversation and _is_content(event):
            self.has_conversation = True
        if self.summarising:
            self.summary(event)
        if self.sink is not None:
            self.sink(event)

    def is_held(self, index: int, event: Event) -> bool:
        """An event waits while something later may still change it."""
        if index == self.plans.waiting:  # `PlanApproval.holds`, asked of every event
            return True
        return isinstance(event, ToolCall) and self.calls.holds(index, event, len(self.events))

    def let_go(self, index: int, event: Event) -> Event:
        """The queue is full: the event goes out as it stands (a call without its result, a plan as
        rejected) and anything that comes for it later is shown on its own."""
        self.plans.let_go(index)
        if isinstance(event, ToolCall) and self.calls.let_go(index, event) and event.name in PLAN_TOOLS:
            return plan_of(event)
        return event

    @property
    def key(self) -> str:
        """Unique in a build, and the base of the page's path: `<project>/<file stem>`, with subagent
        logs under their parent session's folder when the layout says which that is."""
        project = self.source.project_dir
        if self.source.parent_session_id:
            return f"{project}/{self.source.parent_session_id}/{self.source.stem}"
        if self.run_name:
            return f"{project}/{self.source.stem}/{self.run_name}"
        return f"{project}/{self.source.stem}"

    def _time(self, data: Mapping[str, Any]) -> str:
        timestamp = data.get("timestamp")
        return timestamp if isinstance(timestamp, str) else ""

    def _next_anchor(self, raw_id: Any) -> str:
        self.counter += 1
        return _anchor(raw_id, f"n{self.counter}")

    def before_adding(self, event: Event) -> Event:
        if isinstance(event, Prompt) and not event.hidden:
            self.restoring_context = False
        if self.plans.waiting is None:
            return event
        index = self.plans.waiting
        plan = self.events[index]
        assert isinstance(plan, Plan)
        event, settled = self.plans.before_adding(event, plan)
        if settled is not None:
            self.events[index] = settled
        return event

    def _malformed(self, entry: Entry, reason: str) -> None:
        """An entry of a known type in a shape this stage cannot read: shown raw, counted, and said."""
        self.problems.append(Diagnostic(entry.file, entry.line, f"{reason}: shown as it is"))
        name = f"shape:{entry.data.get('type')}"
        self.unknown[name] += 1
        self.events.append(Unknown(self._next_anchor(entry.data.get("uuid")), self._time(entry.data), name,
                                   dict(entry.data)))

    # -- freezing --------------------------------------------------------------------------------------

    def build(self, parent_key: str = "") -> Session:
        self.events.release(everything=True)
        if not self.summarising:  # the session as it is named; nothing was counted
            return Session(key=self.key, session_id=self.source.path.stem, source=str(self.source.path),
                           project_dir=self.source.project_dir, agent=self.agent, cwd="", title="",
                           agent_id=self.agent_id if (self.source.is_subagent or parent_key) else "",
                           parent_key=parent_key)
        usage, usage_by_model, tokens_by_day = self.usage.finish()
        metadata = self.metadata
        return Session(
            key=self.key,
            session_id=metadata.session_id or self.source.path.stem,
            source=str(self.source.path),
            project_dir=self.source.project_dir,
            agent=self.agent,
            cwd=metadata.cwd,
            title=metadata.title,
            slug=metadata.slug,
            git_branch=metadata.git_branch,
            models=tuple(metadata.models),
            versions=tuple(metadata.versions),
            started=metadata.started,
            ended=metadata.ended,
            usage=usage,
            usage_by_model=usage_by_model,
            tokens_by_day=tokens_by_day,
            agent_id=self.agent_id if (self.source.is_subagent or parent_key) else "",
            parent_key=parent_key,
            uuid_digests=bytes(self.duplicates.uuid_digests),
            replay_digests=bytes(self.duplicates.replay_digests),
            leaf_summaries=dict(metadata.leaf_summaries),
            custom_title=metadata.custom_title,
            reported_cost_by_model=dict(metadata.reported_cost_by_model),
            skipped_entries=self.duplicates.replayed,
            **self.summary.fields(),
        )


class _EventQueue:
    """A session's events on their way out, oldest first. Events are addressed by their absolute index
    in the session, as a list would be; an event leaves (to the summary and the sink) once nothing can
    change it any more. The newest event always waits for the next, which may complete it (a slash
    command's output, a shell command's output)."""

    HOLD_AT_MOST = 2000
    """Past this many waiting events, the oldest goes out as it stands: a call that never got its result
    must not make the whole rest of a session wait in memory."""

    def __init__(self, builder: SessionState):
        self.builder = builder
        self.waiting: deque[Event] = deque()
        self.sent = 0

    def __len__(self) -> int:
        return self.sent + len(self.waiting)

    def __bool__(self) -> bool:
        return bool(self.waiting)

    def __getitem__(self, index: int) -> Event:
        return self.waiting[index if index < 0 else index - self.sent]

    def __setitem__(self, index: int, event: Event) -> None:
        self.waiting[index if index < 0 else index - self.sent] = event

    def append(self, event: Event) -> None:
        builder = self.builder
        # `before_adding` changes nothing while no plan waits and no context is being restored (most events)
        self.waiting.append(builder.before_adding(event) if builder.plans.waiting is not None
                            or builder.restoring_context else event)
        self.release()

    def release(self, everything: bool = False) -> None:
        builder = self.builder
        while len(self.waiting) > (0 if everything else 1):
            head = self.waiting[0]
            if builder.is_held(self.sent, head):
                if not (everything or len(self.waiting) > self.HOLD_AT_MOST):
                    return
                head = builder.let_go(self.sent, head)
            self.waiting.popleft()
            self.sent += 1
            builder.deliver(head)


# Events that do not make a file worth a page on their own: Claude Code's bookkeeping about the session.
NOT_CONTENT_NOTICES = frozenset({NoticeKind.PERMISSION_MODE, NoticeKind.QUEUE_REMOVED})


def _is_content(event: Event) -> bool:
    """Whether the event shows something that happened in the conversation: a file with any such event
    gets a page; one with none (summary pointers, snapshots, queue operations) does not."""
    if getattr(event, "hidden", False):
        return False
    return not (isinstance(event, Notice) and event.kind in NOT_CONTENT_NOTICES)


def _plausible_time(value: Any) -> bool:
    """An ISO 8601 time within `PLAUSIBLE_TIMES` (or no time at all: null or empty)."""
    if value is None or value == "":
        return True
    if not isinstance(value, str):
        return False
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return PLAUSIBLE_TIMES[0] <= moment.date() < PLAUSIBLE_TIMES[1]
