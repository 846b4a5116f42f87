"""The Codex adapter's handlers of what happened around the conversation: token usage, turns and their
length, interrupts, errors and warnings, review and undo, approval requests, the session's name."""

from __future__ import annotations

from typing import Any, Mapping

from ...core.model import Notice, NoticeKind
from .codex_calls import command_line
from .codex_state import EVENTS, CodexState
from .dispatch import handles

_INTERRUPTS = {"interrupted": "Interrupted by the user", "replaced": "Turn replaced by a new request",
               "review_ended": "Review ended"}


class CodexEvents(CodexState):
    """What the CLI showed besides the conversation."""

    @handles(EVENTS, "token_count")
    def _token_count(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        """Usage, counted by how much the session's running total grew (an event repeated, or sent only for
        new rate limits, adds nothing)."""
        info = payload.get("info")
        total = info.get("total_token_usage") if isinstance(info, dict) else None
        if not self.summarising or not isinstance(total, dict):
            return
        counts = {name: value for name, value in total.items() if type(value) is int and 0 <= value < 10**12}
        grown = {name: value - self.counted_total.get(name, 0) for name, value in counts.items()}
        if any(value < 0 for value in grown.values()):  # a new running total (a fork): this turn's counts
            last = info.get("last_token_usage") if isinstance(info, dict) else None
            grown = {name: value for name, value in (last or {}).items() if type(value) is int and 0 <= value < 10**12}
        self.counted_total = counts
        if not any(grown.values()):
            return
        cached = grown.get("cached_input_tokens", 0)
        self.usage_number += 1
        usage = {"input_tokens": max(grown.get("input_tokens", 0) - cached, 0),
                 "cache_read_input_tokens": cached, "output_tokens": grown.get("output_tokens", 0)}
        self.usage.count({"timestamp": timestamp}, {"id": f"codex-usage-{self.usage_number}",
                                                    "model": self.model or "unknown", "usage": usage})

    @handles(EVENTS, "task_complete", "turn_complete")
    def _task_complete(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        duration = payload.get("duration_ms")
        milliseconds = int(duration) if isinstance(duration, (int, float)) and not isinstance(duration, bool) \
            and 0 <= duration <= 86_400_000 else 0
        text = f"Turn took {milliseconds / 1000:.1f} s" if milliseconds else "Turn ended"
        self.events.append(Notice(self._next_anchor(anchor_id), timestamp, NoticeKind.TURN_DURATION, text, hidden=True,
                                  milliseconds=milliseconds))

    @handles(EVENTS, "turn_aborted")
    def _turn_aborted(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        reason = payload.get("reason")
        text = _INTERRUPTS.get(reason, f"Turn stopped ({reason})") if isinstance(reason, str) else "Turn stopped"
        kind = NoticeKind.INTERRUPT if reason == "interrupted" else "turn-aborted"
        self.events.append(Notice(self._next_anchor(anchor_id), timestamp, kind, text))

    @handles(EVENTS, "error", "stream_error", "warning", "deprecation_notice")
    def _error(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        message = payload.get("message", payload.get("summary"))
        text = message if isinstance(message, str) else str(payload.get("type"))
        kind = payload.get("type")
        notice_kind = NoticeKind.API_ERROR if kind == "error" else str(kind).replace("_", "-")
        self.events.append(Notice(self._next_anchor(anchor_id), timestamp, notice_kind, text,
                                  hidden=kind == "stream_error"))

    @handles(EVENTS, "thread_name_updated")
    def _thread_name(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        name = payload.get("thread_name", payload.get("name"))
        if self.summarising and isinstance(name, str) and name.strip():
            self.metadata.custom_title = name.strip()

    @handles(EVENTS, "entered_review_mode", "exited_review_mode", "thread_rolled_back", "undo_completed",
             "undo_started")
    def _mode_change(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        kind = str(payload.get("type"))
        wording = {"entered_review_mode": "Review started", "exited_review_mode": "Review ended",
                   "thread_rolled_back": "Turns rolled back", "undo_completed": "Last turn undone",
                   "undo_started": "Undoing the last turn"}
        message = payload.get("message") or payload.get("user_facing_hint")
        text = wording[kind] + (f": {message}" if isinstance(message, str) and message else "")
        self.events.append(Notice(self._next_anchor(anchor_id), timestamp, kind.replace("_", "-"), text,
                                  hidden=kind == "undo_started"))

    @handles(EVENTS, "exec_approval_request", "apply_patch_approval_request", "request_permissions",
             "elicitation_request")
    def _approval_request(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        """Codex asking the person before it runs a command or changes files (their answer is in the call's
        output: run, or rejected)."""
        command = command_line(payload.get("command")) if payload.get("command") else ""
        reason = payload.get("reason") or payload.get("message")
        files = payload.get("changes")
        target = command or (", ".join(sorted(files)) if isinstance(files, dict) else "")
        text = "Asked for approval" + (f": {target}" if target else "") + (
            f" ({reason})" if isinstance(reason, str) and reason else "")
        self.events.append(Notice(self._next_anchor(anchor_id), timestamp, "approval-request", text))
