"""Stage 3, interpret: raw entries -> a frozen Session of typed events.

Claude Code writes one JSONL line per content block of a streamed reply, puts tool results in `user`
entries, and mixes bookkeeping (snapshots, hook progress, queue operations) in with the conversation.
This stage sorts all of that into events, pairs each tool call with its result, and counts what it does
not know so that the build report can say so. Anything unknown becomes an `Unknown` event: shown, never
dropped. Each entry type, message part and system subtype has a handler of its own in the tables below
(`handles`); what is remembered across entries lives in the collaborators of `tracking`.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections import Counter
from collections import deque
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from types import MappingProxyType
from typing import Any, Callable, Collection, Iterable, Mapping

from ..core.model import (
    AssistantText,
    Plan,
    BashMode,
    BrokenLine,
    Diagnostic,
    Entry,
    Interpreted,
    Event,
    Media,
    Notice,
    NoticeKind,
    PermissionMode,
    PlanDecision,
    PlanStatus,
    PromptLabel,
    notice_kind,
    Prompt,
    Session,
    SlashCommand,
    Thinking,
    ToolCall,
    ToolResult,
    Unknown,
    Unreadable,
)
from ..core.text import strip_ansi
from .discover import SessionFile
from .read import ReadResult
from .redact import identifier
from .summarize import UNKNOWN_TOOL, Summary
from .tracking import (PLAN_TOOLS, TASK_TOOLS, BackgroundTasks, CallPairing, DuplicateEntries, PlanApproval, Seen,
                       SessionMetadata, TaskTracker, UsageCounter, plan_of)

# Top-level fields Claude Code is known to write; anything else is counted as unknown in the report.
KNOWN_FIELDS = frozenset(
    {"type", "sessionId", "timestamp", "parentUuid", "isSidechain", "uuid", "userType", "cwd", "version",
     "gitBranch", "slug", "message", "requestId", "entrypoint", "toolUseID", "data", "parentToolUseID",
     "toolUseResult", "sourceToolAssistantUUID", "promptId", "agentId", "messageId", "snapshot",
     "isSnapshotUpdate", "permissionMode", "isMeta", "subtype", "attachment", "durationMs", "messageCount",
     "lastPrompt", "level", "leafUuid", "aiTitle", "thinkingMetadata", "hookCount", "hookInfos", "hookErrors",
     "preventedContinuation", "stopReason", "hasOutput", "content", "todos", "operation", "imagePasteIds",
     "error", "isApiErrorMessage", "apiErrorStatus", "sourceToolUseID", "logicalParentUuid",
     "compactMetadata", "isVisibleInTranscriptOnly", "isCompactSummary", "summary", "customTitle",
     "agentName", "planContent", "origin", "prNumber", "prUrl", "prRepository", "toolUseId", "mode",
     "isApiError", "retryInMs", "retryAttempt", "maxRetries", "cause", "fileHistorySnapshot",
     "files", "requestIds", "model", "costUSD", "durationApiMs", "isCompactBoundary", "uuidHistory",
     # Claude Code 2.1.1xx-2.1.3xx: who and what made a turn, how it was requested and answered, the text
     # an attachment gave the model. Known and harmless: none of them changes what a page shows.
     "promptSource", "turnOrigin", "turnPosition", "requestRef", "apiBlockIndex", "requestedModel", "effort",
     "perTurnEffort", "madeBy", "permissionDecision", "sandboxed", "attributionAgent", "attributionSkill",
     "errorDetails", "apiErrorType", "failedResponseHadNoToolCall", "promptCacheRequested", "thinkingDisplay",
     "thinkingDurationMs", "toolInputStreamMs", "sentAtMs", "rowSource", "rendered", "renderedRole",
     "renderedBesideToolResult", "microcompactMetadata", "turnCompanion",
     "queueSkipAttachments", "renderedInHumanTurn", "commandRun", "session_id", "serverClassifierRequest",
     "toolDenialKind", "toolDenialBeforeRun"}
)
# The entry types whose fields are checked against KNOWN_FIELDS, with every type that has no handler; the
# fields of a known bookkeeping entry are its own business.
CONVERSATION_TYPES = frozenset({"user", "assistant", "system", "attachment", "progress"})
# What Claude Code sent the model (the whole system prompt, every tool's schema, memory files such as
# CLAUDE.md, the environment, git status) is never published, not even with --show-hidden: today's records
# are types starting `api-request`, and an entry of a new type is held back too when its fields look like
# a request (`holds_model_request`).
REQUEST_RECORD_PREFIX = "api-request"
MODEL_REQUEST_FIELDS = frozenset({"system", "systemPrompt", "system_prompt", "systemPromptBlocks", "memoryFiles",
                                  "claudeMd", "userContext", "systemContext"})
REQUEST_SCAN_DEPTH = 8
REQUEST_SCAN_ITEMS = 200
# The model name of the messages Claude Code writes itself ("No response requested.", an API error): no
# model answered them, so they are in no list of models and no figures.
SYNTHETIC_MODEL = "<synthetic>"
# Results in an assistant message: of tools the API runs itself (its `server_tool_use` calls), and of any
# call, as other backends write them.
SERVER_TOOL_RESULTS = ("tool_result", "mcp_tool_result", "web_search_tool_result", "web_fetch_tool_result",
                       "code_execution_tool_result", "bash_code_execution_tool_result",
                       "text_editor_code_execution_tool_result", "tool_search_tool_result")
# Written into the site as files; anything else (SVG can carry script) is shown as a reference only.
SAFE_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"})

# Claude Code injects reminders as blocks of their own; a tag inside a line is the content's own text
# (a file that writes the tag, a log that quotes it) and is kept.
SYSTEM_REMINDER = re.compile(r"(?:^|(?<=\n))[ \t]*<system-reminder>.*?</system-reminder>[ \t]*(?:\n|$)", re.S)
COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.S)
COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
COMMAND_STDOUT = re.compile(r"<local-command-(?:stdout|stderr)>(.*?)</local-command-(?:stdout|stderr)>", re.S)
BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)
BASH_STDOUT = re.compile(r"<bash-stdout>(.*?)</bash-stdout>", re.S)
BASH_STDERR = re.compile(r"<bash-stderr>(.*?)</bash-stderr>", re.S)
HOOK_LINE = re.compile(r"\b(?:Pre|Post)ToolUse\b|\b(?:Stop|SubagentStop|UserPromptSubmit|SessionStart|SessionEnd|"
                       r"Notification|PreCompact)\b.*(?:hook|\[)|^Running\b.*\.\.\.$")
TOOL_USE_ERROR = re.compile(r"<tool_use_error>(.*?)</tool_use_error>", re.S)
# A message Claude Code writes into the conversation as a user entry, wrapped whole in a tag of its own
# (`<task-notification>`: a background task ended). Claude Code's tags are hyphenated words; the slash
# command and bash-mode tags are matched before this.
SYSTEM_MESSAGE = re.compile(r"\A<([a-z][a-z0-9]*(?:-[a-z0-9]+)+)>(.*)</\1>(.*)\Z", re.S)
SYSTEM_MESSAGE_FIELD = re.compile(r"<([a-z][a-z0-9]*(?:[-_][a-z0-9]+)*)>(.*?)</\1>", re.S)
# The system messages this stage knows, and what a reader is told each one is.
SYSTEM_MESSAGE_KINDS: dict[str, str] = {NoticeKind.TASK_NOTIFICATION: "Background task", NoticeKind.BASH_NOTIFICATION: "Background command"}
PERMISSION_MODES: dict[str, str] = {
    PermissionMode.PLAN: "Plan mode: Claude researches and proposes, and changes nothing",
    PermissionMode.DEFAULT: "Default mode: Claude asks before acting",
    PermissionMode.ACCEPT_EDITS: "Accept-edits mode: file edits are approved automatically",
    PermissionMode.BYPASS_PERMISSIONS: "Bypass mode: every action is approved automatically",
    PermissionMode.AUTO: "Auto mode",
}
PLAN_STARTED_SESSION = "accepted with a fresh context: this session carries it out"
INTERRUPT_FOR_TOOL = "[Request interrupted by user for tool use]"
INTERRUPT = "[Request interrupted by user"
# Times outside this window are a wrong clock or a broken log, not when a session ran (Claude Code came out
# in 2025): they are reported and left out, so that they stretch no chart or duration. A fixed window,
# never the build's own clock, so that two builds of the same input stay byte-identical.
PLAUSIBLE_TIMES = (date(2023, 1, 1), date(2100, 1, 1))

# Interpretation is tables of small handlers, as markdown-it-py's rules are: one handler per top-level
# entry type, per content part type and per system subtype, registered with `handles` and looked up by
# name. A name with no handler is counted as unknown (the build report says so) and shown as an `Unknown`
# event, never dropped. To support a new entry type, add one method to `_SessionBuilder` under
# `@handles(ENTRY_HANDLERS, "<type>")`.
EntryHandler = Callable[["_SessionBuilder", Entry], None]
SystemHandler = Callable[["_SessionBuilder", Entry, str, str, str], None]
AssistantPartHandler = Callable[["_SessionBuilder", Mapping[str, Any], str, str, str], None]
UserPartHandler = Callable[["_SessionBuilder", Mapping[str, Any], Mapping[str, Any], str, "_UserParts"], None]
ENTRY_HANDLERS: dict[str, EntryHandler] = {}
"""By entry `type`: handler(builder, entry)."""
SYSTEM_HANDLERS: dict[str, SystemHandler] = {}
"""By system `subtype` ("" for none): handler(builder, entry, anchor, timestamp, text). A subtype with none
is counted as unknown and shown as a notice of its own name (`_SessionBuilder._system_notice`)."""
ASSISTANT_PART_HANDLERS: dict[str, AssistantPartHandler] = {}
"""By the `type` of a part of an assistant message: handler(builder, part, part_id, timestamp, model)."""
USER_PART_HANDLERS: dict[str, UserPartHandler] = {}
"""By the `type` of a part of a user message: handler(builder, entry data, part, timestamp, gathered)."""


def handles(table: dict[str, Any], *names: str) -> Callable[[Any], Any]:
    """Register the decorated handler in `table` under each of `names`."""
    def register(handler: Any) -> Any:
        for name in names:
            assert name not in table, f"two handlers for {name!r}"
            table[name] = handler
        return handler
    return register


EventSink = Callable[[Event], None]


def interpret(source: SessionFile, read: ReadResult) -> Interpreted:
    """A whole file at once, events included: for tests and small uses. The build streams instead
    (`interpret_stream`), so that no session is ever held whole."""
    collected: dict[str, list[Event]] = {}
    result = interpret_stream(source, read.items, sink_for=lambda key: collected.setdefault(key, []).append)
    return replace(
        result,
        diagnostics=(*read.diagnostics, *result.diagnostics),
        session=replace(result.session, events=tuple(collected.get(result.session.key, ()))),
        sidechains=tuple(replace(side, events=tuple(collected.get(side.key, ()))) for side in result.sidechains),
    )


def interpret_stream(source: SessionFile, items: Iterable[Entry | BrokenLine], *,
                     skip: Collection[bytes] = frozenset(),
                     sink_for: Callable[[str], EventSink | None] | None = None,
                     anchors_for: Callable[[str], Callable[[str, int], None] | None] | None = None,
                     summarise: bool = True) -> Interpreted:
    """Interpret entries as they stream from the reader. Each session the file holds (the main one, and
    subagent runs written inline) passes its events, in order, to `sink_for(key)` when that returns a
    sink, and is summarised on the way (`summarize.Summary`). Only a handful of events are held at a time:
    a tool call until its result comes, a plan until it is known whether it was carried out.

    `skip` holds digests of entry uuids that belong to the session this one continues: those entries are
    shown there, and left out here. `anchors_for(key)` may return a function to be told the page of each
    anchor past a session's first page. Without `summarise`, the sessions are not summarised (phase 2, which
    has their summaries: rebuilt, a long session's outline was held twice); what is returned then says
    nothing of their events."""
    dispatcher = _Dispatcher(source, skip, sink_for or (lambda key: None), anchors_for or (lambda key: None),
                             summarise)
    for item in items:
        dispatcher.feed(item)
    return dispatcher.finish()


class _Dispatcher:
    """Routes each entry to the session it belongs to. In 1.x main files, subagent messages sit inline
    with `isSidechain: true`, each run starting with a sidechain entry whose parentUuid is null; parallel
    Task runs interleave, so parentUuid is followed to keep each run whole. 2.x streams a subagent's
    messages into the parent as agent_progress entries, rebuilt as a run of their own."""

    def __init__(self, source: SessionFile, skip: Collection[bytes], sink_for: Callable[[str], EventSink | None],
                 anchors_for: Callable[[str], Callable[[str, int], None] | None], summarise: bool = True):
        self.source = source
        self.summarise = summarise
        self.skip = skip
        self.sink_for = sink_for
        self.anchors_for = anchors_for
        self.problems: list[Diagnostic] = []
        self.main = self._builder()
        self.main.progress_sink = self._progress
        self.runs: list[_SessionBuilder] = []
        self.run_of_uuid: dict[str, int] = {}
        self.progress_runs: dict[str, _SessionBuilder] = {}

    def _builder(self, agent_id: str = "", run_name: str = "") -> _SessionBuilder:
        builder = _SessionBuilder(self.source, agent_id=agent_id, run_name=run_name,
                                  duplicates=DuplicateEntries(continued=self.skip), problems=self.problems)
        builder.start(self.sink_for(builder.key))
        builder.summarising = self.summarise
        builder.summary.on_later_page = self.anchors_for(builder.key)
        return builder

    def feed(self, item: Entry | BrokenLine) -> None:
        if self.source.is_subagent or not (isinstance(item, Entry) and item.data.get("isSidechain") is True):
            self.main.feed(item)
            return
        parent = item.data.get("parentUuid")
        run = self.run_of_uuid.get(parent) if isinstance(parent, str) else None
        if run is None:
            if parent is None or not self.runs:
                number = len(self.runs) + 1
                self.runs.append(self._builder(f"sidechain-{number}", f"sidechain-{number}"))
            run = len(self.runs) - 1
        self.runs[run].feed(item)
        if isinstance(item.data.get("uuid"), str):
            self.run_of_uuid[item.data["uuid"]] = run

    def _progress(self, agent_id: str, entry: Entry) -> None:
        if agent_id not in self.progress_runs:
            self.progress_runs[agent_id] = self._builder(agent_id, f"agent-{agent_id}")
        self.progress_runs[agent_id].feed(entry)

    def finish(self) -> Interpreted:
        main = self.main.build()
        sidechains = [run.build(parent_key=main.key) for run in self.runs]
        # Rebuilt from agent_progress; `link` prefers the agent's own file when there is one.
        sidechains.extend(replace(run.build(parent_key=main.key), from_progress=True)
                          for _, run in sorted(self.progress_runs.items()))
        unknown = Counter(self.main.unknown)
        builders = (self.main, *self.runs, *(run for _, run in sorted(self.progress_runs.items())))
        for run in builders[1:]:
            unknown.update(run.unknown)
        return Interpreted(
            session=main,
            diagnostics=tuple(self.problems),
            unknown=unknown,
            has_conversation=self.main.has_conversation or bool(sidechains),
            sidechains=tuple(sidechains),
        )


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


def _anchor(raw_id: Any, fallback: str) -> str:
    text = identifier(str(raw_id)) if raw_id else fallback  # an id holding a key does not carry it into links
    return "e-" + re.sub(r"[^A-Za-z0-9_-]", "", text)[:40]


def _text_of(content: Any) -> str:
    """Plain text of a message or tool-result content: a string or a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                pieces.append(part["text"])
            elif isinstance(part, str):
                pieces.append(part)
        return "\n".join(pieces)
    if content is None:
        return ""
    return str(content)


