"""Tool calls and their results: a call is made in an assistant entry and answered in a later user entry (or,
for a tool the API runs itself, in the same assistant message). Each result is paired with its call; a
result that comes before its call, or whose call was replayed from the session this one continues, is
paired all the same. The calls of task, plan and background tools also feed `tracking`."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from types import MappingProxyType
from typing import Any, Mapping

from ...core.model import EMPTY, BrokenLine, Entry, ToolCall, ToolResult
from ..summarize import UNKNOWN_TOOL
from ..tracking import PLAN_TOOLS, TASK_TOOLS, plan_of
from .harness import read_result
from .dispatch import ASSISTANT_PART_HANDLERS, USER_PART_HANDLERS, handles
from .message_content import _media, _text_of, _UserParts, strip_system_reminders
from .session_state import SessionState, _anchor

# Results in an assistant message: of tools the API runs itself (its `server_tool_use` calls), and of any
# call, as other backends write them.
SERVER_TOOL_RESULTS = ("tool_result", "mcp_tool_result", "web_search_tool_result", "web_fetch_tool_result",
                       "code_execution_tool_result", "bash_code_execution_tool_result",
                       "text_editor_code_execution_tool_result", "tool_search_tool_result")
TOOL_USE_ERROR = re.compile(r"<tool_use_error>(.*?)</tool_use_error>", re.S)
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


class ToolCalls(SessionState):
    """The handlers of tool calls and of tool results, wherever each is written, and the pairing of the two."""

    @handles(USER_PART_HANDLERS, "tool_result")
    def _tool_result(self, data: Mapping[str, Any], part: Mapping[str, Any], timestamp: str,
                     gathered: _UserParts) -> None:
        self._pair_result(part, self._time(data), data.get("toolUseResult"), data)

    @handles(ASSISTANT_PART_HANDLERS, *SERVER_TOOL_RESULTS)
    def _assistant_tool_result(self, part: Mapping[str, Any], part_id: str, timestamp: str, model: str) -> None:
        """A result inside Claude's own message: a tool the API ran (web search), or a call another backend
        (DeepSeek, GLM, MiniMax through Claude Code) answered in the same message."""
        if part.get("type") != "tool_result":
            content = part.get("content")
            is_error = isinstance(content, dict) and str(content.get("type", "")).endswith("_error")
            part = {**part, "content": _server_result_text(content), "is_error": is_error}
        self._pair_result(part, timestamp, None, EMPTY)

    def _pair_result(self, part: Mapping[str, Any], timestamp: str, structured: Any,
                     entry: Mapping[str, Any]) -> None:
        """A tool's result, given to the call it answers (or waiting for it)."""
        tool_use_id = str(part.get("tool_use_id", ""))
        content = part.get("content")
        images = tuple(
            image for p in content
            if isinstance(p, dict) and p.get("type") in ("image", "document")
            and (image := _media(p, decode=self.whole_events)) is not None
        ) if isinstance(content, list) else ()
        text = strip_system_reminders(self._result_text(content))
        # The tag is looked for first: most results hold none, and the pattern would be tried over each twice.
        marked = "<tool_use_error>" in text and TOOL_USE_ERROR.search(text) is not None
        is_error = part.get("is_error") is True or marked
        index = self.calls.result_came(tool_use_id)
        replayed = self.calls.replayed_call(tool_use_id) if index is None else None
        answered = self.events[index] if index is not None else None
        name = answered.name if isinstance(answered, ToolCall) else replayed[0] if replayed is not None else ""
        reading = read_result(TOOL_USE_ERROR.sub(r"\1", text) if marked else text, entry, is_error, name)
        result = ToolResult(
            timestamp=timestamp,
            text=reading.text,
            is_error=is_error,
            structured=structured,
            images=images,
            ending=reading.ending,
            feedback=reading.feedback,
            instruction=reading.instruction,
            harness=reading.harness,
        )
        if index is not None:
            call = self.events[index]
            assert isinstance(call, ToolCall)
            self._complete_call(index, call, result)
            return
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
        if self.whole_events:  # what it finds links a notification to its call: a summary reads no link
            self.background.note(call, result)
        if call.name in TASK_TOOLS and self.whole_events:
            self.events[index] = replace(call, result=result, tasks=self.tasks.track(call, result))
        elif call.name in PLAN_TOOLS:
            plan = plan_of(call.with_result(result))
            self.events[index] = plan
            self.plans.decided(index, plan)
        else:
            self.events[index] = call.with_result(result)
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


def _server_result_text(content: Any) -> str:
    """The result of a tool the API ran, as text: each search hit's title and address, a fetched page's text,
    an error's code, the output of code it ran, a file it viewed, the lines of an edit it made, the tools a
    tool search found; anything else as its JSON, so that nothing is lost."""
    if isinstance(content, str):
        return content
    lines: list[str] = []
    for item in content if isinstance(content, list) else [content]:
        if not isinstance(item, dict):
            lines.append(str(item))
        elif item.get("type") == "text" and isinstance(item.get("text"), str):
            lines.append(item["text"])
        elif isinstance(item.get("content"), dict) and item.get("content", {}).get("type") == "document":
            lines.append(_document_text(item["content"], item.get("url")))
        elif isinstance(item.get("url"), str):
            title = item.get("title")
            lines.append(f"{title} <{item['url']}>" if isinstance(title, str) and title else item["url"])
        elif isinstance(item.get("error_code"), str):
            lines.append(f"Error: {item['error_code']}")
        elif isinstance(item.get("stdout"), str) or isinstance(item.get("stderr"), str):
            lines.append("\n".join(str(item.get(name) or "") for name in ("stdout", "stderr")).strip())
        elif isinstance(item.get("content"), str):  # a file viewed
            lines.append(item["content"])
        elif isinstance(item.get("lines"), list) and all(isinstance(line, str) for line in item["lines"]):
            lines.append("\n".join(item["lines"]))  # an edit, as the lines of its diff
        elif isinstance(item.get("is_file_update"), bool):
            lines.append("File updated" if item["is_file_update"] else "File created")
        elif isinstance(item.get("tool_references"), list):
            found = [str(reference.get("tool_name")) for reference in item["tool_references"]
                     if isinstance(reference, dict) and reference.get("tool_name")]
            lines.append("Tools found: " + ", ".join(found) if found else "No tool found")
        else:
            lines.append(json.dumps(item, ensure_ascii=False, sort_keys=True, default=str))
    return "\n".join(lines)


def _document_text(document: Mapping[str, Any], url: Any) -> str:
    """A page the API fetched: its title and its text, or what kind of document it was when it is not text
    (a PDF is kept in the log as base64, which no page shows)."""
    source = document.get("source")
    source = source if isinstance(source, dict) else {}
    title = document.get("title") if isinstance(document.get("title"), str) else ""
    if isinstance(source.get("data"), str) and source.get("type") == "text":
        text = source["data"]
    elif isinstance(source.get("content"), list):
        text = _server_result_text(source["content"])
    else:
        kind = source.get("media_type") if isinstance(source.get("media_type"), str) else "a document"
        text = f"{url if isinstance(url, str) else ''} ({kind}, not shown)".strip()
    return f"{title}\n\n{text}" if title and text else title or text


def _tool_input(part: Mapping[str, Any]) -> Mapping[str, Any]:
    raw_input = part.get("input")
    return MappingProxyType(dict(raw_input)) if isinstance(raw_input, dict) else MappingProxyType({"input": raw_input})
