"""System entries: Claude Code's own lines in the conversation, one handler per subtype (`SYSTEM_HANDLERS`):
compactions, how long each turn took, stop hooks, API errors, informational lines, and the hook progress
1.0.x wrote without a subtype. A subtype with no handler is counted and shown as a notice of its own name.
A `local_command` line is a slash command, handled with the user's (user_entries)."""

from __future__ import annotations

import re

from ...core.model import Entry, Notice, NoticeKind, notice_kind
from ...core.text import strip_ansi
from .dispatch import ENTRY_HANDLERS, SYSTEM_HANDLERS, handles
from .session_state import SessionState

HOOK_LINE = re.compile(r"\b(?:Pre|Post)ToolUse\b|\b(?:Stop|SubagentStop|UserPromptSubmit|SessionStart|SessionEnd|"
                       r"Notification|PreCompact)\b.*(?:hook|\[)|^Running\b.*\.\.\.$")


class SystemEntries(SessionState):
    """The handler of system entries, and that of each system subtype."""

    @handles(ENTRY_HANDLERS, "system")
    def _system(self, entry: Entry) -> None:
        data = entry.data
        subtype = str(data.get("subtype", ""))
        anchor = self._next_anchor(data.get("uuid"))
        content = data.get("content")
        handler = SYSTEM_HANDLERS.get(subtype)
        if handler is None:
            self.unknown[f"system:{subtype}"] += 1
            handler = SystemEntries._system_notice
        handler(self, entry, anchor, self._time(data), content if isinstance(content, str) else "")

    @handles(SYSTEM_HANDLERS, "away_summary", "informational", "api_error", "microcompact_boundary")
    def _system_notice(self, entry: Entry, anchor: str, timestamp: str, text: str) -> None:
        """A system line shown as it is, as a notice of its own subtype's name."""
        subtype = str(entry.data.get("subtype", ""))
        self.events.append(Notice(anchor, timestamp, notice_kind(subtype.replace("_", "-")), text,
                                  hidden=not text.strip()))

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
