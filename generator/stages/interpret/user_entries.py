"""User entries: what the person said and did. Prompts with their text, images and documents; slash
commands and their output (also when written as a `local_command` system line); bash mode; the messages
Claude Code writes into the conversation as the user's (a background task's notification); interruptions;
a queued message withdrawn before Claude read it; and changes of permission mode. A tool's result also
comes in a user entry: its part is handled with the calls, in tool_calls."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Mapping

from ...core.model import (
    BashMode,
    Entry,
    Media,
    Notice,
    NoticeKind,
    PermissionMode,
    Plan,
    PlanDecision,
    PlanStatus,
    Prompt,
    PromptLabel,
    SlashCommand,
    Unknown,
    notice_kind,
)
from .dispatch import ENTRY_HANDLERS, SYSTEM_HANDLERS, USER_PART_HANDLERS, handles
from .message_content import _document_text, _media, _text_of, _UserParts, holds_model_request, strip_system_reminders
from .session_state import SessionState

COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.S)
COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
COMMAND_STDOUT = re.compile(r"<local-command-(?:stdout|stderr)>(.*?)</local-command-(?:stdout|stderr)>", re.S)
BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)
BASH_STDOUT = re.compile(r"<bash-stdout>(.*?)</bash-stdout>", re.S)
BASH_STDERR = re.compile(r"<bash-stderr>(.*?)</bash-stderr>", re.S)
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
# The fields of a system message that are for the model alone: ids (the link to the call says which call),
# where its output was kept (a temporary file), and notes addressed to the model.
HARNESS_FIELD = re.compile(r"(?:\A|-)(?:id|ids|file|path|note|notes|hint|instructions?)\Z")
PROMPTS_REMEMBERED = 100_000
"""Prompts whose place is remembered to find where the user went back to (a session has far fewer)."""
PLAN_STARTED_SESSION = "accepted with a fresh context: this session carries it out"
INTERRUPT = "[Request interrupted by user"


def for_model(field_name: str) -> bool:
    """Whether a system message's field is for the model alone (`HARNESS_FIELD`)."""
    return HARNESS_FIELD.search(field_name) is not None


class UserEntries(SessionState):
    """The handlers of user entries, of the parts of their messages, and of what else the person did."""

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
        parent = data["parentUuid"] if isinstance(data.get("parentUuid"), str) else ""
        if isinstance(content, str):
            self._user_text(uuid, timestamp, content, (), meta=bool(data.get("isMeta")), parent=parent)
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
                            meta=bool(data.get("isMeta")), parent=parent)

    @handles(USER_PART_HANDLERS, "text")
    def _user_text_part(self, data: Mapping[str, Any], part: Mapping[str, Any], timestamp: str,
                        gathered: _UserParts) -> None:
        gathered.texts.append(str(part.get("text", "")))

    @handles(USER_PART_HANDLERS, "image", "document")
    def _user_media_part(self, data: Mapping[str, Any], part: Mapping[str, Any], timestamp: str,
                         gathered: _UserParts) -> None:
        media = _document_text(part) if part.get("type") == "document" else None
        media = media or _media(part, decode=self.whole_events)
        if media is not None:
            gathered.images.append(media)

    def _user_text(self, uuid: Any, timestamp: str, text: str, images: tuple[Media, ...], meta: bool,
                   parent: str = "") -> None:
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
        if stripped.startswith(INTERRUPT) and stripped.endswith("]") and "\n" not in stripped:
            # After a plan the interrupt is how its answer was given (rejected, or accepted with a fresh
            # context in the old format): the plan's card says which.
            after_plan = bool(self.events) and isinstance(self.events[-1], Plan)
            self.events.append(Notice(anchor, timestamp, NoticeKind.INTERRUPT, stripped, hidden=after_plan))
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
        if parent and not by_agent:
            self._went_back(parent, anchor, uuid, timestamp)
        self.events.append(Prompt(anchor, timestamp, visible.strip("\n"), images, by_agent=by_agent))

    def _went_back(self, parent: str, anchor: str, uuid: Any, timestamp: str) -> None:
        """A prompt written after the same entry as an earlier one: the user went back to that point (a
        rewind, or an earlier prompt edited) and goes on from here. Said where it happened, linked to the
        branch left; the branch's first prompt says it was left (`Session.rewound`)."""
        left = self.prompt_after.get(parent)
        if left is None:
            if len(self.prompt_after) < PROMPTS_REMEMBERED:
                self.prompt_after[parent] = anchor
            return
        self.events.append(Notice(self._next_anchor(f"{uuid}-rewind"), timestamp, NoticeKind.REWIND,
                                  "The user went back to an earlier point and went on from here", related=left))

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
        shown = tuple((name, value) for name, value in details if name != "summary" and not for_model(name))
        harness = tuple((name, value) for name, value in details if for_model(name))
        return Notice(anchor, timestamp, notice_kind(tag), text or (SYSTEM_MESSAGE_KINDS.get(tag) or tag), details=shown,
                      related=related, harness=harness)

    @handles(SYSTEM_HANDLERS, "local_command")
    def _local_command(self, entry: Entry, anchor: str, timestamp: str, text: str) -> None:
        """A slash command or its output, written as a system line."""
        self._user_text(entry.data.get("uuid"), timestamp, text, (), meta=False)

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

    @handles(ENTRY_HANDLERS, "permission-mode")
    def _permission_mode_entry(self, entry: Entry) -> None:
        """Shown when the mode changes (plan mode above all)."""
        if isinstance(entry.data.get("permissionMode"), str):
            self._permission_mode(entry.data, entry.data["permissionMode"])

    def _permission_mode(self, data: Mapping[str, Any], mode: str) -> None:
        if mode == self.permission_mode:
            return
        self.permission_mode = mode
        known = PERMISSION_MODES.get(mode)
        self.events.append(Notice(self._next_anchor(f"{data.get('uuid', '')}-mode"), self._time(data),
                                  NoticeKind.PERMISSION_MODE, known or f"Permission mode: {mode}",
                                  mode=PermissionMode(mode) if known else mode))
