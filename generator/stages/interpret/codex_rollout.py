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

import base64
import binascii
import re
from collections import OrderedDict
from typing import Any, Callable, Mapping

from ...core.model import (AssistantText, BashMode, BrokenLine, Diagnostic, Entry, Media, Notice, NoticeKind, Prompt,
                           Thinking, ToolCall, ToolResult, Unknown, Unreadable)
from ..agents import CODEX, CODEX_ITEM_TYPES
from .codex_calls import PATCH_TOOL, arguments_of, call_of, command_line, is_failure, output_of
from .dispatch import handles
from .message_content import _media
from .session_state import _plausible_time
from .tool_calls import ToolCalls

Handler = Callable[[Any, Mapping[str, Any], str, str], None]
RECORDS: dict[str, Handler] = {}
"""By a record's `type`: handler(session, payload, anchor id, timestamp)."""
ITEMS: dict[str, Handler] = {}
"""By a response item's `type`."""
EVENTS: dict[str, Handler] = {}
"""By an event's `type` (`event_msg` records)."""

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

# Text Codex sends as the user's but nobody typed: a whole message that is one tagged block
# (`<environment_context>…</environment_context>`, `<user_instructions>`, `<turn_aborted>`, …), and AGENTS.md.
_HARNESS_BLOCK = re.compile(r"^\s*<([A-Za-z_][\w-]*)(?:\s[^>]*)?>.*</\1>\s*$", re.S)
_HARNESS_PREFIXES = ("# AGENTS.md instructions", "<user_instructions>", "<environment_context>",
                     "<permissions instructions>", "<skills_instructions>", "<collaboration_mode>")
# The tags 0.1xx wraps a pasted image in, around the image itself.
_IMAGE_TAG = re.compile(r"^\s*(?:<image\b[^>]*>|</image>)\s*$")
_DATA_URL = re.compile(r"^data:([\w.+-]+/[\w.+-]+);base64,(.*)$", re.S)
DEDUPE_WINDOW = 32
"""Messages remembered to tell a second copy from a new message: a turn's worth."""
_INTERRUPTS = {"interrupted": "Interrupted by the user", "replaced": "Turn replaced by a new request",
               "review_ended": "Review ended"}


