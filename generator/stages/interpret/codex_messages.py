"""The Codex adapter's handlers of the conversation: messages (the person's, the model's, once each, the
harness's never), reasoning summaries, and tool calls with their outputs."""

from __future__ import annotations

import re
from typing import Any, Mapping

from ...core.model import BashMode, Prompt, Thinking, ToolCall, ToolResult
from .codex_calls import arguments_of, call_of, command_line, is_failure, output_of
from .codex_state import DATA_URL, DEDUPE_WINDOW, EVENTS, ITEMS, CodexState, is_harness, tools_found
from .dispatch import handles

# The tags 0.1xx wraps a pasted image in, around the image itself.
def listed(value: Any) -> list[Any]:
    """A field that should hold a list, as one: a damaged record's number or text holds no parts."""
    return value if isinstance(value, list) else []


# A rollout has no Claude Code entry around a call's output: nothing in it says how a call ended but the output.
NO_ENTRY: Mapping[str, Any] = {}
_IMAGE_TAG = re.compile(r"^\s*(?:<image\b[^>]*>|</image>)\s*$")


class CodexMessages(CodexState):
    """Messages and reasoning."""

    @handles(ITEMS, "message")
    def _message(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        role = payload.get("role")
        content = payload.get("content")
        parts = content if isinstance(content, list) else [{"type": "input_text", "text": content}]
        texts = [part["text"] for part in parts if isinstance(part, dict) and isinstance(part.get("text"), str)]
        # Anchored by its line, which no other record shares (a message's own id may repeat in a hostile log).
        anchor = anchor_id
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
        texts = [part["text"] for part in listed(item.get("content")) if isinstance(part, dict)
                 and isinstance(part.get("text"), str)]
        if kind == "AgentMessage" and texts and self._once("reply", "\n\n".join(texts), "completed"):
            self._reply(anchor_id, timestamp, "\n\n".join(texts))
        elif kind == "UserMessage" and texts:
            words = "\n".join(texts)
            if not is_harness(words) and self._once("prompt", words, "completed"):
                self.events.append(Prompt(self._next_anchor(anchor_id), timestamp, words.strip("\n")))
        elif kind == "McpToolCall" and isinstance(item.get("id"), str):
            result = item.get("result")
            failed = item.get("status") == "failed" or (isinstance(result, dict) and result.get("isError") is True)
            if failed and len(self.failed_calls) < DEDUPE_WINDOW:  # a log of failures with no outputs stays small
                self.failed_calls.add(item["id"])
        elif kind == "Reasoning":
            for index, text in enumerate(listed(item.get("summary_text"))):
                if isinstance(text, str) and text.strip() and self._once("thinking", text, "completed"):
                    self.events.append(Thinking(self._next_anchor(f"{anchor_id}-{index}"), timestamp, text))

    @handles(ITEMS, "reasoning")
    def _reasoning(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        """The reasoning summaries the model gave (its raw reasoning, when Codex kept it); the encrypted part is
        the model's alone."""
        parts = [*listed(payload.get("summary")), *listed(payload.get("content"))]
        anchor = anchor_id
        for index, part in enumerate(parts):
            text = part.get("text") if isinstance(part, dict) else None
            if isinstance(text, str) and text.strip() and self._once("thinking", text, "item"):
                self.events.append(Thinking(self._next_anchor(f"{anchor}-{index}"), timestamp, text))

    @handles(EVENTS, "agent_reasoning", "agent_reasoning_raw_content")
    def _agent_reasoning(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        text = payload.get("text")
        if isinstance(text, str) and text.strip() and self._once("thinking", text, "event"):
            self.events.append(Thinking(self._next_anchor(anchor_id), timestamp, text))


class CodexCalls(CodexState):
    """Tool calls and their outputs, paired by call id."""

    def _call(self, call_id: Any, name: str, arguments: Mapping[str, Any], timestamp: str, anchor_id: str) -> None:
        """A call, paired with its output by its id; an id this session used before (a hostile or broken log)
        gets its line too, so that no two calls share an anchor."""
        call_id = str(call_id) if call_id else ""
        if call_id:
            digest = hash(call_id)
            if digest in self.call_digests:
                call_id = f"{call_id}-{anchor_id}"
            else:
                self.call_digests.add(digest)
        if self.summarising:
            self.metadata.note_model(self.model)
        shown_name, tool_input = call_of(name, arguments)
        self._tool_use({"id": call_id, "name": shown_name, "input": tool_input}, "", timestamp,
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
        self._call(payload.get("call_id") or payload.get("id"), name, arguments_of(payload.get("arguments")), timestamp,
                   anchor_id)

    @handles(ITEMS, "custom_tool_call")
    def _custom_tool_call(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        """A freeform tool (apply_patch since 0.3x): its whole input is the text the model wrote."""
        name = payload.get("name")
        self._call(payload.get("call_id") or payload.get("id"), name if isinstance(name, str) else "(unnamed tool)",
                   {"input": payload.get("input", "")}, timestamp, anchor_id)

    @handles(ITEMS, "local_shell_call")
    def _local_shell_call(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        action = payload.get("action")
        action = action if isinstance(action, dict) else {}
        arguments = {"command": command_line(action.get("command")), **{
            key: value for key, value in action.items() if key in ("working_directory", "timeout_ms")}}
        self._call(payload.get("call_id") or payload.get("id"), "local_shell", arguments, timestamp, anchor_id)

    @handles(ITEMS, "function_call_output", "custom_tool_call_output", "local_shell_call_output",
             "tool_search_output", "mcp_tool_call_output")
    def _call_output(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        call_id = str(payload.get("call_id") or "")
        found_tools = payload.get("tools")
        if isinstance(found_tools, list) and "output" not in payload:  # a tool search: the tools it loaded
            found_tools = tools_found(found_tools)
            self._pair_result({"tool_use_id": call_id, "content": "Tools found: " + ", ".join(found_tools) if found_tools
                               else "No tool found", "is_error": False}, timestamp, None, NO_ENTRY)
            return
        text, facts, images = output_of(payload.get("output", payload.get("content", "")))
        if "exit_code" not in facts and call_id in self.exit_codes:
            facts["exit_code"] = self.exit_codes.pop(call_id)
        if call_id in self.failed_calls:
            self.failed_calls.discard(call_id)
            facts["success"] = False
        failed, how = is_failure(text, facts)
        if how:
            facts["status"] = how
        content: Any = text
        if images:
            content = [{"type": "text", "text": text},
                       *({"type": "image", "source": {"type": "base64", "media_type": found.group(1),
                                                      "data": found.group(2)}}
                         for image in images if (found := DATA_URL.match(str(image.get("image_url", "")))))]
        self._pair_result({"tool_use_id": call_id, "content": content, "is_error": failed}, timestamp, facts or None,
                          NO_ENTRY)

    @handles(ITEMS, "tool_search_call")
    def _tool_search_call(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        arguments = payload.get("arguments", payload.get("action"))
        self._call(payload.get("call_id") or payload.get("id"), "tool_search", arguments_of(arguments), timestamp, anchor_id)

    @handles(ITEMS, "web_search_call")
    def _web_search_call(self, payload: Mapping[str, Any], anchor_id: str, timestamp: str) -> None:
        """A search the model's API ran itself: its query (or the page it opened), and whether it worked."""
        action = payload.get("action")
        action = action if isinstance(action, dict) else {}
        query = action.get("query") or action.get("url") or action.get("pattern") or ""
        status = payload.get("status") if isinstance(payload.get("status"), str) else ""
        call_id = anchor_id  # the search's own id, when it has one, is the API's and may repeat
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
