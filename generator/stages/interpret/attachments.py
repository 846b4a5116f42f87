"""Attachment entries: what Claude Code sent along with a prompt or a turn. A file the person named with @ is
shown, as is a message another agent sent this one and what a hook printed for Claude; the rest (task
reminders, edited files, tool lists) is Claude Code's own bookkeeping, skipped."""

from __future__ import annotations

from typing import Any, Mapping

from ...core.model import Entry, Notice, NoticeKind, Prompt
from ...core.text import strip_ansi
from .dispatch import ENTRY_HANDLERS, handles
from .message_content import strip_system_reminders
from .session_state import SessionState
from .stops import max_turns_text


class AttachmentEntries(SessionState):
    """The handler of attachment entries, by the attachment's type."""

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
        elif isinstance(attachment, dict) and attachment.get("type") == "max_turns_reached":
            self.events.append(Notice(self._next_anchor(entry.data.get("uuid")), self._time(entry.data),
                                      NoticeKind.STOPPED, max_turns_text(attachment)))

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
