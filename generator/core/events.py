"""Events: what a session is made of after interpretation, and the names they use (`generator.core.model`
gathers the whole model)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum
from types import MappingProxyType
from typing import Any, Mapping, Union

from .entries import WholeLine, quick_init

EMPTY: Mapping[str, Any] = MappingProxyType({})


class Named(str, Enum):
    """An enum whose members are their values wherever text is wanted: in an f-string, a CSS class, the
    manifest's JSON (`enum.StrEnum` does this from Python 3.11; this package still runs on 3.10)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class NoticeKind(Named):
    """The notices `interpret` makes. A system line or message Claude Code adds later keeps its own name
    (a plain str, e.g. a new system subtype), so that a page still shows and classes it."""

    INTERRUPT = "interrupt"
    COMPACTION = "compaction"
    API_ERROR = "api-error"
    TURN_DURATION = "turn-duration"
    STOP_HOOK_SUMMARY = "stop-hook-summary"
    AWAY_SUMMARY = "away-summary"
    INFORMATIONAL = "informational"
    MICROCOMPACT_BOUNDARY = "microcompact-boundary"
    HOOK = "hook"
    SYSTEM = "system"
    PERMISSION_MODE = "permission-mode"
    ATTACHED_FILE = "attached-file"
    QUEUE_REMOVED = "queue-removed"
    PR_LINK = "pr-link"
    COMMAND_OUTPUT = "command-output"
    CAVEAT = "caveat"
    CONTINUATION = "continuation"
    REDACTED_THINKING = "redacted-thinking"
    TASK_NOTIFICATION = "task-notification"
    BASH_NOTIFICATION = "bash-notification"
    MODEL_SETTINGS = "model-settings"
    """The model and its settings (reasoning effort, approvals, sandbox), when an agent's log says them."""
    STOPPED = "stopped"
    """A turn stopped before Claude finished it, by a limit (the model's, the account's, the user's) or a refusal."""
    REWIND = "rewind"
    """The user went back to an earlier point (a rewind, or an earlier prompt edited) and went on from there."""


def notice_kind(name: str) -> NoticeKind | str:
    """The kind named `name`: one of ours when it is, else the name as Claude Code wrote it."""
    try:
        return NoticeKind(name)
    except ValueError:
        return name


class PermissionMode(Named):
    """Claude Code's permission modes (`permissionMode`); a mode it adds later is kept as a plain str."""

    DEFAULT = "default"
    PLAN = "plan"
    ACCEPT_EDITS = "acceptEdits"
    BYPASS_PERMISSIONS = "bypassPermissions"
    AUTO = "auto"


class Ending(Named):
    """How a tool call ended when it did not run to its result (`ToolResult.ending`), and who ended it."""

    NONE = ""
    INTERRUPTED = "interrupted"
    """The user pressed Escape while it waited or ran."""
    REJECTED = "rejected"
    """The user answered No at Claude Code's permission prompt (perhaps saying what to do instead)."""
    REFUSED = "refused"
    """Claude Code refused it: its permission settings (or rules, or auto mode) did not allow it."""
    BLOCKED = "blocked"
    """A hook of the user's (PreToolUse) blocked it."""
    CANCELLED = "cancelled"
    """Claude Code cancelled it before it ran (another call of the same message failed, say)."""


class PromptLabel(Named):
    """Why a prompt is hidden or special (shown after "You ·" with --show-hidden)."""

    NONE = ""
    META = "meta"
    SYSTEM_REMINDER = "system reminder"
    PLAN_PREAMBLE = "plan preamble"
    """"Implement the following plan:" with the plan a session was started with or accepted in."""


class PlanStatus(Named):
    APPROVED = "approved"
    REJECTED = "rejected"
    PENDING = "pending"
    """No answer in this file."""


class PlanDecision(Enum):
    """How a plan's outcome came to be known (`Plan.how` says it for a reader)."""

    ANSWERED = "answered"
    """The user answered the ExitPlanMode call (approved, rejected, or something else)."""
    NO_ANSWER = "no answer"
    FRESH_CONTEXT = "fresh context"
    """Rejected in the old format's "accept and clear context", then carried out from the next prompt."""
    STARTED_SESSION = "started session"
    """The plan this session was started with (`planContent`): this session carries it out."""



