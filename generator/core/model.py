"""The typed model that every stage after `read` works on, gathered from the modules that hold it by what
it describes: `entries` (a log file's lines), `events` (what a session is made of) and `sessions` (a
session's summary, and the archive of linked sessions).

Everything here is frozen: once `interpret` has built a session, nothing changes it. Mappings taken from
the transcript (tool inputs, structured tool results) are kept as read-only views of the parsed JSON.
Session summaries travel between processes, so their mappings are plain dicts, never changed.
"""

from __future__ import annotations

from .entries import BrokenLine, Diagnostic, Entry, WholeLine
from .events import (
    EMPTY,
    Ending,
    AssistantText,
    BashMode,
    Event,
    EventBase,
    Media,
    Named,
    Notice,
    NoticeKind,
    PermissionMode,
    Plan,
    PlanDecision,
    PlanStatus,
    Prompt,
    PromptLabel,
    SlashCommand,
    TaskItem,
    Thinking,
    ToolCall,
    ToolResult,
    Unknown,
    Unreadable,
    as_unknown,
    notice_kind,
)
from .sessions import Archive, Chain, Commit, FileTouch, Interpreted, OutlineItem, Project, Session, SubagentCall, Usage

__all__ = [
    "EMPTY", "Archive", "AssistantText", "BashMode", "BrokenLine", "Chain", "Commit", "Diagnostic", "Ending", "Entry",
    "Event",
    "EventBase", "FileTouch", "Interpreted", "Media", "Named", "Notice", "NoticeKind", "OutlineItem", "PermissionMode",
    "Plan", "PlanDecision", "PlanStatus", "Project", "Prompt", "PromptLabel", "Session", "SlashCommand",
    "SubagentCall", "TaskItem", "Thinking", "ToolCall", "ToolResult", "Unknown", "Unreadable", "Usage", "WholeLine",
    "as_unknown", "notice_kind",
]
