"""The typed model that every stage after `read` works on.

Everything here is frozen: once `interpret` has built a session, nothing changes it. Mappings taken from
the transcript (tool inputs, structured tool results) are kept as read-only views of the parsed JSON.
Session summaries travel between processes, so their mappings are plain dicts, never changed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any, Callable, Iterator, Mapping, Union

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


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """Something wrong with the input, pinned to where it was found."""

    file: str
    """Path of the input file, as given or discovered."""
    line: int
    """1-based line number in that file (0 when the problem is the whole file)."""
    message: str
    """One sentence for a person."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One JSONL line that parsed as a JSON object."""

    file: str
    """Path of the file it came from."""
    line: int
    """1-based line number."""
    data: Mapping[str, Any]
    """The parsed object, as written by Claude Code."""


WholeLine = Callable[[], Iterator[str]]
"""A line's text, a piece at a time: for a line too long to hold in memory at once."""


@dataclass(frozen=True, slots=True)
class BrokenLine:
    """A line that could not be read as an entry. Kept so that nothing is silently dropped."""

    file: str
    """Path of the file it came from."""
    line: int
    """1-based line number."""
    text: str
    """The line as far as it could be decoded."""
    reason: str
    """Why it could not be read."""
    whole: WholeLine | None = None
    """For a line too long to be read whole: all of it, read again, of which `text` is the start."""


# ---------------------------------------------------------------------------------------------------------
# Events: what a session is made of after interpretation.


@dataclass(frozen=True, slots=True)
class Media:
    """An image or a document (PDF) pasted into a prompt or returned by a tool."""

    media_type: str
    """MIME type as declared, e.g. image/png or application/pdf."""
    data: bytes
    """Decoded bytes; empty when the file was only referred to by path or URL (never read or fetched)."""
    source: str = ""
    """The path or URL it was referred to by, or why its bytes are missing."""


@dataclass(frozen=True, slots=True)
class Prompt:
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


@dataclass(frozen=True, slots=True)
class AssistantText:
    """Prose written by the model."""

    anchor: str
    """Stable id for links."""
    timestamp: str
    """ISO 8601 time."""
    text: str
    """Markdown source (untrusted)."""
    model: str = ""
    """Model name that wrote it."""


@dataclass(frozen=True, slots=True)
class Thinking:
    """Extended thinking."""

    anchor: str
    """Stable id for links."""
    timestamp: str
    """ISO 8601 time."""
    text: str
    """Markdown source (untrusted)."""


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


@dataclass(frozen=True, slots=True)
class TaskItem:
    """One line of a task list (TaskCreate/TaskUpdate) or todo list (TodoWrite)."""

    id: str
    """Task id assigned by Claude Code (TaskCreate's result), or the position in a todo list."""
    subject: str
    """What the task is."""
    status: str
    """pending, in_progress or completed."""


@dataclass(frozen=True, slots=True)
class ToolCall:
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


@dataclass(frozen=True, slots=True)
class Plan:
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


@dataclass(frozen=True, slots=True)
class SlashCommand:
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


@dataclass(frozen=True, slots=True)
class BashMode:
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


@dataclass(frozen=True, slots=True)
class Notice:
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
    """Named facts a system message carried (a background task's status, its output file), untrusted."""
    related: str = ""
    """Anchor of the event this notice is about (the call that started a background task), if known."""
    mode: PermissionMode | str = ""
    """For a permission-mode notice: the mode the session changed to."""


@dataclass(frozen=True, slots=True)
class Unknown:
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


@dataclass(frozen=True, slots=True)
class Unreadable:
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


@dataclass(frozen=True, slots=True)
class OutlineItem:
    """A prompt in a session's outline."""

    anchor: str
    """Where the prompt is."""
    text: str
    """Its first words."""
    timestamp: str
    """When it was typed."""
    page: int
    """The page of the session it is on (1-based)."""


@dataclass(frozen=True, slots=True)
class SubagentCall:
    """A Task/Agent call, as `link` needs it to find the transcript of the run it started."""

    anchor: str
    """The call's anchor."""
    page: int
    """The page of the session it is on."""
    agent_id: str
    """The agent id its result names, if any."""
    prompt_digest: str
    """Digest of the prompt it gave (1.x inline runs are matched by their first prompt)."""
    description: str
    """The caller's short description of the run."""
    name: str = ""
    """The name the call gave the agent (agent teams), by which messages are sent to it."""


@dataclass(frozen=True, slots=True)
class FileTouch:
    """A file that a session's Edit, MultiEdit, Write or NotebookEdit calls changed."""

    path: str
    """The path as the tool call gave it (untrusted)."""
    changes: int
    """How many calls changed it (failed calls are not counted)."""
    places: tuple[tuple[str, int], ...]
    """The first few of those calls: (anchor, page of the session it is on)."""