class EventBase:
    """What every kind of event is: a frozen dataclass (with slots) with an `anchor`, the id it is linked by.
    `Event` names the kinds this package makes; a kind added elsewhere subclasses this and registers its
    Markdown writer (`render.markdown.SINGLE_EVENTS`) and, if it holds words to find, the indexer of its
    page groups (`render.search.INDEXERS`). An event of a kind no writer knows is shown as an unknown entry."""

    __slots__ = ()
    anchor: str


@quick_init
@dataclass(frozen=True, slots=True)
class Media:
    """An image or a document (PDF) pasted into a prompt or returned by a tool."""

    media_type: str
    """MIME type as declared, e.g. image/png or application/pdf."""
    data: bytes
    """Decoded bytes; empty when the file was only referred to by path or URL (never read or fetched)."""
    source: str = ""
    """The path or URL it was referred to by, or why its bytes are missing."""


@quick_init
@dataclass(frozen=True, slots=True)
class Prompt(EventBase):
    """Something the user typed."""

    anchor: str
    """Stable id for links, derived from the entry uuid."""
    timestamp: str
    """ISO 8601 time the entry was written."""
    text: str
    """The prompt as Markdown source (untrusted)."""
    images: tuple[Media, ...] = ()
    """Images pasted with the prompt."""
    hidden: bool = False
    """True for system-injected text that is shown only with --show-hidden."""
    label: PromptLabel = PromptLabel.NONE
    """Why it is hidden or special."""
    by_agent: bool = False
    """Written by the agent that started this subagent run (its task, in Markdown), not typed by a person."""


@quick_init
@dataclass(frozen=True, slots=True)
class AssistantText(EventBase):
    """Prose written by the model."""

    anchor: str
    """Stable id for links."""
    timestamp: str
    """ISO 8601 time."""
    text: str
    """Markdown source (untrusted)."""
    model: str = ""
    """Model name that wrote it."""


@quick_init
@dataclass(frozen=True, slots=True)
class Thinking(EventBase):
    """Extended thinking."""

    anchor: str
    """Stable id for links."""
    timestamp: str
    """ISO 8601 time."""
    text: str
    """Markdown source (untrusted)."""


@quick_init
@dataclass(frozen=True, slots=True)
class ToolResult:
    """What came back from a tool call."""

    timestamp: str
    """ISO 8601 time of the result entry."""
    text: str
    """The textual result, as the model saw it (untrusted)."""
    is_error: bool
    """The tool reported failure."""
    structured: Any = None
    """The entry's `toolUseResult`: a per-tool object, or sometimes a plain string."""
    images: tuple[Media, ...] = ()
    """Images in the result."""
    ending: Ending = Ending.NONE
    """How the call ended when not by running: interrupted, rejected, refused, blocked by a hook."""
    feedback: str = ""
    """What the user typed when rejecting the call (untrusted)."""
    instruction: str = ""
    """Claude Code's instruction to the model in place of a result ("STOP what you are doing…"): not the story,
    shown folded and labelled as such (untrusted)."""
    harness: str = ""
    """Notes Claude Code appended to the result for the model (ids, temporary paths, schema hints, a hand-back
    frame), taken out of `text`: shown only with --show-hidden (untrusted)."""


@quick_init
@dataclass(frozen=True, slots=True)
class TaskItem:
    """One line of a task list (TaskCreate/TaskUpdate) or todo list (TodoWrite)."""

    id: str
    """Task id assigned by Claude Code (TaskCreate's result), or the position in a todo list."""
    subject: str
    """What the task is."""
    status: str
    """pending, in_progress or completed."""


@quick_init
@dataclass(frozen=True, slots=True)
class ToolCall(EventBase):
    """A tool call paired with its result."""

    anchor: str
    """Stable id for links, derived from the tool_use id."""
    timestamp: str
    """ISO 8601 time of the call."""
    tool_use_id: str
    """The `tool_use` id that pairs call and result."""
    name: str
    """Tool name, e.g. Bash or mcp__server__tool."""
    input: Mapping[str, Any]
    """The call's input object."""
    result: ToolResult | None = None
    """The result, or None when the session ended before it came back."""
    subagent: str = ""
    """Session key of the subagent transcript this call started, when there is one."""
    tasks: tuple[TaskItem, ...] = ()
    """For TaskCreate/TaskUpdate: the whole task list as it stood after this call."""

    def with_result(self, result: ToolResult) -> ToolCall:
        """The call answered by `result`: `dataclasses.replace(call, result=result)`, at a fraction of its
        cost (every call of every session is answered)."""
        return ToolCall(self.anchor, self.timestamp, self.tool_use_id, self.name, self.input, result, self.subagent,
                        self.tasks)


