"""A scripted stand-in for the Anthropic Messages API, served on 127.0.0.1, for running the real Claude Code CLI
offline.

Claude Code sends its conversation requests (those that offer tools) and side requests (a title, a summary
for /compact, quota checks) to `ANTHROPIC_BASE_URL`. Each conversation request takes the next `Reply` from
the queue, so a scenario is a list of what "Claude" says, turn by turn; side requests are answered with
`title` when they ask for the session's name, `summary` when they ask for a conversation summary, and
`side_reply` otherwise.
A reply can also be an HTTP error (`Reply.failing(529)`), which Claude Code reports as an API error.

Every request body is kept (`received`) so that tests can check that what Claude Code sent to the model,
its system prompt and tool schemas, never reaches a published page.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterable

DEFAULT_MODEL = "claude-opus-5-5"


@dataclass(frozen=True)
class Reply:
    """One assistant turn: content blocks as the API returns them, or an HTTP error status."""

    blocks: tuple[dict[str, Any], ...] = ()
    status: int = 200
    to: str = ""
    """Only for a request whose first user message holds these words (a subagent's brief, say): a background
    subagent and the main conversation ask at the same time, and each must get its own replies."""
    usage: tuple[tuple[str, Any], ...] = ()
    """The `usage` the API reports for this turn, when set; otherwise made-up counts. Measuring what Claude
    Code charges for a model needs exact token counts (see measure_prices.py)."""
    stop: str = ""
    """The `stop_reason` the API gives, when set (max_tokens, refusal, pause_turn); otherwise tool_use or end_turn."""

    @staticmethod
    def of(*blocks: dict[str, Any], to: str = "") -> "Reply":
        return Reply(tuple(blocks), to=to)

    @staticmethod
    def costing(usage: dict[str, Any], *blocks: dict[str, Any]) -> "Reply":
        return Reply(tuple(blocks), usage=tuple(usage.items()))

    @staticmethod
    def stopping(reason: str, *blocks: dict[str, Any]) -> "Reply":
        return Reply(tuple(blocks), stop=reason)

    @staticmethod
    def failing(status: int) -> "Reply":
        return Reply(status=status)


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


def tool(tool_name: str, /, **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": tool_name, "input": tool_input}


def thinking(words: str) -> dict[str, Any]:
    """Claude's reasoning; with no words, only its signature (what Claude Code keeps by default)."""
    return {"type": "thinking", "thinking": words}


def web_search(query: str, *pages: tuple[str, str], number: int = 1) -> tuple[dict[str, Any], dict[str, Any]]:
    """A search the API runs itself: its call and its result (title, url pairs), both in Claude's reply."""
    call_id = f"srvtoolu_scripted{number:04d}"
    return ({"type": "server_tool_use", "id": call_id, "name": "web_search", "input": {"query": query}},
            {"type": "web_search_tool_result", "tool_use_id": call_id, "content": [
                {"type": "web_search_result", "title": title, "url": url, "encrypted_content": "c2NyaXB0ZWQ=",
                 "page_age": None} for title, url in pages]})


_ERROR_TYPES = {400: "invalid_request_error", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}


@dataclass
class ScriptedAPI:
    """The stub server; use as a context manager. `queue` takes more replies between CLI runs."""

    side_reply: str = "Scripted session"
    title: str = "Tide table session"
    """The session's name, when Claude Code asks the model for one (interactive runs): it writes it to the log
    as `ai-title`."""
    summary: str = "The user asked for a small change; it was made and checked."
    received: list[dict[str, Any]] = field(default_factory=list)
    _replies: deque[Reply] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: Iterable[int] = field(default_factory=lambda: itertools.count(1))
    _server: ThreadingHTTPServer | None = None

    def queue(self, replies: Iterable[Reply]) -> None:
        with self._lock:
            self._replies.extend(replies)

    @property
    def pending(self) -> int:
        return len(self._replies)

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> "ScriptedAPI":
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.end_headers()

            def do_GET(self) -> None:
                _send_json(self, 200, {})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = {}
                api._answer(self, body if isinstance(body, dict) else {})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def _next_id(self) -> int:
        with self._lock:
            return next(iter(self._ids))

    def _take(self, first_words: str) -> Reply:
        for reply in self._replies:
            if reply.to in first_words:
                self._replies.remove(reply)
                return reply
        return Reply.of(text("Done."))

    def _answer(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        if "count_tokens" in handler.path:
            return _send_json(handler, 200, {"input_tokens": 100})
        if not handler.path.startswith("/v1/messages"):
            return _send_json(handler, 200, {})
        with self._lock:
            self.received.append(body)
            if body.get("tools") and not _asks_for_summary(body):
                reply = self._take(_first_words(body))
            elif _asks_for_summary(body):
                reply = Reply.of(text(f"<summary>{self.summary}</summary>"))
            elif _asks_for_title(body):
                reply = Reply.of(text(json.dumps({"title": self.title})))
            else:
                reply = Reply.of(text(self.side_reply))
        if reply.status != 200:
            return _send_json(handler, reply.status, {"type": "error", "error": {
                "type": _ERROR_TYPES.get(reply.status, "api_error"), "message": "Scripted failure"}})
        n = self._next_id()
        blocks = [dict(b, id=f"toolu_scripted{n:04d}{i:02d}") if b.get("type") == "tool_use" else b
                  for i, b in enumerate(_learnt(reply.blocks, body))]
        stop = reply.stop or ("tool_use" if any(b.get("type") == "tool_use" for b in blocks) else "end_turn")
        usage = dict(reply.usage) or {"input_tokens": 1200 + 10 * n, "output_tokens": 40 + n,
                                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        message = {"id": f"msg_scripted{n:05d}", "type": "message", "role": "assistant",
                   "model": body.get("model") or DEFAULT_MODEL, "content": blocks, "stop_reason": stop,
                   "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            return _send_json(handler, 200, message)
        _stream(handler, message)


def _words(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else ""
    return content if isinstance(content, str) else " ".join(
        str(part.get("text", "")) for part in content or [] if isinstance(part, dict))


def _first_words(body: dict[str, Any]) -> str:
    messages = body.get("messages") or []
    return _words(messages[0]) if messages else ""


def _asks_for_summary(body: dict[str, Any]) -> bool:
    """/compact asks for a summary of the conversation in its last user message."""
    messages = body.get("messages") or []
    words = _words(messages[-1]) if messages else ""
    return "Your task is to create a detailed summary of" in words


# Words a scripted reply cannot know in advance, filled in from what Claude Code has just told the model: the
# file it asked for the plan in (plan mode names one under ~/.claude/plans/), the id of the last command
# started in the background, and that of the last scheduled prompt.
LEARNT_FROM_REQUEST = {
    "@PLAN_FILE@": re.compile(r"(/[^\s\"'`\\]*/\.claude/plans/[\w.-]+\.md)"),
    "@TASK_ID@": re.compile(r"Command running in background with ID: (\w+)"),
    "@CRON_ID@": re.compile(r"Scheduled (?:recurring |one-shot )?job (\w+)"),
}


def _learnt(blocks: tuple[dict[str, Any], ...], body: dict[str, Any]) -> list[dict[str, Any]]:
    """The blocks with each placeholder of LEARNT_FROM_REQUEST replaced by its latest value in the request."""
    written = json.dumps(blocks)
    request = json.dumps(body)
    for placeholder, pattern in LEARNT_FROM_REQUEST.items():
        if placeholder in written:
            found = pattern.findall(request)
            if not found:
                raise ValueError(f"a reply names {placeholder}, but the request does not say it")
            written = written.replace(placeholder, found[-1])
    return list(json.loads(written))


def _asks_for_title(body: dict[str, Any]) -> bool:
    """The request for a session's name: its system prompt says so, and the answer is JSON."""
    system = body.get("system")
    words = system if isinstance(system, str) else " ".join(
        str(part.get("text", "")) for part in system or [] if isinstance(part, dict))
    return "naming a coding session" in words


def _send_json(handler: BaseHTTPRequestHandler, status: int, payload: object) -> None:
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def _stream(handler: BaseHTTPRequestHandler, message: dict[str, Any]) -> None:
    """The reply as server-sent events, block by block, the way the Messages API streams."""
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.end_headers()

    def event(name: str, data: dict[str, Any]) -> None:
        handler.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())

    event("message_start", {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}})
    for index, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            start = {**block, "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}]
        elif block["type"] == "server_tool_use":
            start = {**block, "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}]
        elif block["type"].endswith("_tool_result"):
            # A tool the API ran itself (web search): its result comes whole, in the same reply.
            start, deltas = block, []
        elif block["type"] == "thinking":
            start = {"type": "thinking", "thinking": ""}
            deltas = [{"type": "thinking_delta", "thinking": block.get("thinking", "")},
                      {"type": "signature_delta", "signature": "c2NyaXB0ZWQ="}]
        else:
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": block.get("text", "")}]
        event("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})
        for delta in deltas:
            event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        event("content_block_stop", {"type": "content_block_stop", "index": index})
    event("message_delta", {"type": "message_delta", "delta": {"stop_reason": message["stop_reason"],
                                                               "stop_sequence": None},
                            "usage": {"output_tokens": message["usage"]["output_tokens"]}})
    event("message_stop", {"type": "message_stop"})
