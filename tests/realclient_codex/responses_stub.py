"""A scripted stand-in for the OpenAI Responses API, served on 127.0.0.1, for running the real Codex CLI offline.

Codex sends each turn of its conversation to `<base_url>/responses` (a custom model provider with
`wire_api = "responses"` in the throwaway CODEX_HOME's config.toml) and reads the answer as server-sent events:
`response.created`, one `response.output_item.done` per item (a message, a reasoning summary, a function or
custom tool call), then `response.completed` with the turn's token usage. A scenario is a list of `Reply`s,
one per request Codex makes: Codex runs the calls a reply asks for and asks again with their outputs.
Requests with no reply left get a short message. Every request body is kept (`received`), so that a test can
check that what Codex sent the model (its instructions, its tool schemas) reaches no page.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterable

DEFAULT_MODEL = "gpt-5.1-codex"


@dataclass(frozen=True)
class Reply:
    """One answer of the model: output items as the Responses API streams them, or an HTTP error status."""

    items: tuple[dict[str, Any], ...] = ()
    status: int = 200
    delay: float = 0.0
    """Seconds to wait before answering (an interrupt needs a turn that is still running)."""

    @staticmethod
    def of(*items: dict[str, Any], delay: float = 0.0) -> "Reply":
        return Reply(tuple(items), delay=delay)

    @staticmethod
    def failing(status: int) -> "Reply":
        return Reply(status=status)


def say(words: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": words,
                                                                  "annotations": []}]}


def reason(*summary: str) -> dict[str, Any]:
    return {"type": "reasoning", "summary": [{"type": "summary_text", "text": line} for line in summary],
            "content": None, "encrypted_content": None}


def call(name: str, /, **arguments: Any) -> dict[str, Any]:
    """A function call (`shell_command`, `update_plan`, an MCP tool as `server__tool`, ...)."""
    return {"type": "function_call", "name": name, "arguments": json.dumps(arguments)}


def patch(text: str) -> dict[str, Any]:
    """apply_patch as Codex's freeform (custom) tool: the patch is the call's whole input."""
    return {"type": "custom_tool_call", "name": "apply_patch", "input": text}


def web_search(query: str) -> dict[str, Any]:
    return {"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": query}}


@dataclass
class ScriptedResponses:
    """The stub server; use as a context manager. `queue` takes more replies between CLI runs."""

    model: str = DEFAULT_MODEL
    title: str = "Tide table session"
    """The answer to a side request (the interactive CLI asks the model to title its thread, offering it at most
    one tool): side requests do not take the scenario's replies."""
    received: list[dict[str, Any]] = field(default_factory=list)
    _replies: deque[Reply] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: Any = field(default_factory=lambda: itertools.count(1))
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
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> "ScriptedResponses":
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                _send_json(self, 200, {"object": "list", "data": [], "models": []})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                body = body if isinstance(body, dict) else {}
                with api._lock:
                    api.received.append({"path": self.path, "body": body})
                if not self.path.rstrip("/").endswith("/responses"):
                    _send_json(self, 404, {"error": {"message": "not scripted"}})
                    return
                api._answer(self, body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def _next(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}_scripted{next(self._ids):04d}"

    def _take(self) -> Reply:
        with self._lock:
            return self._replies.popleft() if self._replies else Reply.of(say("Done."))

    def _answer(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        tools = body.get("tools")
        side_request = isinstance(tools, list) and len(tools) <= 1
        reply = Reply.of(say(self.title)) if side_request else self._take()
        if reply.delay:
            time.sleep(reply.delay)
        if reply.status != 200:
            _send_json(handler, reply.status, {"error": {"type": "server_error", "message": "scripted failure"}})
            return
        response_id = self._next("resp")
        items = []
        for item in reply.items:
            item = dict(item)
            if item["type"] in ("function_call", "custom_tool_call", "tool_search_call"):
                item.setdefault("call_id", self._next("call"))
            item.setdefault("id", self._next({"message": "msg", "reasoning": "rs"}.get(item["type"], "fc")))
            if item["type"] == "message":
                item.setdefault("status", "completed")
            items.append(item)
        words = sum(len(json.dumps(item)) for item in body.get("input", []) if isinstance(item, dict))
        usage = {"input_tokens": 1200 + words // 4, "input_tokens_details": {"cached_tokens": 1024},
                 "output_tokens": 40 + sum(len(json.dumps(item)) for item in items) // 4,
                 "output_tokens_details": {"reasoning_tokens": 16}}
        usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
        events: list[dict[str, Any]] = [{"type": "response.created", "response": {"id": response_id}}]
        for index, item in enumerate(items):
            events.append({"type": "response.output_item.added", "output_index": index, "item": item})
            events.append({"type": "response.output_item.done", "output_index": index, "item": item})
        events.append({"type": "response.completed", "response": {"id": response_id, "usage": usage,
                                                                   "model": body.get("model", self.model)}})
        payload = b"".join(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode() for event in events)
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("content-length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)


def _send_json(handler: BaseHTTPRequestHandler, status: int, body: dict[str, Any]) -> None:
    payload = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)
