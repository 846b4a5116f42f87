"""Part of stage 3, interpret: what the rest of the build needs to know of a session without its events.

Events stream past a `Summary` as `interpret` produces them. It keeps what `link`, the indexes and the
pages around the transcript need (counts, the first prompt, the outline, plans, subagent calls, where
the pages break) and nothing of the transcript's bulk, so that phase 1 holds a small summary per session
whatever the size of the session. Phase 2 reads the file again and renders the events as they stream.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from .commits import CommitLog
from .credentials.net import cut_short_of_secrets
from ..core.model import (
    NoticeKind,
    PermissionMode,
    PlanDecision,
    PlanStatus,
    PromptLabel,
    AssistantText,
    BashMode,
    Event,
    FileTouch,
    Notice,
    OutlineItem,
    Plan,
    Prompt,
    SlashCommand,
    SubagentCall,
    Thinking,
    ToolCall,
    Unknown,
    Unreadable,
)
from ..core.text import head, plain, shorten

SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
# The tools that change files, and the input naming the file each changes.
FILE_CHANGING_TOOLS = {"Edit": "file_path", "MultiEdit": "file_path", "Write": "file_path",
                       "NotebookEdit": "notebook_path", "apply_patch": "files"}
"""An input naming a list (`files`) names each file the call changed (a patch may change several)."""
# A summary stays small whatever the session: a few links per file, a bounded number of files and of
# distinct tool names (a hostile log could invent millions of either).
PLACES_PER_FILE = 5
FILES_PER_SESSION = 500
TOOL_NAMES_PER_SESSION = 200
OTHER_TOOLS = "(other tools)"
PATH_LIMIT = 1000
PLAN_PREAMBLE = "Implement the following plan:"
# The name a result whose call is in no file read stands under: not a call made in this session.
UNKNOWN_TOOL = "(unknown tool)"
QUIET_TOOLS = frozenset({"TaskList", "TaskGet"})
"""Claude reading back its own task list: nothing new for a reader, so no card (but with --show-hidden), and
not counted with the calls a page shows."""
# "…read the full transcript at: /home/me/.claude/projects/-home-me-app/<session id>.jsonl"
TRANSCRIPT_PATH = re.compile(r"transcript at:\s*\S*?([^/\\\s]+)\.jsonl")
# Kept of the first prompt: enough for a title, the index and the quoted "original ask" of a chain.
FIRST_PROMPT_LIMIT = 20_000

# A page holds about this many characters of transcript. Markup, highlighting and the page around it
# make the HTML about 3 to 3.5 times larger (measured on examples/), so pages stay near 600 KB.
PAGE_BUDGET = 180_000
# Past the inline limit a tool output moves to a text file, so it costs a page only its preview.
OUTPUT_PREVIEW = 50_000

# Claude Code's own commands, which set something up or show something: not a request to Claude. Any other
# slash command (one of the project's, a plugin's, a skill) sends Claude a prompt, its arguments included.
BUILT_IN_COMMANDS = frozenset(
    "/" + name for name in (
        "add-dir", "agents", "bashes", "btw", "bug", "clear", "compact", "config", "context", "copy", "cost",
        "doctor", "effort", "exit", "export", "extra-usage", "fast", "feedback", "help", "hooks", "ide",
        "install-github-app", "keybindings", "login", "logout", "mcp", "memory", "migrate-installer", "model",
        "output-style", "permissions", "plan", "plugin", "privacy-settings", "quit", "release-notes",
        "remote-control", "rename", "resume", "rewind", "sandbox", "skills", "stats", "status", "statusline",
        "tasks", "terminal-setup", "theme", "todos", "upgrade", "usage", "vim",
    )
)

# The members `Summary` compares notices and prompts with, held here: a member looked up on its enum costs a
# Python call, and the summary sees every event.
_TURN_DURATION, _API_ERROR, _PLAN_MODE = NoticeKind.TURN_DURATION, NoticeKind.API_ERROR, PermissionMode.PLAN
_REWIND = NoticeKind.REWIND
REWINDS_PER_SESSION = 1000
_PLAN_PREAMBLE_LABEL = PromptLabel.PLAN_PREAMBLE


def event_kind(cls: type) -> str:
    """An event's kind as the build report counts it: its class's name in snake case (`ToolCall`:
    `tool_call`), so that a kind added later is counted with no list to extend."""
    kind = _event_kinds.get(cls)
    if kind is None:
        kind = _event_kinds[cls] = re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()
    return kind


_event_kinds: dict[type, str] = {}


def _action_of(event: Event) -> str:
    """What a session that has no prompt may be named after."""
    if isinstance(event, SlashCommand):
        return f"{event.name} {event.args}".strip()
    if isinstance(event, BashMode) and event.command:
        return f"! {event.command}"
    if isinstance(event, (Notice, AssistantText, Thinking)):
        return head(event.text, 2000)
    if isinstance(event, ToolCall) and event.result is not None:
        return head(event.result.text, 2000)
    return ""


# A prompt of fewer words than this beside an attached text file ("go", "see attached") says less than
# the file does: the file is what was asked.
FEW_WORDS = 4
# Words as `str.split` finds them (`\s` is `str.isspace`), looked for no further than the first few: a
# split of a long prompt (a pasted log) was a copy of all of it.
_FEW_WORDS_OR_MORE = re.compile(r"\s*\S+" + r"\s+\S+" * (FEW_WORDS - 1))


def _what_was_asked(prompt: Prompt) -> str:
    """A prompt's text, or, when it is a word or two beside an attached text file, the file's text."""
    if _FEW_WORDS_OR_MORE.match(prompt.text):
        return prompt.text
    document = next((media for media in prompt.images if media.media_type == "text/plain" and media.data.strip()), None)
    return document.data[:FIRST_PROMPT_LIMIT * 4].decode("utf-8", "ignore") if document is not None else prompt.text


def text_digest(text: str) -> str:
    """Plans are matched across sessions by their text, whitespace aside."""
    return hashlib.blake2b(" ".join(text.split()).encode("utf-8", "replace"), digest_size=12).hexdigest()


def uuid_digest(uuid: str) -> bytes:
    """Eight bytes stand for an entry uuid: continuations are found by comparing millions of them."""
    hasher = _UUID_HASHER.copy()  # a third quicker than a new one made with its size each time
    hasher.update(uuid.encode("utf-8", "replace"))
    return hasher.digest()


_UUID_HASHER = hashlib.blake2b(digest_size=8)


def weight(event: Event) -> int:
    """Roughly how much of a page an event takes."""
    if isinstance(event, ToolCall):
        result = len(event.result.text) if event.result else 0
        return 200 + sum(map(len, map(str, event.input.values()))) + min(result, OUTPUT_PREVIEW)
    if isinstance(event, Unknown):
        return 200 + len(str(event.raw))
    if isinstance(event, (Prompt, Unreadable)):  # past the preview, the text is in a file of its own
        return 200 + min(len(event.text), OUTPUT_PREVIEW)
    return 200 + len(getattr(event, "text", "") or "")


class Paginator:
    """Where each page starts. Pages break between turns (before a prompt); a single turn that is far too
    long for one page also breaks between the events of Claude's reply."""

    def __init__(self, budget: int = PAGE_BUDGET):
        self.budget = budget
        self.starts = [0]
        self.size = 0
        self.index = -1

    def add(self, event: Event) -> int:
        """Counts the event in; returns the 1-based page it falls on."""
        self.index += 1
        event_weight = weight(event)
        turn_starts = isinstance(event, Prompt) and not event.hidden
        if self.index > self.starts[-1] and (
            self.size >= self.budget and turn_starts or self.size + event_weight > 3 * self.budget // 2
        ):
            self.starts.append(self.index)
            self.size = 0
        self.size += event_weight
        return len(self.starts)


