"""The Codex CLI adapter: a rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) read into the one event
model, as the Claude Code handlers read Claude Code's logs.

A rollout is a line per record, `{"timestamp", "type", "payload"}` (`RolloutItem` in codex-rs/protocol):
`session_meta` (the session's id, folder, git state, CLI version, and the system prompt, never shown),
`turn_context` (the model and its settings for a turn), `response_item` (what went to and came from the model:
messages, reasoning summaries, tool calls and their outputs), `event_msg` (what the CLI showed: the same
messages again, command and patch results, token counts, interrupts) and `compacted` (a summary that replaced
the history); newer versions add records of their own (`world_state`, `token_usage_record`). Before mid-2025
the first line was the metadata itself and the rest bare response items.

Codex's quirks stay here: what it shows twice (a message as a response item and again as an event, or as a
completed item) is shown once; what it sends the model as the user's or the developer's message but nobody
typed (AGENTS.md, `<environment_context>`, permissions and skills instructions) is the harness, as Claude
Code's system prompt is, and never shown; the facts in front of a command's output are taken out of it.
Every record and event type is either shown or known bookkeeping; any other is counted and shown as unknown.
"""

from __future__ import annotations

from typing import Any, Mapping

from ...core.model import AssistantText, BrokenLine, Diagnostic, Entry, Notice, NoticeKind, Unreadable
from ..agents import CODEX_ITEM_TYPES
from .codex_events import CodexEvents
from .codex_messages import CodexCalls, CodexMessages
from .codex_state import EVENTS, ITEMS, RECORDS, is_harness
from .dispatch import handles
from .session_state import _plausible_time

BOOKKEEPING_RECORDS = frozenset({"world_state", "token_usage_record"})
"""Records of newer versions that repeat what other records say (the environment, each response's usage)."""
BOOKKEEPING_EVENTS = frozenset({
    "task_started", "turn_started", "exec_command_begin", "exec_command_output_delta", "terminal_interaction",
    "patch_apply_begin", "patch_apply_end", "mcp_tool_call_begin", "mcp_tool_call_end", "web_search_begin",
    "web_search_end", "plan_update", "item_started", "thread_settings_applied", "session_configured",
    "mcp_startup_update", "mcp_startup_complete", "mcp_list_tools_response", "list_custom_prompts_response",
    "list_skills_response", "background_event", "shutdown_complete", "get_history_entry_response", "turn_diff",
    "agent_reasoning_section_break", "agent_message_delta", "agent_reasoning_delta", "view_image_tool_call",
    "context_compacted", "raw_response_item", "user_message_delta", "reasoning_content_delta",
    "agent_message_content_delta", "reasoning_raw_content_delta", "token_usage", "rate_limits",
})
"""What the CLI showed that another record shows here (the call and its output, the plan as a call, the
summary of a compaction), and the CLI's own business (its startup, its streaming)."""
BOOKKEEPING_ITEMS = frozenset({"ghost_snapshot", "compaction", "compaction_summary", "reasoning_encrypted"})
"""Response items with nothing to read: a snapshot of the work tree for /undo, an encrypted summary."""


