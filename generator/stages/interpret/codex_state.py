"""What a Codex session builder holds and the handler tables its families register in (`codex_rollout` is the
adapter; `codex_messages` and `codex_events` its families of handlers)."""

from __future__ import annotations

import base64
import binascii
import re
from collections import OrderedDict
from typing import Any, Callable, Mapping

from ...core.model import AssistantText, Media, Unknown
from ..agents import CODEX
from .message_content import _media
from .tool_calls import ToolCalls

Handler = Callable[[Any, Mapping[str, Any], str, str], None]
RECORDS: dict[str, Handler] = {}
"""By a record's `type`: handler(session, payload, anchor id, timestamp)."""
ITEMS: dict[str, Handler] = {}
"""By a response item's `type`."""
EVENTS: dict[str, Handler] = {}
"""By an event's `type` (`event_msg` records)."""

# Text Codex sends as the user's but nobody typed: a whole message that is one block tagged in Codex's way, a
# name with an underscore (`<environment_context>…</environment_context>`, `<user_instructions>`, `<turn_aborted>`,
# `<subagent_notification>`, …), and AGENTS.md. A person's own `<b>…</b>` or `<details>` is a prompt.
_HARNESS_BLOCK = re.compile(r"^\s*<([A-Za-z]\w*_\w*)(?:\s[^>]*)?>.*</\1>\s*$", re.S)
_HARNESS_PREFIXES = ("# AGENTS.md instructions", "<user_instructions>", "<environment_context>",
                     "<permissions instructions>", "<skills_instructions>", "<collaboration_mode>")
DATA_URL = re.compile(r"^data:([\w.+-]+/[\w.+-]+);base64,(.*)$", re.S)
DEDUPE_WINDOW = 32
"""Messages remembered to tell a second copy from a new message: a turn's worth."""


class CodexState(ToolCalls):
    """A Codex session's state: the Claude Code builder's (events, call pairing, usage, summary), and what
    Codex's records need remembered across lines."""

    agent = CODEX

    def __post_init__(self) -> None:
        super().__post_init__()
        self.model = ""
        self.settings = ""
        self.seen: OrderedDict[tuple[str, str], set[str]] = OrderedDict()
        self.exit_codes: dict[str, int] = {}
        self.call_digests: set[int] = set()
        """Hashes of the call ids seen (small, whatever the ids' length)."""
        self.failed_calls: set[str] = set()
        """Calls the CLI said failed before their output came (an MCP tool's `isError`)."""
        self.counted_total: dict[str, int] = {}
        self.usage_number = 0
        self.meta_seen = False

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

    def _reply(self, anchor: str, timestamp: str, text: str) -> None:
        if self.summarising:
            self.metadata.note_model(self.model)
        self.events.append(AssistantText(self._next_anchor(anchor), timestamp, text, self.model))

    def _image(self, url: Any) -> Media | None:
        if not isinstance(url, str):
            return None
        found = DATA_URL.match(url)
        if found is None:
            return _media({"url": url})
        if not self.whole_events:
            return Media(found.group(1), b"")
        try:
            base64.b64decode(found.group(2), validate=False)
        except (binascii.Error, ValueError):
            return Media(found.group(1), b"", "(embedded image that could not be decoded)")
        return _media({"source": {"type": "base64", "media_type": found.group(1), "data": found.group(2)}})

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