# The keys of a tool's structured result (`toolUseResult`) that anything here reads. The rest repeats the
# result's own text (stdout, the content of a file read, the whole file before an edit) and is dropped
# as the entry is read: redacting it was a tenth of a build, for text no page shows.
STRUCTURED_RESULT_KEYS = frozenset(
    {"interrupted", "structuredPatch", "command", "status", "answers", "task", "taskId", "agentId",
     "backgroundTaskId", "planWasEdited", "plan"}
)


def without_repeated_result(item: Entry | BrokenLine) -> Entry | BrokenLine:
    """The entry without the parts of its structured tool result that only repeat the result."""
    if not isinstance(item, Entry):
        return item
    structured = item.data.get("toolUseResult")
    if not isinstance(structured, dict) or structured.keys() <= STRUCTURED_RESULT_KEYS:
        return item
    data = dict(item.data)
    data["toolUseResult"] = {key: value for key, value in structured.items() if key in STRUCTURED_RESULT_KEYS}
    return Entry(item.file, item.line, data)


def strip_system_reminders(text: str) -> str:
    # The pattern can start anywhere; looking for its tag first saves trying it at every position.
    return SYSTEM_REMINDER.sub("", text) if "<system-reminder>" in text else text


def _media(part: Mapping[str, Any]) -> Media | None:
    source = part.get("source")
    if isinstance(source, dict) and source.get("type") == "base64":
        media_type = str(source.get("media_type", ""))
        try:
            data = base64.b64decode(str(source.get("data", "")), validate=False)
        except (binascii.Error, ValueError):
            return Media(media_type=media_type, data=b"", source="(embedded file that could not be decoded)")
        if media_type not in SAFE_MEDIA_TYPES:
            return Media(media_type=media_type, data=b"", source=f"(embedded {media_type or 'file'}, not a type that is shown)")
        return Media(media_type=media_type, data=data)
    location = part.get("path") or part.get("url") or (source.get("url") if isinstance(source, dict) else "")
    if location:
        return Media(media_type="", data=b"", source=str(location))
    return None