@quick_init
@dataclass(frozen=True, slots=True)
class Plan(EventBase):
    """A plan Claude proposed (ExitPlanMode) or was started with (`planContent`), with what became of it."""

    anchor: str
    """Stable id for links."""
    timestamp: str
    """ISO 8601 time it was proposed."""
    text: str
    """The plan, Markdown (untrusted)."""
    status: PlanStatus
    decision: PlanDecision
    how: str = ""
    """How it was decided, for a reader: e.g. 'accept and clear context', 'started this session'."""
    feedback: str = ""
    """What the user said when rejecting it."""
    tool: str = ""
    """The tool whose call proposed it (ExitPlanMode), counted with the session's tool calls; empty for a
    plan the session was started with."""


@quick_init
@dataclass(frozen=True, slots=True)
class SlashCommand(EventBase):
    """A slash command the user ran, shown as one compact line."""

    anchor: str
    """Stable id for links."""
    timestamp: str
    """ISO 8601 time."""
    name: str
    """Command with its slash, e.g. /model."""
    args: str
    """Arguments as typed."""
    output: str = ""
    """What the command printed, if anything."""


@quick_init
@dataclass(frozen=True, slots=True)
class BashMode(EventBase):
    """A shell command the user ran themselves with `!`."""

    anchor: str
    """Stable id for links."""
    timestamp: str
    """ISO 8601 time."""
    command: str
    """The command line."""
    stdout: str = ""
    """Standard output."""
    stderr: str = ""
    """Standard error."""


@quick_init
@dataclass(frozen=True, slots=True)
class Notice(EventBase):
    """A system line: interrupts, compaction, API errors, hook summaries and the like."""

    anchor: str
    """Stable id for links."""
    timestamp: str
    """ISO 8601 time."""
    kind: NoticeKind | str
    """What sort of notice (`NoticeKind`; a plain str only for a system line or message of a kind we do not
    know, by its own name)."""
    text: str
    """Plain text for a person (untrusted)."""
    hidden: bool = False
    """True for bookkeeping shown only with --show-hidden."""
    milliseconds: int = 0
    """For a turn-duration notice: how long the turn took."""
    details: tuple[tuple[str, str], ...] = ()
    """Named facts a system message carried (a background task's status, its usage), untrusted."""
    harness: tuple[tuple[str, str], ...] = ()
    """Facts it carried for the model only (ids, a temporary output file, a note to the model): shown only with
    --show-hidden, untrusted."""
    related: str = ""
    """Anchor of the event this notice is about (the call that started a background task), if known."""
    mode: PermissionMode | str = ""
    """For a permission-mode notice: the mode the session changed to."""


@quick_init
@dataclass(frozen=True, slots=True)
class Unknown(EventBase):
    """An entry or content part the interpreter does not know. Shown generically, never dropped."""

    anchor: str
    """Stable id for links."""
    timestamp: str
    """ISO 8601 time, when the entry had one."""
    name: str
    """What it is, e.g. `type:foo` or `part:bar`."""
    raw: Any
    """The raw JSON value."""
    hidden: bool = False
    """True for an entry of a new type with no conversation in it: bookkeeping, shown only with --show-hidden."""


@quick_init
@dataclass(frozen=True, slots=True)
class Unreadable(EventBase):
    """A line of the file that could not be read; shown where it was so that its text is not lost."""

    anchor: str
    """Stable id for links."""
    line: int
    """1-based line number."""
    text: str
    """The line as far as it could be decoded."""
    reason: str
    """Why it could not be read."""
    whole: WholeLine | None = None
    """For a line too long to be read whole: all of it, of which `text` is the start."""


Event = Union[
    Prompt, AssistantText, Thinking, ToolCall, Plan, SlashCommand, BashMode, Notice, Unknown, Unreadable
]


def as_unknown(event: EventBase) -> Unknown:
    """An event of a kind an output has no writer for, as the unknown entry that output shows instead: named
    by its class, with its fields as the raw value (never dropped, never a failed build)."""
    raw = {item.name: getattr(event, item.name) for item in fields(event)}  # type: ignore[arg-type]
    return Unknown(event.anchor, str(getattr(event, "timestamp", "")), f"event:{type(event).__name__}", raw,
                   hidden=bool(getattr(event, "hidden", False)))