class CodexSession(ToolCalls):
    """A Codex rollout's session, fed one record (or broken line) at a time."""

    agent = CODEX

    def __post_init__(self) -> None:
        super().__post_init__()
        self.model = ""
        self.settings = ""
        self.seen: OrderedDict[tuple[str, str], set[str]] = OrderedDict()
        self.exit_codes: dict[str, int] = {}
        self.counted_total: dict[str, int] = {}
        self.usage_number = 0
        self.meta_seen = False

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
        elif data.get("record_type") == "state" or kind in BOOKKEEPING_RECORDS:
            return
        else:
            self._unknown(f"codex-record:{kind if isinstance(kind, str) else '(missing)'}", anchor_id, timestamp, data)

    def _unknown(self, name: str, anchor_id: str, timestamp: str, raw: Any, hidden: bool = True) -> None:
        self.unknown[name] += 1
        self.events.append(Unknown(self._next_anchor(anchor_id), timestamp, name, dict(raw) if isinstance(raw, Mapping)
                                   else raw, hidden=hidden))

    def _once(self, kind: str, text: str, source: str) -> bool:
        """Whether a message is new: Codex writes each message it shows twice or three times (a response item,
        an event, a completed item), which are one message; the same words again from the same source are
        a new one."""
        key = (kind, text.strip())
        sources = self.seen.get(key)
        if sources is not None and source not in sources:
            sources.add(source)
            return False
        self.seen[key] = {source}
        self.seen.move_to_end(key)
        if len(self.seen) > DEDUPE_WINDOW:
            self.seen.popitem(last=False)
        return True

    # -- records -----------------------------------------------------------------------------------------

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
        self.events.append(Notice(self._next_anchor(anchor_id), timestamp, NoticeKind.COMPACTION,
                                  "Conversation compacted: the history was replaced by a summary"))
        if text:
            self.events.append(Notice(self._next_anchor(f"{anchor_id}-summary"), timestamp, NoticeKind.CONTINUATION, text))

    @handles(RECORDS, "response_item")
    def _response_item(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        kind = payload.get("type")
        handler = ITEMS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(self, payload, anchor_id, timestamp)
        elif kind in BOOKKEEPING_ITEMS:
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
        elif kind not in BOOKKEEPING_EVENTS:  # what the CLI showed: bookkeeping unless it is known
            self._unknown(f"codex-event:{kind if isinstance(kind, str) else '(missing)'}", anchor_id, timestamp, payload)

    # -- messages ----------------------------------------------------------------------------------------

    @handles(ITEMS, "message")
    def _message(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        role = payload.get("role")
        content = payload.get("content")
        parts = content if isinstance(content, list) else [{"type": "input_text", "text": content}]
        texts = [part["text"] for part in parts if isinstance(part, dict) and isinstance(part.get("text"), str)]
        anchor = payload.get("id") if isinstance(payload.get("id"), str) else anchor_id
        if role == "assistant":
            text = "\n\n".join(texts)
            if text.strip() and self._once("reply", text, "item"):
                self._reply(anchor, timestamp, text)
            return
        if role != "user":  # developer and system messages: the harness's instructions
            return
        words = "\n".join(text for text in texts if not _IMAGE_TAG.match(text))
        if is_harness(words):
            return
        images = tuple(media for part in parts if isinstance(part, dict) and part.get("type") == "input_image"
                       and (media := self._image(part.get("image_url"))) is not None)
        if (words.strip() or images) and self._once("prompt", words, "item"):
            self.events.append(Prompt(self._next_anchor(anchor), timestamp, words.strip("\n"), images))

    def _reply(self, anchor: str, timestamp: str, text: str) -> None:
        if self.summarising:
            self.metadata.note_model(self.model)
        self.events.append(AssistantText(self._next_anchor(anchor), timestamp, text, self.model))

    def _image(self, url: Any) -> Media | None:
        if not isinstance(url, str):
            return None
        found = _DATA_URL.match(url)
        if found is None:
            return _media({"url": url})
        if not self.whole_events:
            return Media(found.group(1), b"")
        try:
            base64.b64decode(found.group(2), validate=False)
        except (binascii.Error, ValueError):
            return Media(found.group(1), b"", "(embedded image that could not be decoded)")
        return _media({"source": {"type": "base64", "media_type": found.group(1), "data": found.group(2)}})

    @handles(EVENTS, "user_message")
    def _user_message(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        message = payload.get("message")
        words = message if isinstance(message, str) else ""
        if is_harness(words):
            return
        images = tuple(media for url in (payload.get("images") or []) if (media := self._image(url)) is not None)
        if (words.strip() or images) and self._once("prompt", words, "event"):
            self.events.append(Prompt(self._next_anchor(anchor_id), timestamp, words.strip("\n"), images))

    @handles(EVENTS, "agent_message")
    def _agent_message(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        message = payload.get("message")
        if isinstance(message, str) and message.strip() and self._once("reply", message, "event"):
            self._reply(anchor_id, timestamp, message)

    @handles(EVENTS, "item_completed")
    def _item_completed(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        """0.1xx: each item again as the CLI showed it; the messages among them are the response items'."""
        item = payload.get("item")
        if not isinstance(item, dict):
            return
        kind = item.get("type")
        texts = [part["text"] for part in item.get("content") or [] if isinstance(part, dict)
                 and isinstance(part.get("text"), str)]
        if kind == "AgentMessage" and texts and self._once("reply", "\n\n".join(texts), "completed"):
            self._reply(anchor_id, timestamp, "\n\n".join(texts))
        elif kind == "UserMessage" and texts:
            words = "\n".join(texts)
            if not is_harness(words) and self._once("prompt", words, "completed"):
                self.events.append(Prompt(self._next_anchor(anchor_id), timestamp, words.strip("\n")))
        elif kind == "Reasoning":
            for index, text in enumerate(item.get("summary_text") or []):
                if isinstance(text, str) and text.strip() and self._once("thinking", text, "completed"):
                    self.events.append(Thinking(self._next_anchor(f"{anchor_id}-{index}"), timestamp, text))

    @handles(ITEMS, "reasoning")
    def _reasoning(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        """The reasoning summaries the model gave (its raw reasoning, when Codex kept it); the encrypted part is
        the model's alone."""
        parts = [*(payload.get("summary") or []), *(payload.get("content") or [])]
        anchor = payload.get("id") if isinstance(payload.get("id"), str) else anchor_id
        for index, part in enumerate(parts):
            text = part.get("text") if isinstance(part, dict) else None
            if isinstance(text, str) and text.strip() and self._once("thinking", text, "item"):
                self.events.append(Thinking(self._next_anchor(f"{anchor}-{index}"), timestamp, text))

    @handles(EVENTS, "agent_reasoning", "agent_reasoning_raw_content")
    def _agent_reasoning(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        text = payload.get("text")
        if isinstance(text, str) and text.strip() and self._once("thinking", text, "event"):
            self.events.append(Thinking(self._next_anchor(anchor_id), timestamp, text))

    # -- tool calls --------------------------------------------------------------------------------------

    def _call(self, call_id: Any, name: str, arguments: Mapping[str, Any], timestamp: str) -> None:
        if self.summarising:
            self.metadata.note_model(self.model)
        shown_name, tool_input = call_of(name, arguments)
        self._tool_use({"id": str(call_id) if call_id else "", "name": shown_name, "input": tool_input}, "", timestamp,
                       self.model)

    @handles(ITEMS, "function_call")
    def _function_call(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        """A call of one of Codex's tools, or of an MCP server's (0.1xx names its server as the namespace,
        `mcp__<server>`; earlier versions as the start of its name)."""
        name = payload.get("name")
        name = name if isinstance(name, str) else "(unnamed tool)"
        namespace = payload.get("namespace")
        if isinstance(namespace, str) and namespace:
            name = f"{namespace}__{name}"
        self._call(payload.get("call_id") or payload.get("id"), name, arguments_of(payload.get("arguments")), timestamp)

    @handles(ITEMS, "custom_tool_call")
    def _custom_tool_call(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        """A freeform tool (apply_patch since 0.3x): its whole input is the text the model wrote."""
        name = payload.get("name")
        self._call(payload.get("call_id") or payload.get("id"), name if isinstance(name, str) else "(unnamed tool)",
                   {"input": payload.get("input", "")}, timestamp)

    @handles(ITEMS, "local_shell_call")
    def _local_shell_call(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        action = payload.get("action")
        action = action if isinstance(action, dict) else {}
        arguments = {"command": command_line(action.get("command")), **{
            key: value for key, value in action.items() if key in ("working_directory", "timeout_ms")}}
        self._call(payload.get("call_id") or payload.get("id"), "local_shell", arguments, timestamp)

    @handles(ITEMS, "function_call_output", "custom_tool_call_output", "local_shell_call_output",
             "tool_search_output", "mcp_tool_call_output")
    def _call_output(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        call_id = str(payload.get("call_id") or "")
        found_tools = payload.get("tools")
        if isinstance(found_tools, list) and "output" not in payload:  # a tool search: the tools it loaded
            found_tools = tools_found(found_tools)
            self._pair_result({"tool_use_id": call_id, "content": "Tools found: " + ", ".join(found_tools) if found_tools
                               else "No tool found", "is_error": False}, timestamp, None)
            return
        text, facts, images = output_of(payload.get("output", payload.get("content", "")))
        if "exit_code" not in facts and call_id in self.exit_codes:
            facts["exit_code"] = self.exit_codes.pop(call_id)
        failed, how = is_failure(text, facts)
        if how:
            facts["status"] = how
        content: Any = text
        if images:
            content = [{"type": "text", "text": text},
                       *({"type": "image", "source": {"type": "base64", "media_type": found.group(1),
                                                      "data": found.group(2)}}
                         for image in images if (found := _DATA_URL.match(str(image.get("image_url", "")))))]
        self._pair_result({"tool_use_id": call_id, "content": content, "is_error": failed}, timestamp, facts or None)

    @handles(ITEMS, "tool_search_call")
    def _tool_search_call(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        arguments = payload.get("arguments", payload.get("action"))
        self._call(payload.get("call_id") or payload.get("id"), "tool_search", arguments_of(arguments), timestamp)

    @handles(ITEMS, "web_search_call")
    def _web_search_call(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        """A search the model's API ran itself: its query (or the page it opened), and whether it worked."""
        action = payload.get("action")
        action = action if isinstance(action, dict) else {}
        query = action.get("query") or action.get("url") or action.get("pattern") or ""
        status = payload.get("status") if isinstance(payload.get("status"), str) else ""
        call_id = payload.get("id") if isinstance(payload.get("id"), str) else anchor_id
        if self.summarising:
            self.metadata.note_model(self.model)
        verb = {"open_page": "Opened", "find_in_page": "Searched in"}.get(str(action.get("type")), "Searched")
        call = ToolCall(self._call_anchor(call_id), timestamp, call_id, "WebSearch",
                        {"query": query if isinstance(query, str) else str(query), **action},
                        ToolResult(timestamp, f"{verb} ({status})" if status else verb, status == "failed"))
        self.events.append(call)

    @handles(EVENTS, "exec_command_end")
    def _exec_command_end(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        """A command's end: its exit code, for its output (which the response item holds); a command the person
        ran themselves (`!cmd`) has no call, and is shown as theirs."""
        call_id = str(payload.get("call_id") or "")
        exit_code = payload.get("exit_code")
        if payload.get("source") == "user_shell" or call_id.startswith("user-shell"):
            stdout, stderr = payload.get("stdout"), payload.get("stderr")
            self.events.append(BashMode(self._next_anchor(anchor_id), timestamp, command_line(payload.get("command")),
                                        stdout if isinstance(stdout, str) else str(payload.get("aggregated_output", "")),
                                        stderr if isinstance(stderr, str) else ""))
        elif isinstance(exit_code, int) and not isinstance(exit_code, bool) and call_id:
            self.exit_codes[call_id] = exit_code
            if len(self.exit_codes) > DEDUPE_WINDOW:
                self.exit_codes.pop(next(iter(self.exit_codes)))

    # -- what happened around the conversation -----------------------------------------------------------

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


def tools_found(tools: list[Any]) -> list[str]:
    """The names of the tools a tool search loaded (a namespace's tools as `<namespace>__<tool>`)."""
    names: list[str] = []
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        inner = tool.get("tools")
        if isinstance(inner, list):
            names.extend(f"{tool.get('name', '')}__{name}" for name in tools_found(inner))
        elif isinstance(tool.get("name"), str):
            names.append(tool["name"])
    return names


def is_harness(text: str) -> bool:
    """Whether a user message is what Codex sends the model in the user's name (the project's AGENTS.md, the
    environment, instructions), which nobody typed."""
    stripped = text.lstrip()
    return stripped.startswith(_HARNESS_PREFIXES) or _HARNESS_BLOCK.match(text) is not None


__all__ = ["PATCH_TOOL", "CodexSession", "is_harness"]