def _document_text(part: Mapping[str, Any]) -> Media | None:
    """A text file attached to a prompt (2.1.97): its text as a `Media` of type `text/plain`, named by its
    title; None for a document that is not text (a PDF), which `_media` takes."""
    source = part.get("source")
    if not isinstance(source, dict):
        return None
    kind, media_type = source.get("type"), str(source.get("media_type") or "text/plain")
    found: str | None = None
    if kind == "text" and isinstance(source.get("data"), str):
        found = source["data"]
    elif kind == "content" and isinstance(source.get("content"), (str, list)):
        found = _text_of(source["content"])
    elif kind == "base64" and media_type.startswith("text/") and isinstance(source.get("data"), str):
        try:
            found = base64.b64decode(source["data"], validate=False).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            return None
    if found is None:
        return None
    title = part.get("title")
    return Media(media_type="text/plain", data=found.encode("utf-8", "replace"),
                 source=title.strip() if isinstance(title, str) else "")


# Whose uuid an entry shares, as its diagnostic says.
_SHARED_UUID = {Seen.UUID_IN_THIS_FILE: "an earlier entry of this file",
                Seen.UUID_IN_CONTINUED_SESSION: "an entry of the session this one continues"}


@dataclass
class _UserParts:
    """What the parts of one user message add up to: its text and its images make one prompt."""

    texts: list[str] = field(default_factory=list)
    images: list[Media] = field(default_factory=list)