class CodexSession(CodexMessages, CodexCalls, CodexEvents):
    """A Codex rollout's session, fed one record (or broken line) at a time: each record to the handler of its
    type, in the tables of `codex_state`."""

    def feed(self, item: Entry | BrokenLine) -> None:
        if isinstance(item, BrokenLine):
            self.events.append(Unreadable(anchor=f"line-{item.line}", line=item.line, text=item.text, reason=item.reason,
                                          whole=item.whole))
            return
        data = item.data
        timestamp = data.get("timestamp")
        if timestamp is not None and not _plausible_time(timestamp):
            self.problems.append(Diagnostic(item.file, item.line, f"timestamp {str(timestamp)[:40]!r} is not a time in "
                                            "2023-2099: shown without it, left out of charts and durations"))
            timestamp = ""
        timestamp = timestamp if isinstance(timestamp, str) else ""
        if self.summarising and timestamp:
            self.metadata.note({"timestamp": timestamp})
        anchor_id = f"l{item.line}"
        kind = data.get("type")
        payload = data.get("payload")
        if isinstance(kind, str) and kind in RECORDS:
            if not isinstance(payload, dict):
                self._malformed(item, f"Codex {kind} record whose payload is not an object")
                return
            RECORDS[kind](self, payload, anchor_id, timestamp)
        elif kind is None and "id" in data and "timestamp" in data:  # 2025's first line: the metadata itself
            RECORDS["session_meta"](self, data, anchor_id, timestamp)
        elif isinstance(kind, str) and kind in CODEX_ITEM_TYPES:  # 2025: a bare response item
            RECORDS["response_item"](self, data, anchor_id, timestamp)
        elif data.get("record_type") == "state" or (isinstance(kind, str) and kind in BOOKKEEPING_RECORDS):
            return
        else:
            self._unknown(f"codex-record:{kind if isinstance(kind, str) else '(missing)'}", anchor_id, timestamp, data)

    @handles(RECORDS, "session_meta")
    def _session_meta(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        """The session's id, folder, branch and CLI version; its instructions (the system prompt) are never
        shown. A resumed or forked session repeats its origin's: the first says."""
        if not self.summarising or self.meta_seen:
            return
        self.meta_seen = True
        metadata = self.metadata
        session_id = payload.get("id", payload.get("session_id"))
        if isinstance(session_id, str):
            metadata.session_id = session_id
        if isinstance(payload.get("cwd"), str):
            metadata.cwd = payload["cwd"]
        git = payload.get("git")
        if isinstance(git, dict) and isinstance(git.get("branch"), str):
            metadata.git_branch = git["branch"]
        version = payload.get("cli_version")
        if isinstance(version, str):
            metadata.versions.setdefault(version, None)
        if isinstance(payload.get("timestamp"), str) and _plausible_time(payload["timestamp"]):
            metadata.note({"timestamp": payload["timestamp"]})

    @handles(RECORDS, "turn_context")
    def _turn_context(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        """The model and its settings for the turns that follow: said once, and again when they change."""
        model = payload.get("model")
        if isinstance(model, str) and model:
            self.model = model
        sandbox = payload.get("sandbox_policy")
        sandbox_mode = sandbox.get("type", sandbox.get("mode")) if isinstance(sandbox, dict) else sandbox
        collaboration = payload.get("collaboration_mode")
        effort = payload.get("effort")
        if effort is None and isinstance(collaboration, dict) and isinstance(collaboration.get("settings"), dict):
            effort = collaboration["settings"].get("reasoning_effort")
        facts = [("model", self.model), ("reasoning effort", effort), ("reasoning summaries", payload.get("summary")),
                 ("approvals", payload.get("approval_policy")), ("sandbox", sandbox_mode)]
        details = tuple((name, str(value)) for name, value in facts if isinstance(value, str) and value)
        settings = " · ".join(f"{name} {value}" for name, value in details)
        if settings and settings != self.settings:
            self.settings = settings
            self.events.append(Notice(self._next_anchor(anchor_id), timestamp, NoticeKind.MODEL_SETTINGS,
                                      "Model and settings:", details=details))

    @handles(RECORDS, "compacted")
    def _compacted(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        """The history replaced by a summary: said, and the summary the session went on from, folded."""
        message = payload.get("message")
        text = message.strip() if isinstance(message, str) else ""
        notice = Notice(self._next_anchor(anchor_id), timestamp, NoticeKind.COMPACTION,
                        "Conversation compacted: the history was replaced by a summary")
        last = self.events[-1] if self.events else None
        if isinstance(last, AssistantText) and last.text.strip() and last.text.strip() in text:
            self.events[-1] = notice  # the summary the model wrote when asked for one: shown folded, below
        else:
            self.events.append(notice)
        if text:
            self.events.append(Notice(self._next_anchor(f"{anchor_id}-summary"), timestamp, NoticeKind.CONTINUATION, text))

    @handles(RECORDS, "response_item")
    def _response_item(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        kind = payload.get("type")
        handler = ITEMS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(self, payload, anchor_id, timestamp)
        elif isinstance(kind, str) and kind in BOOKKEEPING_ITEMS:
            return
        else:  # a new kind of item: what went to or came from the model, so conversation: shown
            self._unknown(f"codex-item:{kind if isinstance(kind, str) else '(missing)'}", anchor_id, timestamp, payload,
                          hidden=False)

    @handles(RECORDS, "event_msg")
    def _event_msg(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        kind = payload.get("type")
        handler = EVENTS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(self, payload, anchor_id, timestamp)
        elif not (isinstance(kind, str) and kind in BOOKKEEPING_EVENTS):  # what the CLI showed: bookkeeping unless it is known
            self._unknown(f"codex-event:{kind if isinstance(kind, str) else '(missing)'}", anchor_id, timestamp, payload)


__all__ = ["CodexSession", "is_harness"]