@dataclass(frozen=True, slots=True)
class Commit:
    """A commit a session made: a `git commit` Bash call whose output printed `[branch sha] subject`."""

    sha: str
    """The abbreviated hash, as git printed it (lower-case hex)."""
    branch: str
    """The branch it was made on, as printed (`detached HEAD` when there was none); "" when a quiet commit
    printed none and the command did not name it."""
    subject: str
    """The first line of its message, as printed (untrusted)."""
    anchor: str
    """The anchor of the Bash call that made it."""
    page: int
    """The page of the session that call is on."""
    timestamp: str
    """When the call's result came back (the call's own time when the result has none)."""
    files_changed: int = -1
    """Files changed, from git's stat line; -1 when git printed none."""
    insertions: int = 0
    """Lines added, from the stat line."""
    deletions: int = 0
    """Lines removed, from the stat line."""
    root: bool = False
    """The first commit of its repository (`(root-commit)`)."""
    amend: bool = False
    """Made with `--amend`: it replaced the commit before it."""
    forge: str = ""
    """The repository's web address (`https://github.com/owner/repo`), when the session's own `git push`
    output names the remote it went to; `--repo-url` overrides it."""


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts, each API message counted once."""

    input_tokens: int = 0
    """Fresh input tokens."""
    output_tokens: int = 0
    """Output tokens as reported (Claude Code under-reports these for streamed replies)."""
    cache_read_tokens: int = 0
    """Input tokens served from the prompt cache."""
    cache_creation_tokens: int = 0
    """Input tokens written to the prompt cache."""
    cache_creation_1h_tokens: int = 0
    """Of those, the ones written to the one-hour cache (they cost more than the five-minute cache's);
    0 when the log does not split them."""


@dataclass(frozen=True, slots=True)
class Session:
    """One transcript: a main session or a subagent's run."""

    key: str
    """Unique key in this build: the session id, or `<session id>/agent-<agent id>` for a subagent."""
    session_id: str
    """The `sessionId` Claude Code wrote (for a subagent, its parent's)."""
    source: str
    """Path of the JSONL file."""
    project_dir: str
    """Name of the project folder it was found in."""
    cwd: str
    """Working directory the session ran in."""
    title: str
    """Best title: custom title, then summary, then the first real prompt."""
    slug: str = ""
    """Claude Code's slug; shared by sessions of one plan chain."""
    git_branch: str = ""
    """Git branch at the start."""
    models: tuple[str, ...] = ()
    """Models that replied, in order of first use."""
    versions: tuple[str, ...] = ()
    """Claude Code versions seen, in order of first use."""
    started: str = ""
    """Timestamp of the first entry."""
    ended: str = ""
    """Timestamp of the last entry."""
    events: tuple[Event, ...] = ()
    """Everything that happened, in file order. Empty in phase 1's archive, which holds summaries only:
    phase 2 streams the events again from the file."""
    prompt_count: int = 0
    """Number of real (visible) prompts."""
    first_prompt: str = ""
    """Text of the first real prompt."""
    first_action: str = ""
    """For a session with no prompt: the first thing that happened in it (a slash or shell command, a
    system message, a reply), to name it by."""
    usage: Usage = field(default_factory=Usage)
    """Token usage, each API message counted once."""
    usage_by_model: Mapping[str, Usage] = field(default_factory=dict)
    """The same, split by the model that replied."""
    reported_cost_by_model: Mapping[str, float] = field(default_factory=dict)
    """Dollars by model as Claude Code itself reported them (`cost-state`), when the log has them."""
    active_ms: int = 0
    """Time Claude spent working, summed from `turn_duration` entries (0 when the version wrote none)."""
    agent_id: str = ""
    """For a subagent transcript, its agent id."""
    parent_key: str = ""
    """For a subagent transcript, the key of the session that started it."""
    uuid_digests: bytes = b""
    """Every entry uuid in the file (8-byte digests, in file order), for linking summaries and
    continuations."""
    replay_digests: bytes = b""
    """The same entries' uuids with their times (8-byte digests, `tracking.replay_digest`): what a session
    that continues this one replays, told apart from another entry that has the same uuid."""
    leaf_summaries: Mapping[str, str] = field(default_factory=dict)
    """`summary` entries found in this file: leafUuid -> summary text (they may describe other files)."""
    custom_title: str = ""
    """Title set with /title or /rename, if any."""
    from_progress: bool = False
    """A subagent transcript rebuilt from the parent's agent_progress entries (its own file was missing)."""
    event_counts: Mapping[str, int] = field(default_factory=dict)
    """Events by kind, for the build report."""
    outline: tuple[OutlineItem, ...] = ()
    """The visible prompts, for the page's outline."""
    tool_call_count: int = 0
    """Tool calls made."""
    first_plan_status: str = ""
    """Status of the first plan in the session, if any (after `link`: accepted in a later session)."""
    first_plan_how: str = ""
    """How that plan was decided."""
    started_plan_digest: str = ""
    """For a session started from an accepted plan (`planContent`): digest of the plan's text."""
    started_plan_text: str = ""
    """The start of that plan's text (its first line titles the session)."""
    pending_plans: tuple[tuple[str, str], ...] = ()
    """Plans with no answer in this file: (anchor, digest of the text)."""
    role_hint: str = ""
    """implementation, planning or further work, by what the session holds; `link` sets `role` in a chain."""
    plan_source_id: str = ""
    """The planning session's file stem, named in the first message of an implementation session."""
    subagent_calls: tuple[SubagentCall, ...] = ()
    """Task/Agent calls."""
    skipped_entries: int = 0
    """Entries left out because the session this one continues holds them."""
    tokens_by_day: Mapping[str, int] = field(default_factory=dict)
    """All tokens (read, written and output) by the UTC day (YYYY-MM-DD) of the message that used them."""
    tool_counts: Mapping[str, int] = field(default_factory=dict)
    """Tool calls by tool name (past a few hundred names, the rest count under `OTHER_TOOLS`)."""
    tool_errors: Mapping[str, int] = field(default_factory=dict)
    """Tool calls whose result was an error, by tool name."""
    api_errors: int = 0
    """API errors Claude Code recorded (overloaded, rate limited, …)."""
    files_touched: tuple[FileTouch, ...] = ()
    """Files changed by the session's tool calls, in the order first changed (capped; see `files_left_out`)."""
    files_left_out: int = 0
    """Changes to further files, past the cap of `files_touched` (counted, not named: the cap is there
    to keep a summary small)."""
    commits: tuple[Commit, ...] = ()
    """Commits the session's `git commit` calls made, in the order they were made (capped, as files are)."""

    chain_key: str = ""
    """Set by `link`: the chain (sessions of one project sharing a slug) this session belongs to, if any."""
    role: str = ""
    """Set by `link`: planning, implementation, or further work, within its chain."""
    plan_source_key: str = ""
    """Set by `link`: for a session started from an accepted plan, the session that made the plan."""
    continues_key: str = ""
    """Set by `link`: the session this one resumes or continues (it replays that one's entries)."""
    replayed: int = 0
    """Set by `link`: events left out here because the continued session shows them."""
    parent_anchor: str = ""
    """Set by `link`: for a subagent transcript, the anchor of the call that started it."""
    parent_anchor_page: int = 1
    """Set by `link`: the page of the parent session that call is on."""
    call_subagents: Mapping[str, str] = field(default_factory=dict)
    """Set by `link`: subagent transcript key by the anchor of the Task/Agent call that started it, and by
    `to:` and the agent's name or id, for the messages sent to it (`link.RECIPIENT`)."""
    accepted_plan_anchor: str = ""
    """Set by `link`: a pending plan that a later session carried out (it shows as approved)."""
    page_starts: tuple[int, ...] = (0,)
    """Index of the first event of each HTML page; long sessions are split between turns."""
    previous_key: str = ""
    """Set by `link`: the session before this one in its chain (same slug), if any."""
    next_key: str = ""
    """Set by `link`: the session after this one in its chain, if any."""
    subagent_keys: tuple[str, ...] = ()
    """Set by `link`: subagent transcripts started from this session."""

    @property
    def is_subagent(self) -> bool:
        return bool(self.agent_id)

    @property
    def is_listed(self) -> bool:
        """Counted and listed as a session of its project: every session but the subagent runs reached from
        the session that started them (a subagent log whose parent is not in the archive is listed)."""
        return not (self.is_subagent and self.parent_key)


@dataclass(frozen=True, slots=True)
class Project:
    """Sessions that ran in one working directory (one folder under ~/.claude/projects)."""

    dir_name: str
    """The encoded folder name, e.g. -home-ada-src-app."""
    path: str
    """The real path, taken from the sessions' cwd (the folder name is lossy)."""
    session_keys: tuple[str, ...]
    """Main sessions, newest first."""
    last_activity: str
    """Timestamp of the latest entry in any of its sessions."""


@dataclass(frozen=True, slots=True)
class Chain:
    """One piece of work split over several sessions: planning, then implementation, then more."""

    key: str
    """`<project>/<slug>`."""
    slug: str
    """The slug its sessions share."""
    session_keys: tuple[str, ...]
    """Its sessions, oldest first."""


@dataclass(frozen=True, slots=True)
class Archive:
    """Everything phase 1 produced: the linked picture that phase 2 writes out."""

    projects: tuple[Project, ...]
    """Projects, most recently active first."""
    sessions: Mapping[str, Session]
    """Every session and subagent transcript by key."""
    chains: Mapping[str, Chain] = field(default_factory=dict)
    """Chains of two or more sessions, by key."""
    kept: Mapping[str, str] = field(default_factory=dict)
    """Sessions whose log is gone and was read from the vault, by key: the day the vault last saw it."""


@dataclass(frozen=True, slots=True)
class Interpreted:
    """What interpreting one file produced (`stages.interpret`): kept in the manifest between builds."""

    session: Session
    """The session, or a subagent transcript."""
    diagnostics: tuple[Diagnostic, ...]
    """Problems found while reading and interpreting it."""
    unknown: Counter[str]
    """Names that fell through to the generic fallback, counted."""
    has_conversation: bool
    """False for metadata-only files (only summaries or snapshots), which get no page."""
    sidechains: tuple[Session, ...] = ()
    """Subagent runs found in the main file (1.x inline `isSidechain` entries, 2.x agent_progress)."""