@dataclass
class _SessionBuilder:
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
    progress_sink: Callable[[str, Entry], None] | None = None
    sink: EventSink | None = None
    summary: Summary = field(default_factory=Summary)
    summarising: bool = True
    plans: PlanApproval = field(default_factory=PlanApproval)
    background: BackgroundTasks = field(default_factory=BackgroundTasks)

    def __post_init__(self) -> None:
        self.agent_id = self.agent_id or self.source.agent_id
        self.events = _EventQueue(self)

    def start(self, sink: EventSink | None) -> None:
        self.sink = sink

    def deliver(self, event: Event) -> None:
        if not self.has_conversation and _is_content(event):
            self.has_conversation = True
        if self.summarising:
            self.summary(event)
        if self.sink is not None:
            self.sink(event)

    def is_held(self, index: int, event: Event) -> bool:
        """An event waits while something later may still change it."""
        if self.plans.holds(index):
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

    # -- feeding ---------------------------------------------------------------------------------------

    def feed(self, item: Entry | BrokenLine) -> None:
        if isinstance(item, BrokenLine):
            self.events.append(Unreadable(anchor=f"line-{item.line}", line=item.line, text=item.text, reason=item.reason,
                                          whole=item.whole))
        else:
            self._entry(item)

    def _entry(self, entry: Entry) -> None:
        data = entry.data
        uuid = data.get("uuid")
        if isinstance(uuid, str):
            seen = self.duplicates.see(uuid, data.get("timestamp"))
            if seen is Seen.IN_CONTINUED_SESSION:
                self._remember_replayed_calls(data)
                return
            if seen is Seen.IN_THIS_FILE:
                return
            if seen in _SHARED_UUID:
                # Another entry has its uuid: both are kept, and each has an anchor of its own.
                self.problems.append(Diagnostic(entry.file, entry.line, f"uuid {uuid[:40]!r} is also the uuid of "
                                                f"{_SHARED_UUID[seen]}: both are shown"))
                data = {**data, "uuid": f"{re.sub(r'[^A-Za-z0-9_-]', '', uuid)[:24]}-line{entry.line}"}
                entry = Entry(entry.file, entry.line, data)
        if "timestamp" in data and not _plausible_time(data["timestamp"]):
            self.problems.append(Diagnostic(entry.file, entry.line, f"timestamp {str(data['timestamp'])[:40]!r} is not a time"
                                            " in 2023-2099: shown without it, left out of charts and durations"))
            data = {name: value for name, value in data.items() if name != "timestamp"}
            entry = Entry(entry.file, entry.line, data)
        kind = data.get("type")
        known_type = isinstance(kind, str) and kind in ENTRY_HANDLERS
        if (isinstance(kind, str) and kind in CONVERSATION_TYPES) or not (known_type or _is_request_record(kind)):
            for name in data:
                if name not in KNOWN_FIELDS:
                    self.unknown[f"field:{name}"] += 1
        self._metadata(data)
        handler = ENTRY_HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(self, entry)
            return
        name = f"type:{kind}" if isinstance(kind, str) else "type:(missing)"
        self.unknown[name] += 1
        if _is_request_record(kind) or holds_model_request(data):
            return
        # A new type with no message is bookkeeping (counted above, shown only with --show-hidden); one
        # with a message may be conversation, and is shown.
        self.events.append(Unknown(self._next_anchor(uuid), self._time(data), name, dict(data),
                                   hidden="message" not in data))

    def _metadata(self, data: Mapping[str, Any]) -> None:
        self.metadata.note(data)
        if not self.agent_id and isinstance(data.get("agentId"), str) and data.get("isSidechain") is True:
            self.agent_id = data["agentId"]

    def _time(self, data: Mapping[str, Any]) -> str:
        timestamp = data.get("timestamp")
        return timestamp if isinstance(timestamp, str) else ""

    def _next_anchor(self, raw_id: Any) -> str:
        self.counter += 1
        return _anchor(raw_id, f"n{self.counter}")

    # -- bookkeeping entries: not conversation; what each is for, and so whether it is shown --------------

    @handles(ENTRY_HANDLERS, "file-history-snapshot", "file-history-delta", "last-prompt", "agent-name", "tools-used", "atis-latch",
             "mode", "relocated", "worktree-state")
    def _claude_code_bookkeeping(self, entry: Entry) -> None:
        """Claude Code's own bookkeeping: not shown."""

    @handles(ENTRY_HANDLERS, "api-request", "api-request-shape", "api-request-blob")
    def _request_record(self, entry: Entry) -> None:
        """What was sent to the model (system prompt, tool schemas, memory files): never published."""

    @handles(ENTRY_HANDLERS, "cost-state")
    def _cost_state(self, entry: Entry) -> None:
        """Claude Code's own running cost of the session, by model: the last one is the total. One that it
        flags as priced at a default, some model being unknown to it, is a guess and not taken."""
        if entry.data.get("hasUnknownModelCost") is True:
            self.metadata.reported_cost_by_model = {}
            return
        self.metadata.note_reported_cost(entry.data.get("modelUsage"), entry.data.get("totalCostUSD"))

    @handles(ENTRY_HANDLERS, "progress")
    def _progress(self, entry: Entry) -> None:
        """Live progress of hooks, bash, MCP and web search is a replay of what the results already hold,
        and is skipped; agent_progress carries a subagent's messages and is collected to rebuild its
        transcript when its own file is missing."""
        progress = entry.data.get("data")
        if isinstance(progress, dict) and progress.get("type") == "agent_progress":
            self._agent_progress(entry.data, progress, entry.line)

    @handles(ENTRY_HANDLERS, "permission-mode")
    def _permission_mode_entry(self, entry: Entry) -> None:
        """Shown when the mode changes (plan mode above all)."""
        if isinstance(entry.data.get("permissionMode"), str):
            self._permission_mode(entry.data, entry.data["permissionMode"])

    @handles(ENTRY_HANDLERS, "queue-operation")
    def _queue_operation(self, entry: Entry) -> None:
        """A message typed while Claude worked. Once dequeued it arrives as a prompt, so only a withdrawn
        ("remove") one is shown, since Claude never saw it."""
        data = entry.data
        if data.get("operation") != "remove" or not isinstance(data.get("content"), str):
            return
        anchor, timestamp = self._next_anchor(data.get("uuid")), self._time(data)
        system_message = SYSTEM_MESSAGE.match(data["content"].strip())
        if system_message is not None:  # Claude Code's own message, dropped from the queue: no one's words
            self.events.append(replace(self._system_message(anchor, timestamp, *system_message.groups()),
                                       hidden=True))
        else:
            self.events.append(Notice(anchor, timestamp, NoticeKind.QUEUE_REMOVED,
                                      f"Withdrawn before Claude read it: {data['content']}"))

    @handles(ENTRY_HANDLERS, "summary")
    def _summary(self, entry: Entry) -> None:
        """A title for a session, which may be another file's (the leaf it names says which)."""
        data = entry.data
        summary = data.get("summary")
        if not isinstance(summary, str) and isinstance(data.get("data"), dict):
            summary = data["data"].get("summary")
        if isinstance(summary, str):
            self.metadata.leaf_summaries[str(data.get("leafUuid", ""))] = summary

    @handles(ENTRY_HANDLERS, "attachment")
    def _attachment(self, entry: Entry) -> None:
        """A file sent with a prompt is shown; other attachments (task reminders, edited files, tool
        lists) are Claude Code's own bookkeeping, skipped."""
        attachment = entry.data.get("attachment")
        if isinstance(attachment, dict) and attachment.get("type") == "file":
            self._attached_file(entry.data, attachment)
        elif isinstance(attachment, dict) and attachment.get("type") == "queued_command":
            self._agent_message(entry.data, attachment)
        elif isinstance(attachment, dict) and str(attachment.get("type", "")).startswith("hook_"):
            self._hook_output(entry.data, attachment)

    def _agent_message(self, data: Mapping[str, Any], attachment: Mapping[str, Any]) -> None:
        """A message another agent sent this one (SendMessage), handed over while it worked: shown on the
        recipient's page as what its caller told it. Other queued commands arrive again as prompts."""
        origin = attachment.get("origin")
        said = attachment.get("prompt")
        if isinstance(origin, dict) and origin.get("kind") == "coordinator" and isinstance(said, str) and said.strip():
            self.events.append(Prompt(self._next_anchor(data.get("uuid")), self._time(data),
                                      strip_system_reminders(said).strip("\n"), by_agent=True))

    def _hook_output(self, data: Mapping[str, Any], attachment: Mapping[str, Any]) -> None:
        """What a hook printed (2.1.2xx onwards). Shown when Claude was given it (the entry's `rendered`
        text: a UserPromptSubmit hook's context, a blocking error); otherwise chatter, kept for
        --show-hidden."""
        said = next((value for name in ("content", "stdout", "stderr", "blockingError", "message", "error")
                     if isinstance(value := attachment.get(name), str) and value.strip()), "")
        if not said:
            return
        hook = attachment.get("hookName") or attachment.get("hookEvent") or "hook"
        details = [("command", attachment["command"])] if isinstance(attachment.get("command"), str) else []
        exit_code = attachment.get("exitCode")
        if isinstance(exit_code, int) and not isinstance(exit_code, bool) and exit_code != 0:
            details.append(("exit-code", str(exit_code)))
        self.events.append(Notice(self._next_anchor(data.get("uuid")), self._time(data), NoticeKind.HOOK,
                                  f"{hook} hook: {strip_ansi(said).strip()}", hidden=not data.get("rendered"),
                                  details=tuple(details)))

    @handles(ENTRY_HANDLERS, "custom-title")
    def _custom_title(self, entry: Entry) -> None:
        if isinstance(entry.data.get("customTitle"), str):
            self.metadata.custom_title = entry.data["customTitle"]

    @handles(ENTRY_HANDLERS, "ai-title")
    def _ai_title(self, entry: Entry) -> None:
        if isinstance(entry.data.get("aiTitle"), str):
            self.metadata.ai_title = entry.data["aiTitle"]

    @handles(ENTRY_HANDLERS, "pr-link")
    def _pr_link(self, entry: Entry) -> None:
        """Shown: a pull request made from the session is part of its story."""
        data = entry.data
        if data.get("prUrl"):
            self.events.append(Notice(self._next_anchor(data.get("uuid")), self._time(data), NoticeKind.PR_LINK,
                                      f"Pull request #{data.get('prNumber', '')}: {data['prUrl']}"))

    # -- conversation entries --------------------------------------------------------------------------

    @handles(ENTRY_HANDLERS, "user")
    def _user(self, entry: Entry) -> None:
        data = entry.data
        message = data.get("message")
        if not isinstance(message, dict):
            self._malformed(entry, "user entry without a message object")
            return
        content = message.get("content")
        uuid = data.get("uuid")
        timestamp = self._time(data)
        if isinstance(data.get("permissionMode"), str):
            self._permission_mode(data, data["permissionMode"])
        if isinstance(data.get("planContent"), str) and data["planContent"].strip():
            # New-format "accept and clear context": this session starts from an approved plan. The
            # "Implement the following plan:" message repeats it, so it is kept only for --show-hidden.
            self.events.append(Plan(self._next_anchor(f"{uuid}-plan"), timestamp, data["planContent"],
                                    PlanStatus.APPROVED, PlanDecision.STARTED_SESSION, how=PLAN_STARTED_SESSION))
            self.events.append(Prompt(self._next_anchor(uuid), timestamp, _text_of(content), (), hidden=True,
                                      label=PromptLabel.PLAN_PREAMBLE))
            return
        if data.get("isCompactSummary") or data.get("isVisibleInTranscriptOnly"):
            self.events.append(Notice(self._next_anchor(uuid), timestamp, NoticeKind.CONTINUATION,
                                      strip_system_reminders(_text_of(content))))
            return
        if isinstance(content, str):
            self._user_text(uuid, timestamp, content, (), meta=bool(data.get("isMeta")))
            return
        if not isinstance(content, list):
            self._malformed(entry, "user message content is neither text nor a list of parts")
            return
        gathered = _UserParts()
        for part in content:
            if not isinstance(part, dict):
                self.unknown["part:(not an object)"] += 1
                self.events.append(Unknown(self._next_anchor(None), timestamp, "part:(not an object)", part))
                continue
            part_type = part.get("type")
            handler = USER_PART_HANDLERS.get(part_type) if isinstance(part_type, str) else None
            if handler is not None:
                handler(self, data, part, timestamp, gathered)
            else:
                name = f"part:{part.get('type')}"
                self.unknown[name] += 1
                if not holds_model_request(part):
                    self.events.append(Unknown(self._next_anchor(None), timestamp, name, part))
        if gathered.texts or gathered.images:
            self._user_text(uuid, timestamp, "\n\n".join(gathered.texts), tuple(gathered.images),
                            meta=bool(data.get("isMeta")))

    @handles(USER_PART_HANDLERS, "text")
    def _user_text_part(self, data: Mapping[str, Any], part: Mapping[str, Any], timestamp: str,
                        gathered: _UserParts) -> None:
        gathered.texts.append(str(part.get("text", "")))

    @handles(USER_PART_HANDLERS, "image", "document")
    def _user_media_part(self, data: Mapping[str, Any], part: Mapping[str, Any], timestamp: str,
                         gathered: _UserParts) -> None:
        media = _document_text(part) if part.get("type") == "document" else None
        media = media or _media(part)
        if media is not None:
            gathered.images.append(media)

    def _user_text(self, uuid: Any, timestamp: str, text: str, images: tuple[Media, ...], meta: bool) -> None:
        anchor = self._next_anchor(uuid)
        stripped = text.strip()
        if stripped.startswith(("<command-name>", "<command-message>")) and "<command-name>" in stripped:
            name = COMMAND_NAME.search(stripped)
            args = COMMAND_ARGS.search(stripped)
            command = (name.group(1).strip() if name else "").strip()
            if command and not command.startswith("/"):
                command = "/" + command
            self.events.append(SlashCommand(anchor, timestamp, command, (args.group(1).strip() if args else "")))
            return
        if stripped.startswith("<local-command-stdout>") or stripped.startswith("<local-command-stderr>"):
            output = "\n".join(m.strip() for m in COMMAND_STDOUT.findall(stripped)).strip()
            if self.events and isinstance(self.events[-1], SlashCommand) and not self.events[-1].output:
                self.events[-1] = replace(self.events[-1], output=output)
            else:
                self.events.append(Notice(anchor, timestamp, NoticeKind.COMMAND_OUTPUT, output, hidden=not output))
            return
        if stripped.startswith("<local-command-caveat>"):
            self.events.append(Notice(anchor, timestamp, NoticeKind.CAVEAT, stripped, hidden=True))
            return
        if stripped.startswith("<bash-input>"):
            command = BASH_INPUT.search(stripped)
            self.events.append(BashMode(anchor, timestamp, (command.group(1) if command else stripped).strip()))
            return
        if stripped.startswith("<bash-stdout>") or stripped.startswith("<bash-stderr>"):
            stdout = BASH_STDOUT.search(stripped)
            stderr = BASH_STDERR.search(stripped)
            out, err = (stdout.group(1) if stdout else ""), (stderr.group(1) if stderr else "")
            if self.events and isinstance(self.events[-1], BashMode) and not (
                self.events[-1].stdout or self.events[-1].stderr
            ):
                self.events[-1] = replace(self.events[-1], stdout=out, stderr=err)
            else:
                self.events.append(BashMode(anchor, timestamp, "", out, err))
            return
        visible = strip_system_reminders(text)
        system_message = SYSTEM_MESSAGE.match(visible.strip()) if stripped.startswith("<") else None
        if system_message is not None:
            self.events.append(self._system_message(anchor, timestamp, *system_message.groups()))
            return
        if stripped == INTERRUPT_FOR_TOOL:
            self.events.append(Notice(anchor, timestamp, NoticeKind.INTERRUPT, stripped, hidden=True))
            return
        if stripped.startswith(INTERRUPT) and stripped.endswith("]") and "\n" not in stripped:
            self.events.append(Notice(anchor, timestamp, NoticeKind.INTERRUPT, stripped))
            return
        if meta:
            self.events.append(Prompt(anchor, timestamp, text, images, hidden=True, label=PromptLabel.META))
            return
        if not visible.strip() and not images:
            self.events.append(Prompt(anchor, timestamp, text, (), hidden=True, label=PromptLabel.SYSTEM_REMINDER))
            return
        # In a subagent's transcript, the "user" is the agent that started the run: its task is Markdown
        # written by Claude, not something a person typed.
        by_agent = self.source.is_subagent or bool(self.run_name)
        self.events.append(Prompt(anchor, timestamp, visible.strip("\n"), images, by_agent=by_agent))

    def _system_message(self, anchor: str, timestamp: str, tag: str, inner: str, after: str) -> Notice:
        """A message Claude Code wrote as if the user had (see SYSTEM_MESSAGE): its fields become
        details, its summary the text, and a background task's notification links to the call."""
        if tag not in SYSTEM_MESSAGE_KINDS:
            self.unknown[f"tag:{tag}"] += 1
        details: list[tuple[str, str]] = []
        for name, value in SYSTEM_MESSAGE_FIELD.findall(inner):
            # A field of fields (a task's <usage>) reads as "name value" pairs, not as tags.
            value = SYSTEM_MESSAGE_FIELD.sub(lambda inner_field: f"{inner_field[1].replace('_', ' ')} "
                                             f"{inner_field[2].strip()}; ", value).strip().rstrip(";")
            details.append((name.replace("_", "-"), value.strip()))
        rest = SYSTEM_MESSAGE_FIELD.sub("", inner).strip()
        fields = dict(details)
        summary = fields.pop("summary", "")
        text = " ".join(part for part in (summary, rest, after.strip()) if part)
        started_by = fields.get("tool-use-id") or fields.get("task-id") or fields.get("shell-id") or ""
        related = self.background.call_for(started_by)
        # The call's id is said by the link to the call, when the call is known here.
        left_out = ("summary", "tool-use-id") if related else ("summary",)
        shown = tuple((name, value) for name, value in details if name not in left_out)
        return Notice(anchor, timestamp, notice_kind(tag), text or (SYSTEM_MESSAGE_KINDS.get(tag) or tag), details=shown,
                      related=related)

    @handles(USER_PART_HANDLERS, "tool_result")
    def _tool_result(self, data: Mapping[str, Any], part: Mapping[str, Any], timestamp: str,
                     gathered: _UserParts) -> None:
        self._pair_result(part, self._time(data), data.get("toolUseResult"))

    @handles(ASSISTANT_PART_HANDLERS, *SERVER_TOOL_RESULTS)
    def _assistant_tool_result(self, part: Mapping[str, Any], part_id: str, timestamp: str, model: str) -> None:
        """A result inside Claude's own message: a tool the API ran (web search), or a call another backend
        (DeepSeek, GLM, MiniMax through Claude Code) answered in the same message."""
        if part.get("type") != "tool_result":
            content = part.get("content")
            is_error = isinstance(content, dict) and str(content.get("type", "")).endswith("_error")
            part = {**part, "content": _server_result_text(content), "is_error": is_error}
        self._pair_result(part, timestamp, None)

    def _pair_result(self, part: Mapping[str, Any], timestamp: str, structured: Any) -> None:
        """A tool's result, given to the call it answers (or waiting for it)."""
        tool_use_id = str(part.get("tool_use_id", ""))
        content = part.get("content")
        images = tuple(
            image for p in (content if isinstance(content, list) else [])
            if isinstance(p, dict) and p.get("type") in ("image", "document") and (image := _media(p)) is not None
        )
        text = strip_system_reminders(self._result_text(content))
        result = ToolResult(
            timestamp=timestamp,
            text=TOOL_USE_ERROR.sub(r"\1", text),
            is_error=part.get("is_error") is True or TOOL_USE_ERROR.search(text) is not None,
            structured=structured,
            images=images,
        )
        index = self.calls.result_came(tool_use_id)
        if index is not None:
            call = self.events[index]
            assert isinstance(call, ToolCall)
            self._complete_call(index, call, result)
            return
        replayed = self.calls.replayed_call(tool_use_id)
        if replayed is not None:
            # Its call was replayed from the session this one continues (shown there, waiting): the
            # result is shown here, with the call it answers.
            name, tool_input = replayed
            call = ToolCall(self._call_anchor(tool_use_id), result.timestamp, tool_use_id, name, tool_input)
            self.events.append(call)
            self._complete_call(len(self.events) - 1, call, result)
            return
        # No call yet: 2.1.9x may write a result just before its call. A stand-in waits a few events for
        # it; a result whose call is in another file is shown as the result of an unknown call.
        stand_in = ToolCall(self._call_anchor(tool_use_id), result.timestamp, tool_use_id, UNKNOWN_TOOL, {},
                            result)
        self.calls.result_came_first(tool_use_id, len(self.events))
        self.events.append(stand_in)

    def _call_anchor(self, tool_use_id: str) -> str:
        """A call's anchor comes from its id; a second event for the same id (a call whose result was
        shown before it came) gets one of its own, so that no two elements share an id."""
        if self.calls.anchor_is_free(tool_use_id):
            return _anchor(tool_use_id, "")
        return self._next_anchor(None)

    def _complete_call(self, index: int, call: ToolCall, result: ToolResult) -> None:
        self.background.note(call, result)
        if call.name in TASK_TOOLS:
            self.events[index] = replace(call, result=result, tasks=self.tasks.track(call, result))
        elif call.name in PLAN_TOOLS:
            plan = plan_of(replace(call, result=result))
            self.events[index] = plan
            self.plans.decided(index, plan)
        else:
            self.events[index] = replace(call, result=result)
        self.events.release()

    def _result_text(self, content: Any) -> str:
        """A tool result's text. Parts other than text and images are kept as text too, so nothing in a
        result is lost; those this stage does not know are counted."""
        if not isinstance(content, list):
            return _text_of(content)
        pieces = []
        for part in content:
            part_type = part.get("type") if isinstance(part, dict) else None
            if part_type in ("image", "document"):
                continue
            if part_type == "text" or isinstance(part, str):
                pieces.append(_text_of([part]))
            elif part_type == "tool_reference":  # ToolSearch loading a deferred tool
                pieces.append(f"Tool loaded: {part.get('tool_name', '')}")
            else:
                name = f"part:{part_type}" if isinstance(part_type, str) else "part:(not an object)"
                self.unknown[name] += 1
                pieces.append(json.dumps(part, ensure_ascii=False, sort_keys=True, default=str))
        return "\n".join(pieces)

    @handles(ENTRY_HANDLERS, "assistant")
    def _assistant(self, entry: Entry) -> None:
        data = entry.data
        message = data.get("message")
        if not isinstance(message, dict) or _spread_string(message):
            message = _message_object(message)
            if message is None:
                self._malformed(entry, "assistant entry whose message is not an object")
                return
            self.problems.append(Diagnostic(entry.file, entry.line, "assistant message is not an object (a string, "
                                            "or one spread into an object by character position): read as its text"))
        timestamp = self._time(data)
        model = named if isinstance(named := message.get("model"), str) and named != SYNTHETIC_MODEL else ""
        self.metadata.note_model(model)
        if message.get("model") != SYNTHETIC_MODEL:
            self.usage.count(data, message)
        content = message.get("content")
        if data.get("isApiErrorMessage"):
            self.events.append(Notice(self._next_anchor(data.get("uuid")), timestamp, NoticeKind.API_ERROR, _text_of(content)))
            return
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            self._malformed(entry, "assistant message content is neither text nor a list of parts")
            return
        for index, part in enumerate(content):
            if not isinstance(part, dict):
                self.unknown["part:(not an object)"] += 1
                self.events.append(Unknown(self._next_anchor(None), timestamp, "part:(not an object)", part))
                continue
            part_id = f"{data.get('uuid', '')}-{index}"
            part_type = part.get("type")
            handler = ASSISTANT_PART_HANDLERS.get(part_type) if isinstance(part_type, str) else None
            if handler is not None:
                handler(self, part, part_id, timestamp, model)
            else:
                name = f"part:{part.get('type')}"
                self.unknown[name] += 1
                if not holds_model_request(part):
                    self.events.append(Unknown(self._next_anchor(part_id), timestamp, name, part))

    @handles(ASSISTANT_PART_HANDLERS, "text")
    def _assistant_text(self, part: Mapping[str, Any], part_id: str, timestamp: str, model: str) -> None:
        text = str(part.get("text", ""))
        if text.strip():
            self.events.append(AssistantText(self._next_anchor(part_id), timestamp, text, model))

    @handles(ASSISTANT_PART_HANDLERS, "thinking")
    def _thinking(self, part: Mapping[str, Any], part_id: str, timestamp: str, model: str) -> None:
        text = str(part.get("thinking", ""))
        if text.strip():
            self.events.append(Thinking(self._next_anchor(part_id), timestamp, text))
        elif part.get("signature"):
            # Since 2.1.69 the default: Claude reasoned and the log keeps only the signature. An empty
            # Thinking says so where it happened.
            self.events.append(Thinking(self._next_anchor(part_id), timestamp, ""))

    @handles(ASSISTANT_PART_HANDLERS, "redacted_thinking")
    def _redacted_thinking(self, part: Mapping[str, Any], part_id: str, timestamp: str, model: str) -> None:
        self.events.append(Notice(self._next_anchor(part_id), timestamp, NoticeKind.REDACTED_THINKING,
                                  "Thinking (redacted by the API)"))

    @handles(ASSISTANT_PART_HANDLERS, "tool_use", "server_tool_use", "mcp_tool_use")
    def _tool_use(self, part: Mapping[str, Any], part_id: str, timestamp: str, model: str) -> None:
        tool_use_id = str(part.get("id", ""))
        if tool_use_id and self.calls.is_waiting(tool_use_id):
            return  # the same block written twice
        tool_input = _tool_input(part)
        name = str(part.get("name", "(unnamed tool)"))
        early = self.calls.stand_in_for(tool_use_id)
        if early is not None:
            # Its result came first and waits as a stand-in: the call takes the stand-in's place, which
            # is where it was made (a result cannot come before its call).
            stand_in = self.events[early]
            assert isinstance(stand_in, ToolCall) and stand_in.result is not None
            call = ToolCall(stand_in.anchor, timestamp or stand_in.timestamp, tool_use_id, name, tool_input)
            self._complete_call(early, call, stand_in.result)
            return
        anchor = self._call_anchor(tool_use_id) if tool_use_id else _anchor("", f"tool{self.counter}")
        call = ToolCall(anchor, timestamp, tool_use_id, name, tool_input)
        self.counter += 1
        self.calls.call_made(tool_use_id, len(self.events))
        self.events.append(call)

    def _remember_replayed_calls(self, data: Mapping[str, Any]) -> None:
        """A replayed entry is shown in the session this one continues; the calls it makes are kept until
        their results come, which may be after the resume, in this file."""
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return
        for part in content:
            if not isinstance(part, dict):
                continue
            if part.get("type") in ("tool_use", "server_tool_use", "mcp_tool_use") and isinstance(part.get("id"), str):
                self.calls.call_replayed(part["id"], str(part.get("name", "(unnamed tool)")), _tool_input(part))
            elif part.get("type") == "tool_result":
                self.calls.replayed_result(str(part.get("tool_use_id", "")))

    @handles(ENTRY_HANDLERS, "system")
    def _system(self, entry: Entry) -> None:
        data = entry.data
        subtype = str(data.get("subtype", ""))
        anchor = self._next_anchor(data.get("uuid"))
        content = data.get("content")
        handler = SYSTEM_HANDLERS.get(subtype)
        if handler is None:
            self.unknown[f"system:{subtype}"] += 1
            handler = _SessionBuilder._system_notice
        handler(self, entry, anchor, self._time(data), content if isinstance(content, str) else "")

    @handles(SYSTEM_HANDLERS, "away_summary", "informational", "api_error", "microcompact_boundary")
    def _system_notice(self, entry: Entry, anchor: str, timestamp: str, text: str) -> None:
        """A system line shown as it is, as a notice of its own subtype's name."""
        subtype = str(entry.data.get("subtype", ""))
        self.events.append(Notice(anchor, timestamp, notice_kind(subtype.replace("_", "-")), text,
                                  hidden=not text.strip()))

    @handles(SYSTEM_HANDLERS, "local_command")
    def _local_command(self, entry: Entry, anchor: str, timestamp: str, text: str) -> None:
        """A slash command or its output, written as a system line."""
        self._user_text(entry.data.get("uuid"), timestamp, text, (), meta=False)

    @handles(SYSTEM_HANDLERS, "compact_boundary")
    def _compact_boundary(self, entry: Entry, anchor: str, timestamp: str, text: str) -> None:
        metadata = found if isinstance(found := entry.data.get("compactMetadata"), dict) else {}
        trigger = metadata.get("trigger", "")
        tokens = metadata.get("preTokens")
        detail = f"{trigger}" + (f", {tokens:,} tokens before" if isinstance(tokens, int) else "")
        self.events.append(Notice(anchor, timestamp, NoticeKind.COMPACTION,
                                  "Conversation compacted" + (f" ({detail})" if detail else "")))
        self.restoring_context = True

    @handles(SYSTEM_HANDLERS, "turn_duration")
    def _turn_duration(self, entry: Entry, anchor: str, timestamp: str, text: str) -> None:
        """Hidden; the durations add up to how long Claude worked."""
        duration = entry.data.get("durationMs")
        milliseconds = 0
        # A day at most: anything else (NaN, infinity, a 400-digit number) is a broken log, not a turn.
        if isinstance(duration, (int, float)) and not isinstance(duration, bool) and 0 <= duration <= 86_400_000:
            milliseconds = int(duration)
            text = f"Turn took {duration / 1000:.1f} s"
        else:
            text = "Turn ended"
        self.events.append(Notice(anchor, timestamp, NoticeKind.TURN_DURATION, text, hidden=True,
                                  milliseconds=milliseconds))

    @handles(SYSTEM_HANDLERS, "stop_hook_summary")
    def _stop_hook_summary(self, entry: Entry, anchor: str, timestamp: str, text: str) -> None:
        self.events.append(Notice(anchor, timestamp, NoticeKind.STOP_HOOK_SUMMARY,
                                  f"Stop hooks ran ({entry.data.get('hookCount', 0)})", hidden=True))

    @handles(SYSTEM_HANDLERS, "")
    def _subtypeless_system(self, entry: Entry, anchor: str, timestamp: str, text: str) -> None:
        """1.0.x wrote hook progress as subtype-less system lines; other messages are kept visible."""
        plain = strip_ansi(text)
        is_hook_chatter = entry.data.get("level") == "info" and HOOK_LINE.search(plain) is not None
        self.events.append(Notice(anchor, timestamp, NoticeKind.HOOK if is_hook_chatter else NoticeKind.SYSTEM, plain,
                                  hidden=is_hook_chatter or not plain.strip()))

    def _permission_mode(self, data: Mapping[str, Any], mode: str) -> None:
        if mode == self.permission_mode:
            return
        self.permission_mode = mode
        known = PERMISSION_MODES.get(mode)
        self.events.append(Notice(self._next_anchor(f"{data.get('uuid', '')}-mode"), self._time(data),
                                  NoticeKind.PERMISSION_MODE, known or f"Permission mode: {mode}",
                                  mode=PermissionMode(mode) if known else mode))

    def _attached_file(self, data: Mapping[str, Any], attachment: Mapping[str, Any]) -> None:
        """A file the person named with @ in a prompt, which Claude Code read and sent along with it: the
        prompt shows the name, and this says the file went with it (its text is the file's, not said)."""
        name = attachment.get("displayPath") or attachment.get("filename")
        if not isinstance(name, str) or not name:
            return
        content = attachment.get("content")
        inner = content.get("file") if isinstance(content, dict) else None
        file_text = inner.get("content") if isinstance(inner, dict) else None
        details = (("lines", f"{file_text.count(chr(10)) + 1:,}"),) if isinstance(file_text, str) else ()
        if self.restoring_context:  # Claude Code gives back the files read before the compaction
            self.events.append(Notice(self._next_anchor(data.get("uuid")), self._time(data), NoticeKind.ATTACHED_FILE,
                                      f"Given back to Claude after the compaction: {name}", hidden=True,
                                      details=details))
            return
        self.events.append(Notice(self._next_anchor(data.get("uuid")), self._time(data), NoticeKind.ATTACHED_FILE,
                                  f"Sent with the prompt: {name}", details=details))

    def _agent_progress(self, data: Mapping[str, Any], progress: Mapping[str, Any], line: int = 0) -> None:
        """2.x streams a subagent's messages into the parent as progress entries. They are kept to rebuild
        the subagent's transcript when its own `agent-*.jsonl` file is missing."""
        message = progress.get("message")
        agent_id = progress.get("agentId")
        if not isinstance(message, dict) or not isinstance(agent_id, str):
            return
        entry = {**message, "isSidechain": True, "agentId": agent_id}
        for name in ("timestamp", "sessionId", "cwd", "version", "gitBranch"):
            entry.setdefault(name, data.get(name))
        if self.progress_sink is not None:
            self.progress_sink(agent_id, Entry(str(self.source.path), line, entry))

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
        usage, usage_by_model, tokens_by_day = self.usage.finish()
        metadata = self.metadata
        return Session(
            key=self.key,
            session_id=metadata.session_id or self.source.path.stem,
            source=str(self.source.path),
            project_dir=self.source.project_dir,
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

    def __init__(self, builder: _SessionBuilder):
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
        self.waiting.append(self.builder.before_adding(event))
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


def _is_request_record(kind: Any) -> bool:
    return isinstance(kind, str) and kind.startswith(REQUEST_RECORD_PREFIX)


def holds_model_request(value: Any, depth: int = 0) -> bool:
    """True when `value` looks like a record of a request to the model: a system prompt, tool schemas or a
    system-role message anywhere in it (looked for a few levels down, in the first items of each list)."""
    if depth > REQUEST_SCAN_DEPTH:
        return False
    if isinstance(value, dict):
        for name, inner in value.items():
            if name in MODEL_REQUEST_FIELDS and inner:
                return True
            if (name == "tools" and isinstance(inner, list)
                    and any(isinstance(t, dict) and ("input_schema" in t or "inputSchema" in t) for t in inner)):
                return True
            if name == "role" and inner == "system":
                return True
            if isinstance(inner, (dict, list)) and holds_model_request(inner, depth + 1):
                return True
    elif isinstance(value, list):
        return any(isinstance(item, (dict, list)) and holds_model_request(item, depth + 1)
                   for item in value[:REQUEST_SCAN_ITEMS])
    return False


def _server_result_text(content: Any) -> str:
    """The result of a tool the API ran, as text: each search hit's title and address, an error's code,
    the output of code it ran; anything else as its JSON, so that nothing is lost."""
    if isinstance(content, str):
        return content
    lines: list[str] = []
    for item in content if isinstance(content, list) else [content]:
        if not isinstance(item, dict):
            lines.append(str(item))
        elif item.get("type") == "text" and isinstance(item.get("text"), str):
            lines.append(item["text"])
        elif isinstance(item.get("url"), str):
            title = item.get("title")
            lines.append(f"{title} <{item['url']}>" if isinstance(title, str) and title else item["url"])
        elif isinstance(item.get("error_code"), str):
            lines.append(f"Error: {item['error_code']}")
        elif isinstance(item.get("stdout"), str) or isinstance(item.get("stderr"), str):
            lines.append("\n".join(str(item.get(name) or "") for name in ("stdout", "stderr")).strip())
        else:
            lines.append(json.dumps(item, ensure_ascii=False, sort_keys=True, default=str))
    return "\n".join(lines)


def _spread_string(message: Mapping[str, Any]) -> bool:
    """Whether an object is a string spread by character position: {"0": "H", "1": "i"}."""
    return bool(message) and all(isinstance(v, str) and len(v) == 1 for v in message.values()) and \
        set(message) == {str(index) for index in range(len(message))}


def _message_object(message: Any) -> Mapping[str, Any] | None:
    """An assistant entry's message as an object. Damaged files hold it as a string, or as a string spread
    into an object keyed by character position ({"0": "H", "1": "i"}): the string is the message's JSON
    when it reads as an object, else the reply's text. None when it is none of these."""
    if isinstance(message, dict):
        if not _spread_string(message):
            return message
        message = "".join(message[str(index)] for index in range(len(message)))
    if not isinstance(message, str):
        return None
    try:
        parsed = json.loads(message) if message.lstrip().startswith("{") else None
    except (ValueError, RecursionError):
        parsed = None
    if isinstance(parsed, dict) and "content" in parsed:
        return parsed
    return {"role": "assistant", "content": [{"type": "text", "text": message}]}


def _tool_input(part: Mapping[str, Any]) -> Mapping[str, Any]:
    raw_input = part.get("input")
    return MappingProxyType(dict(raw_input)) if isinstance(raw_input, dict) else MappingProxyType({"input": raw_input})


# Events that do not make a file worth a page on their own: Claude Code's bookkeeping about the session.
NOT_CONTENT_NOTICES = frozenset({NoticeKind.PERMISSION_MODE, NoticeKind.QUEUE_REMOVED})


def _is_content(event: Event) -> bool:
    """Whether the event shows something that happened in the conversation: a file with any such event
    gets a page; one with none (summary pointers, snapshots, queue operations) does not."""
    if getattr(event, "hidden", False):
        return False
    return not (isinstance(event, Notice) and event.kind in NOT_CONTENT_NOTICES)