def paginate(events: tuple[Event, ...], budget: int = PAGE_BUDGET) -> tuple[int, ...]:
    paginator = Paginator(budget)
    for event in events:
        paginator.add(event)
    return tuple(paginator.starts)


@dataclass
class Summary:
    """Watches one session's events go by."""

    counts_by_class: dict[type, int] = field(default_factory=dict)
    """Events by their class (named as the report counts them in `fields`: a name for each event would cost
    a call)."""
    prompt_count: int = 0
    task_count: int = 0
    rewound: dict[str, str] = field(default_factory=dict)
    first_prompt: str = ""
    first_action: str = ""
    outline: list[OutlineItem] = field(default_factory=list)
    tool_call_count: int = 0
    active_ms: int = 0
    first_plan: tuple[str, str] = ("", "")
    started_plan_digest: str = ""
    started_plan_text: str = ""
    pending_plans: list[tuple[str, str]] = field(default_factory=list)
    role: str = "further work"
    plan_source_id: str = ""
    subagent_calls: list[SubagentCall] = field(default_factory=list)
    paginator: Paginator = field(default_factory=Paginator)
    tool_counts: Counter[str] = field(default_factory=Counter)
    tool_errors: Counter[str] = field(default_factory=Counter)
    api_errors: int = 0
    files: dict[str, tuple[int, list[tuple[str, int]]]] = field(default_factory=dict)
    files_left_out: int = 0
    commit_log: CommitLog = field(default_factory=CommitLog)
    on_later_page: Callable[[str, int], None] | None = None
    """Told of every anchor on a page after the first (every other anchor is on page 1), as it goes by:
    a long session's anchors are written out, never held."""

    def __call__(self, event: Event) -> None:
        counts, cls = self.counts_by_class, type(event)
        counts[cls] = counts.get(cls, 0) + 1
        page = self.paginator.add(event)
        anchor = event.anchor
        if page > 1 and self.on_later_page is not None:
            self.on_later_page(anchor, page)
            self.on_later_page("m" + anchor[1:], page)  # the reply block wrapping it
        timestamp = getattr(event, "timestamp", "")
        if not (self.first_action or self.first_prompt or getattr(event, "hidden", False)):
            self.first_action = _action_of(event)
        if isinstance(event, Prompt):
            if not event.hidden:
                # A subagent's task was written by the agent that started it: not a prompt of the person.
                if not event.by_agent:
                    self.prompt_count += 1
                else:
                    self.task_count += 1
                asked = _what_was_asked(event)
                if not self.first_prompt:
                    self.first_prompt = asked[:FIRST_PROMPT_LIMIT]
                if asked.strip():
                    self.outline.append(OutlineItem(anchor, cut_short_of_secrets(shorten(plain(head(asked, 2000)), 70)), timestamp, page))
            elif event.label == _PLAN_PREAMBLE_LABEL and not self.plan_source_id:
                found = TRANSCRIPT_PATH.search(event.text)
                if found:
                    self.plan_source_id = found.group(1)
        elif isinstance(event, SlashCommand) and event.name.lower() not in BUILT_IN_COMMANDS and event.name.strip("/"):
            # `/orchestrator create TODO app`: the person asked Claude for something, in a command's words.
            typed = f"{event.name} {event.args}".strip()
            self.prompt_count += 1
            if not self.first_prompt:
                self.first_prompt = typed[:FIRST_PROMPT_LIMIT]
            self.outline.append(OutlineItem(anchor, cut_short_of_secrets(shorten(plain(head(typed, 2000)), 70)), timestamp, page))
        elif isinstance(event, ToolCall):
            # A call that only reads back what the page shows has no card (but with --show-hidden): the
            # figures count the cards a reader finds.
            if event.name != UNKNOWN_TOOL and event.name not in QUIET_TOOLS:
                self.tool_call_count += 1
                self._count_tool(event, anchor, page)
                self.commit_log.add(event, page)
            if event.name in SUBAGENT_TOOLS:
                structured = event.result.structured if event.result else None
                agent_id = structured.get("agentId") if isinstance(structured, dict) else None
                self.subagent_calls.append(SubagentCall(
                    anchor=anchor, page=page, agent_id=agent_id if isinstance(agent_id, str) else "",
                    prompt_digest=text_digest(str(event.input.get("prompt", "")).strip()),
                    description=head(str(event.input.get("description", "")).strip(), 500),
                    name=str(event.input.get("name", "") or "").strip()[:200]))
        elif isinstance(event, Plan):
            if event.tool:  # an ExitPlanMode call, shown as the plan it proposed: still a call in the log
                self.tool_call_count += 1
                self._count_tool_name(event.tool, failed=False)
            if not self.first_plan[0]:
                self.first_plan = (event.status.value, event.how)
            if event.decision == PlanDecision.STARTED_SESSION:
                if not self.started_plan_digest:
                    self.started_plan_digest = text_digest(event.text)
                    self.started_plan_text = head(event.text, 2000)
                self.role = "implementation"
            else:
                if event.status == PlanStatus.PENDING:
                    self.pending_plans.append((anchor, text_digest(event.text)))
                if self.role != "implementation":
                    self.role = "planning"
        elif isinstance(event, Notice):
            if event.kind == _TURN_DURATION:
                self.active_ms += event.milliseconds
            elif event.kind == _API_ERROR:
                self.api_errors += 1
            elif event.kind == _REWIND and event.related and len(self.rewound) < REWINDS_PER_SESSION:
                self.rewound.setdefault(event.related, anchor)
            elif event.mode == _PLAN_MODE and self.role != "implementation":
                self.role = "planning"

    def _count_tool_name(self, called: str, failed: bool) -> None:
        name = called if called in self.tool_counts or len(self.tool_counts) < TOOL_NAMES_PER_SESSION else OTHER_TOOLS
        self.tool_counts[name] += 1
        if failed:
            self.tool_errors[name] += 1

    def _count_tool(self, call: ToolCall, anchor: str, page: int) -> None:
        failed = call.result is not None and call.result.is_error
        # A call the user or Claude Code stopped is shown as what it was (interrupted, refused…), not as an error.
        self._count_tool_name(call.name, failed and not (call.result is not None and call.result.ending))
        path_field = FILE_CHANGING_TOOLS.get(call.name)
        named = call.input.get(path_field) if path_field else None
        if failed:
            return  # a refused edit changed nothing
        for path in named if isinstance(named, (list, tuple)) else (named,):
            if isinstance(path, str) and path.strip():
                self._touch(path[:PATH_LIMIT], anchor, page)

    def _touch(self, path: str, anchor: str, page: int) -> None:
        if path in self.files:
            changes, places = self.files[path]
            if len(places) < PLACES_PER_FILE:
                places.append((anchor, page))
            self.files[path] = (changes + 1, places)
        elif len(self.files) < FILES_PER_SESSION:
            self.files[path] = (1, [(anchor, page)])
        else:
            self.files_left_out += 1

    def _event_counts(self) -> dict[str, int]:
        """Events by kind, in the order each kind first came."""
        counted: dict[str, int] = {}
        for cls, count in self.counts_by_class.items():
            kind = event_kind(cls)
            counted[kind] = counted.get(kind, 0) + count
        return counted

    def fields(self) -> dict[str, Any]:
        """What it found, as `Session` fields."""
        return {
            "event_counts": self._event_counts(),
            "prompt_count": self.prompt_count,
            "task_count": self.task_count,
            "first_prompt": self.first_prompt,
            "first_action": self.first_action,
            "outline": tuple(self.outline),
            "rewound": dict(self.rewound),
            "tool_call_count": self.tool_call_count,
            "active_ms": self.active_ms,
            "first_plan_status": self.first_plan[0],
            "first_plan_how": self.first_plan[1],
            "started_plan_digest": self.started_plan_digest,
            "started_plan_text": self.started_plan_text,
            "pending_plans": tuple(self.pending_plans),
            "role_hint": self.role,
            "plan_source_id": self.plan_source_id,
            "subagent_calls": tuple(self.subagent_calls),
            "page_starts": tuple(self.paginator.starts),
            "tool_counts": dict(sorted(self.tool_counts.items())),
            "tool_errors": dict(sorted(self.tool_errors.items())),
            "api_errors": self.api_errors,
            "files_touched": tuple(FileTouch(path, changes, tuple(places)) for path, (changes, places) in self.files.items()),
            "files_left_out": self.files_left_out,
            "commits": self.commit_log.commits(),
        }
