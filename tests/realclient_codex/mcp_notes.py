"""A tiny MCP server over stdio (JSON-RPC 2.0, one message a line) with one tool, `lookup`, which answers from a
fixed table of notes: enough for Codex to list it, call it and log the call and its result."""

import json
import sys

NOTES = {"tides": "High tide at Brest: 06:12 and 18:40.", "ferry": "The Ouessant ferry leaves at 09:30."}
TOOL = {"name": "lookup", "description": "Look up a note by its topic.",
        "inputSchema": {"type": "object", "properties": {"topic": {"type": "string"}}, "required": ["topic"]}}


def answer(message: dict) -> dict | None:
    method, ident = message.get("method"), message.get("id")
    if ident is None:  # a notification
        return None
    if method == "initialize":
        result = {"protocolVersion": message.get("params", {}).get("protocolVersion", "2025-06-18"),
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "notes", "version": "1.0.0"}}
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call":
        topic = message.get("params", {}).get("arguments", {}).get("topic", "")
        found = NOTES.get(topic)
        result = {"content": [{"type": "text", "text": found or f"No note about {topic!r}."}], "isError": found is None}
    elif method in ("resources/list", "resources/templates/list", "prompts/list"):
        result = {method.split("/")[0].replace("templates", "resourceTemplates"): []}
    else:
        return {"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": ident, "result": result}


for line in sys.stdin:
    try:
        reply = answer(json.loads(line))
    except ValueError:
        continue
    if reply is not None:
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
